"""Inventories in a scope with what is allocated from each: one query."""

import sqlalchemy as sa

from placement.db import models
from placement.objects import resource_class
from placement.reports import scope as scope_mod

INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
RC = resource_class.RC
RP = scope_mod.RP


def rows(conn, conditions, class_ids=None):
    """One row per inventory of the providers matching ``conditions``.

    Columns: ``provider_id``, ``root_id``, ``class_name``, ``total``,
    ``reserved``, ``allocation_ratio``, ``min_unit``, ``max_unit``,
    ``step_size`` and ``used`` (the sum of its allocations). ``class_ids``
    narrows to those resource classes.
    """
    used = sa.select(_ALLOC.c.resource_provider_id,
                     _ALLOC.c.resource_class_id,
                     sa.func.sum(_ALLOC.c.used).label('used'))
    query = (
        sa.select(RP.c.id.label('provider_id'),
                  scope_mod.ROOT_ID.label('root_id'),
                  RC.c.name.label('class_name'),
                  INV.c.total, INV.c.reserved, INV.c.allocation_ratio,
                  INV.c.min_unit, INV.c.max_unit, INV.c.step_size)
        .select_from(INV)
        .join(RP, RP.c.id == INV.c.resource_provider_id)
        .join(RC, RC.c.id == INV.c.resource_class_id)
        .where(*conditions))
    if class_ids is not None:
        used = used.where(_ALLOC.c.resource_class_id.in_(class_ids))
        query = query.where(INV.c.resource_class_id.in_(class_ids))
    used = used.group_by(_ALLOC.c.resource_provider_id,
                         _ALLOC.c.resource_class_id).subquery()
    query = query.add_columns(
        sa.func.coalesce(used.c.used, 0).label('used')
    ).outerjoin(used, sa.and_(
        used.c.resource_provider_id == INV.c.resource_provider_id,
        used.c.resource_class_id == INV.c.resource_class_id))
    return conn.execute(query).all()


def capacity(row):
    """``(raw capacity, capacity)`` of an inventory row.

    Raw is total - reserved; capacity is that times the allocation
    ratio, rounded down (what can really be allocated).
    """
    raw = row.total - row.reserved
    return raw, int(raw * row.allocation_ratio)


def overcommitted(row):
    return row.allocation_ratio != 1
