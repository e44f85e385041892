"""Online data migrations (``placement-manage db online_data_migrations``).

Each migration takes the database, the configuration and the most rows it
may touch, and returns ``(found, done)``: how many rows needed migrating
and how many it migrated in this call.
"""

import sqlalchemy as sa

from placement.db import models

_RP = models.ResourceProvider.__table__
_ALLOC = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__
_USER = models.User.__table__


def set_root_provider_ids(db, conf, max_count):
    """Fill ``root_provider_id`` of providers written before nesting."""
    return db.write(_set_root_provider_ids, max_count)


def _set_root_provider_ids(conn, max_count):
    found = conn.scalar(sa.select(sa.func.count()).select_from(_RP)
                        .where(_RP.c.root_provider_id.is_(None)))
    ids = conn.scalars(
        sa.select(_RP.c.id).where(_RP.c.root_provider_id.is_(None))
        .order_by(_RP.c.id).limit(max_count)).all()
    for provider_id in ids:
        conn.execute(sa.update(_RP).where(_RP.c.id == provider_id)
                     .values(root_provider_id=_root_of(conn, provider_id)))
    return found, len(ids)


def _root_of(conn, provider_id):
    """The root of ``provider_id``, walking up past unmigrated parents."""
    while True:
        root_id, parent_id = conn.execute(
            sa.select(_RP.c.root_provider_id, _RP.c.parent_provider_id)
            .where(_RP.c.id == provider_id)).one()
        if root_id is not None:
            return root_id
        if parent_id is None:
            return provider_id
        provider_id = parent_id


def _ensure_external_id(conn, table, external_id):
    row_id = conn.scalar(sa.select(table.c.id)
                         .where(table.c.external_id == external_id))
    if row_id is None:
        row_id = conn.execute(sa.insert(table).values(
            external_id=external_id)).inserted_primary_key[0]
    return row_id


def consumerless_allocations():
    return (sa.select(_ALLOC.c.consumer_id).distinct()
            .outerjoin(_CONSUMER, _CONSUMER.c.uuid == _ALLOC.c.consumer_id)
            .where(_CONSUMER.c.id.is_(None)))


def create_incomplete_consumers(db, conf, max_count):
    """Create consumer records for allocations that have none.

    They get the ``[placement] incomplete_consumer_*`` project and user.
    """
    return db.write(_create_incomplete_consumers, conf, max_count)


def _create_incomplete_consumers(conn, conf, max_count):
    missing = consumerless_allocations().subquery()
    found = conn.scalar(sa.select(sa.func.count()).select_from(missing))
    uuids = conn.scalars(consumerless_allocations()
                         .order_by(_ALLOC.c.consumer_id)
                         .limit(max_count)).all()
    if not uuids:
        return found, 0
    project_id = _ensure_external_id(
        conn, _PROJECT, conf.placement.incomplete_consumer_project_id)
    user_id = _ensure_external_id(
        conn, _USER, conf.placement.incomplete_consumer_user_id)
    conn.execute(sa.insert(_CONSUMER), [
        {'uuid': uuid, 'project_id': project_id, 'user_id': user_id,
         'generation': 0}
        for uuid in uuids])
    return found, len(uuids)


# In the order they run; later ones may depend on earlier ones.
ONLINE_MIGRATIONS = (
    set_root_provider_ids,
    create_incomplete_consumers,
)
