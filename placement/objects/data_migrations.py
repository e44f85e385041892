"""Online data migrations (``placement-manage db online_data_migrations``).

Each migration counts the rows it has left, and migrates a batch of them
in a few set-based statements, whatever the batch's size. A batch takes
the first rows after a key (the last key of the batch before), so that a
run walks the table once instead of passing over the rows it migrated
at every batch; ``after=None`` starts from the beginning.
"""

import dataclasses
import typing

import sqlalchemy as sa

from placement.db import models

_RP = models.ResourceProvider.__table__
_ALLOC = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__
_USER = models.User.__table__


class Batch(typing.NamedTuple):
    """What one batch did: rows found, rows migrated, last key found."""

    found: int
    done: int
    last_key: typing.Any


@dataclasses.dataclass(frozen=True)
class OnlineMigration:
    """``count_left(conn, conf)``: rows to migrate;
    ``migrate(conn, conf, limit, after)``: a Batch of at most ``limit``."""

    name: str
    count_left: typing.Callable
    migrate: typing.Callable

    def left(self, db, conf):
        """The rows left, on the primary database (a replica may lag)."""
        return db.read(self.count_left, conf, primary=True)

    def run(self, db, conf, limit, after=None):
        """One batch in a write transaction of its own."""
        return db.write(self.migrate, conf, limit, after)


def _rootless(after):
    query = sa.select(_RP.c.id).where(_RP.c.root_provider_id.is_(None))
    return query if after is None else query.where(_RP.c.id > after)


def _count_rootless(conn, _conf):
    return conn.scalar(sa.select(sa.func.count())
                       .select_from(_rootless(None).subquery()))


def _set_root_provider_ids(conn, _conf, limit, after):
    """Fill ``root_provider_id`` of providers written before nesting."""
    ids = conn.scalars(_rootless(after).order_by(_RP.c.id)
                       .limit(limit)).all()
    if not ids:
        return Batch(0, 0, after)
    rootless = _RP.c.root_provider_id.is_(None)
    # Providers written before nesting have no parent: their own roots.
    done = conn.execute(
        sa.update(_RP).where(_RP.c.id.in_(ids), rootless,
                             _RP.c.parent_provider_id.is_(None))
        .values(root_provider_id=_RP.c.id)).rowcount
    if done < len(ids):
        roots = _roots_of(conn, ids)
        if roots:
            done += conn.execute(
                sa.update(_RP).where(_RP.c.id.in_(roots), rootless)
                .values(root_provider_id=sa.case(roots, value=_RP.c.id))
            ).rowcount
    return Batch(len(ids), done, ids[-1])


def _roots_of(conn, ids):
    """``{id: root id}`` of those of providers ``ids`` without a root id,
    walking up past parents that have none either: one recursive query."""
    walk = sa.select(
        _RP.c.id.label('id'), _RP.c.id.label('ancestor'),
        _RP.c.parent_provider_id.label('parent'),
        _RP.c.root_provider_id.label('root'),
    ).where(_RP.c.id.in_(ids), _RP.c.root_provider_id.is_(None)
            ).cte('walk', recursive=True)
    up = _RP.alias('up')
    walk = walk.union_all(
        sa.select(walk.c.id, up.c.id, up.c.parent_provider_id,
                  up.c.root_provider_id)
        .join(up, up.c.id == walk.c.parent)
        .where(walk.c.root.is_(None)))
    return dict(conn.execute(
        sa.select(walk.c.id, sa.func.coalesce(walk.c.root, walk.c.ancestor))
        .where(sa.or_(walk.c.root.is_not(None), walk.c.parent.is_(None))))
        .all())


def consumerless_allocations(dialect=None, after=None, up_to=None):
    """The consumer ids of allocations without a consumer record (those
    greater than ``after`` and at most ``up_to``).

    Ordered and limited, each backend then reads the index of consumer
    ids from ``after`` and stops at the limit, provided it is asked the
    way its planner understands: GROUP BY, as MySQL collects every
    DISTINCT id in a temporary table first; a LEFT JOIN on MySQL
    (MariaDB materialises a NOT EXISTS subquery: every record above
    ``after``, at every batch), NOT EXISTS elsewhere (PostgreSQL
    underestimates the rows of a LEFT JOIN ... IS NULL and hashes both
    tables whole). The bounds are on the consumer records too, so that
    PostgreSQL does not merge in those below ``after``.
    """
    ids, recorded = [], [_CONSUMER.c.uuid == _ALLOC.c.consumer_id]
    for column, bounds in ((_ALLOC.c.consumer_id, ids),
                           (_CONSUMER.c.uuid, recorded)):
        if after is not None:
            bounds.append(column > after)
        if up_to is not None:
            bounds.append(column <= up_to)
    query = (sa.select(_ALLOC.c.consumer_id)
             .where(*ids)
             .group_by(_ALLOC.c.consumer_id))
    if dialect == 'mysql':
        return (query.select_from(
            _ALLOC.outerjoin(_CONSUMER, sa.and_(*recorded)))
            .where(_CONSUMER.c.id.is_(None)))
    return query.where(~sa.exists().where(*recorded))


def _count_consumerless(conn, _conf):
    return conn.scalar(sa.select(sa.func.count()).select_from(
        consumerless_allocations(conn.dialect.name).subquery()))


def _placeholder_ids(conn, conf):
    """The ids of the ``[placement] incomplete_consumer_*`` project and
    user, created when missing (both looked up in one query)."""
    tables = ((_PROJECT, conf.placement.incomplete_consumer_project_id),
              (_USER, conf.placement.incomplete_consumer_user_id))
    ids = conn.execute(sa.select(*[
        sa.select(table.c.id).where(table.c.external_id == external_id)
        .scalar_subquery() for table, external_id in tables])).one()
    return [
        row_id if row_id is not None else conn.execute(
            sa.insert(table).values(external_id=external_id)
        ).inserted_primary_key[0]
        for row_id, (table, external_id) in zip(ids, tables, strict=True)]


def _create_incomplete_consumers(conn, conf, limit, after):
    """Consumer records for allocations that have none, with the
    ``[placement] incomplete_consumer_*`` project and user."""
    dialect = conn.dialect.name
    keys = conn.scalars(consumerless_allocations(dialect, after)
                        .order_by(_ALLOC.c.consumer_id).limit(limit)).all()
    if not keys:
        return Batch(0, 0, after)
    project_id, user_id = _placeholder_ids(conn, conf)
    # The same rows, read again in the statement that inserts them: one
    # recorded meanwhile by the service is left out, not a conflict. The
    # columns' defaults (generation, created_at) are filled in too.
    missing = consumerless_allocations(dialect, after, keys[-1]).subquery()
    done = conn.execute(sa.insert(_CONSUMER).from_select(
        ['uuid', 'project_id', 'user_id'],
        sa.select(missing.c.consumer_id, sa.literal(project_id),
                  sa.literal(user_id)))).rowcount
    return Batch(len(keys), done, keys[-1])


SET_ROOT_PROVIDER_IDS = OnlineMigration(
    'set_root_provider_ids', _count_rootless, _set_root_provider_ids)
CREATE_INCOMPLETE_CONSUMERS = OnlineMigration(
    'create_incomplete_consumers', _count_consumerless,
    _create_incomplete_consumers)

# In the order they run; later ones may depend on earlier ones.
ONLINE_MIGRATIONS = (SET_ROOT_PROVIDER_IDS, CREATE_INCOMPLETE_CONSUMERS)
