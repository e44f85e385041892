"""Consumers and the projects, users and consumer types they refer to.

A consumer record exists while the consumer has allocations: it is
created with its first allocation and removed with its last. Its
generation is compare-and-swapped by every write of its allocations, in
the same transaction, so that two writers of one consumer cannot both
win (:func:`create`, :func:`update`).

Projects, users and consumer types are created on first use. Two
requests may create the same one at the same time: the unique
constraint decides, inside a savepoint, and the loser reads the
winner's row with a locking read (which, unlike a plain read of an
older MySQL snapshot, sees what committed since the transaction began).
"""

import dataclasses

import sqlalchemy as sa

from placement import exception
from placement.db import models

CONSUMER = models.Consumer.__table__
PROJECT = models.Project.__table__
USER = models.User.__table__
CONSUMER_TYPE = models.ConsumerType.__table__

#: Built once: SQLAlchemy keys its cache of compiled statements by a
#: key it computes once per statement object.
_INSERT_CONSUMERS = sa.insert(CONSUMER)

#: How consumers without a type are shown (and queried in usages).
UNKNOWN_TYPE = 'unknown'


@dataclasses.dataclass(frozen=True)
class Owner:
    """Who a consumer belongs to; ``consumer_type`` None: keep/none."""

    project_id: str
    user_id: str
    consumer_type: str | None = None


def _select(table, column, value, locking=False):
    query = sa.select(table.c.id).where(column == value)
    if locking:
        query = query.with_for_update(read=True)
    return query


def _ensure(conn, table, column, value):
    """The id of the new row whose ``column`` is ``value``.

    Or of the row another transaction created since it was found absent.
    """
    try:
        with conn.begin_nested():
            return conn.execute(sa.insert(table).values(
                {column.name: value})).inserted_primary_key[0]
    except sa.exc.IntegrityError:
        # Created concurrently by another transaction that committed.
        return conn.scalar(_select(table, column, value, locking=True))


#: ``{consumer column: (table, name column)}`` of the rows naming owners.
_OWNER_TABLES = {
    'project_id': (PROJECT, PROJECT.c.external_id),
    'user_id': (USER, USER.c.external_id),
    'consumer_type_id': (CONSUMER_TYPE, CONSUMER_TYPE.c.name),
}


def owner_names(owner):
    """``{consumer column: name}`` of the rows naming ``owner``."""
    names = {'project_id': owner.project_id, 'user_id': owner.user_id}
    if owner.consumer_type is not None:
        names['consumer_type_id'] = owner.consumer_type
    return names


def owner_lookup(key, parameter):
    """The SELECT of the id of the row that consumer column ``key``
    refers to, by its name in the bind parameter ``parameter``.

    For a caller that reads them with other things in one statement,
    built once, and gives what it found to :func:`owner_ids`.
    """
    table, column = _OWNER_TABLES[key]
    return _select(table, column, sa.bindparam(parameter))


def owner_ids(conn, found):
    """``{owner: {column: id}}`` of the consumer columns naming each
    owner of ``found``.

    ``found``: ``{owner: {column: id or None}}`` as read by
    :func:`owner_lookup`; the projects, users and consumer types not
    found are created, table by table and in the order of their names,
    whatever the order of the owners: writers that create some of the
    same ones at the same time then wait for each other in one order,
    where they deadlocked (a request's owners in the order of its
    consumers, another's in another).
    """
    names = {owner: owner_names(owner) for owner in found}
    created = {}
    for key, (table, column) in _OWNER_TABLES.items():
        missing = {named[key] for owner, named in names.items()
                   if key in named and found[owner].get(key) is None}
        for value in sorted(missing):
            created[key, value] = _ensure(conn, table, column, value)
    return {owner: {key: (found[owner][key]
                          if found[owner].get(key) is not None
                          else created[key, value])
                    for key, value in named.items()}
            for owner, named in names.items()}


#: What is shown of a consumer's owners, for a statement reading the
#: consumers table: the external ids of its project and user, its type's
#: name (``unknown`` when it has none). Scalar subqueries by primary key,
#: not joins: PostgreSQL plans a statement's joins anew each time, and
#: three more tables took it longer than running the statement.
OWNERS = (
    sa.select(PROJECT.c.external_id)
    .where(PROJECT.c.id == CONSUMER.c.project_id)
    .scalar_subquery().label('project_id'),
    sa.select(USER.c.external_id)
    .where(USER.c.id == CONSUMER.c.user_id)
    .scalar_subquery().label('user_id'),
    sa.func.coalesce(
        sa.select(CONSUMER_TYPE.c.name)
        .where(CONSUMER_TYPE.c.id == CONSUMER.c.consumer_type_id)
        .scalar_subquery(), UNKNOWN_TYPE).label('consumer_type'),
)


def check_generation(uuid, consumer, expected):
    """ConcurrentUpdate unless the client's ``expected`` generation holds.

    ``expected`` None means "the consumer does not exist yet".
    """
    actual = None if consumer is None else consumer.generation
    if actual != expected:
        shown = 'null' if actual is None else actual
        # Upstream's phrase, which clients match.
        raise exception.ConcurrentUpdate(
            f'consumer generation conflict - expected {shown} but got '
            f'{"null" if expected is None else expected} (consumer '
            f'{uuid})')


def _conflict(uuids):
    return exception.ConcurrentUpdate(
        f'consumer {", ".join(uuids)} was changed by another request while '
        f'its allocations were written; re-read it and retry.')


def create(conn, uuids, values):
    """Create the consumers ``uuids`` with the columns ``values``.

    In one statement, without a savepoint: when another transaction
    created one of them since, the whole transaction is given up
    (ConcurrentUpdate), as the unique constraint's error leaves it
    unusable on PostgreSQL.
    """
    # Generation 1, as upstream: created (0), then written (+1).
    try:
        conn.execute(_INSERT_CONSUMERS, [
            {'uuid': uuid, 'generation': 1, **values} for uuid in uuids])
    except sa.exc.IntegrityError as exc:
        raise _conflict(uuids) from exc


def update(conn, consumer, values):
    """Bump the generation of ``consumer`` (its row as read in this
    transaction) and set its columns ``values``.

    ConcurrentUpdate when another transaction changed it since.
    """
    result = conn.execute(
        sa.update(CONSUMER)
        .where(CONSUMER.c.id == consumer.id,
               CONSUMER.c.generation == consumer.generation)
        .values(generation=consumer.generation + 1, **values))
    if result.rowcount != 1:
        raise _conflict([consumer.uuid])


def delete(conn, uuids):
    """Remove the records of consumers ``uuids`` (left without allocations).

    By unique key only: a subquery on the allocations would share-lock
    ranges of their index (MySQL) and deadlock with concurrent inserts.
    """
    if uuids:
        conn.execute(sa.delete(CONSUMER).where(
            CONSUMER.c.uuid.in_(sorted(uuids))))
