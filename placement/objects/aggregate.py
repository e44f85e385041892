"""Aggregates of resource providers.

Placement aggregates are bare uuids: a row in ``placement_aggregates``
is created the first time a provider is put in it and kept afterwards.
"""

import sqlalchemy as sa

from placement import uuid_form
from placement.db import api as db_api
from placement.db import models
from placement.objects import association
from placement.objects import resource_provider

AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_LINKS = association.Association(_RP_AGG.c.aggregate_id, AGG.c.uuid)


def _ids_by_uuid(conn, uuids, found):
    """``{uuid: id}``, ``found`` (``{uuid: id}`` of those that exist)
    plus the aggregates created now.

    A concurrent creator of the same aggregate makes our insert fail on
    the unique uuid; the locking re-read then sees its row.
    """
    missing = sorted(set(uuids) - found.keys())
    if not missing:
        return found
    for uuid in missing:
        try:
            with conn.begin_nested():
                conn.execute(sa.insert(AGG).values(uuid=uuid))
        except sa.exc.IntegrityError:
            pass
    return dict(conn.execute(
        select_ids(uuids).with_for_update(read=True)).all())


def existing_ids(conn, uuids):
    """``{uuid: id}`` of the aggregates of ``uuids`` that exist
    (:func:`canonical_ids`)."""
    if not uuids:
        return {}
    return canonical_ids(conn.execute(select_ids(sorted(uuids))))


def canonical_ids(rows):
    """``{uuid: id}`` of the ``(uuid, id)`` rows of :func:`select_ids`
    (the aggregates that exist of those asked for), keyed by the
    canonical form: a database upgraded from upstream may hold a uuid
    in capitals, which MySQL's collation matches."""
    return {uuid_form.canonical(uuid) or uuid: aggregate_id
            for uuid, aggregate_id in rows}


def select_ids(uuids):
    return sa.select(AGG.c.uuid, AGG.c.id).where(AGG.c.uuid.in_(uuids))


def ids_of(uuids):
    """The query of the ids of the aggregates ``uuids`` (for a statement
    that reads them with what they name): :func:`select_ids`'s rows
    without their uuids."""
    return select_ids(uuids).with_only_columns(AGG.c.id)


@db_api.read_committed
def of_provider(conn, uuid):
    """``(provider generation, sorted aggregate uuids)`` of provider
    ``uuid``."""
    generation, _changed, uuids = _LINKS.linked(conn, uuid)
    return generation, uuids


def replace(db, uuid, generation, uuids):
    """:func:`replace_of` in a transaction of its own; the new generation.

    Without a generation the transaction reads what is committed, so
    that the links it reads once it holds the provider are those the
    writer before it left.
    """
    return association.write(db, replace_of, uuid, generation, uuids,
                             read_committed=generation is None)


def replace_of(conn, uuid, generation, uuids):
    """Put provider ``uuid`` in exactly the aggregates ``uuids``.

    ``generation`` is the provider generation the caller saw; the new one
    is returned (ConcurrentUpdate when it is stale). None (before 1.19)
    changes the aggregates without checking or moving the generation,
    as upstream does; then None is returned.
    """
    if generation is None:
        _hold_alone(conn, uuid)
    provider, found, current = _LINKS.of_provider(conn, uuid, uuids)
    new_generation = None
    if generation is not None:
        new_generation = resource_provider.increment_generation(
            conn, provider.id, generation)
    wanted = _ids_by_uuid(conn, uuids, found).values()
    _LINKS.replace(conn, provider.id, wanted, current)
    return new_generation


def _hold_alone(conn, uuid):
    """Lock provider ``uuid``'s row until the transaction ends; NotFound
    when it is gone.

    Before 1.19 no generation orders two writers of a provider's
    aggregates (each would add its own to the links it read: both lists
    united), nor a writer and the provider's delete (the links have no
    foreign key to it): the row does, held before the links are read.
    """
    canonical = resource_provider.canonical_uuid(uuid)
    if conn.scalar(sa.select(resource_provider.RP.c.id)
                   .where(resource_provider.RP.c.uuid == canonical)
                   .with_for_update()) is None:
        raise resource_provider.not_found(uuid)
