"""Usages: sums of allocations."""

import sqlalchemy as sa

from placement.db import models

INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RC = models.ResourceClass.__table__


def of_provider(conn, provider_id):
    """``{resource class name: amount used}`` for each class of inventory.

    A class with inventory and no allocations shows 0; allocations of a
    class the provider has no inventory of are not shown.
    """
    used = sa.func.coalesce(sa.func.sum(ALLOC.c.used), 0)
    rows = conn.execute(
        sa.select(RC.c.name, used)
        .select_from(INV)
        .join(RC, RC.c.id == INV.c.resource_class_id)
        .outerjoin(ALLOC, sa.and_(
            ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
            ALLOC.c.resource_class_id == INV.c.resource_class_id))
        .where(INV.c.resource_provider_id == provider_id)
        .group_by(RC.c.name))
    return {name: int(amount) for name, amount in rows}
