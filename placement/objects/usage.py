"""Usages: sums of allocations, of a provider or of a project's consumers."""

import sqlalchemy as sa

from placement.db import models
from placement.objects import capacity
from placement.objects import consumer
from placement.objects import resource_provider

INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RC = models.ResourceClass.__table__
CONSUMER = consumer.CONSUMER
CONSUMER_TYPE = consumer.CONSUMER_TYPE
PROJECT = consumer.PROJECT
USER = consumer.USER

#: The consumer_type filter of GET /usages that groups everything.
ALL_TYPES = 'all'
UNKNOWN_TYPE = consumer.UNKNOWN_TYPE


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
        .outerjoin(ALLOC, capacity.of_inventory_sql(ALLOC.c, INV.c))
        .where(INV.c.resource_provider_id == provider_id)
        .group_by(RC.c.name))
    return {name: int(amount) for name, amount in rows}


def _consumer_allocations(project_id, user_id, consumer_type):
    """Rows ``(consumer, type_name, class_name, used)`` of the filter.

    ``type_name`` is NULL for a consumer without a type, and for every row
    when ``consumer_type`` is ``all``. The NULL is only turned into a key
    in Python: grouping by a ``coalesce(name, 'unknown')`` would merge a
    type named ``UNKNOWN`` with the untyped consumers under MySQL's
    case-insensitive collation.
    """
    if consumer_type == ALL_TYPES:
        type_name = sa.null()
    else:
        type_name = CONSUMER_TYPE.c.name
    query = (
        sa.select(ALLOC.c.consumer_id.label('consumer'),
                  type_name.label('type_name'),
                  RC.c.name.label('class_name'),
                  ALLOC.c.used)
        .select_from(ALLOC)
        .join(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id)
        .join(PROJECT, PROJECT.c.id == CONSUMER.c.project_id)
        .join(RC, RC.c.id == ALLOC.c.resource_class_id)
        .outerjoin(CONSUMER_TYPE,
                   CONSUMER_TYPE.c.id == CONSUMER.c.consumer_type_id)
        .where(PROJECT.c.external_id == project_id))
    if user_id is not None:
        query = query.join(USER, USER.c.id == CONSUMER.c.user_id).where(
            USER.c.external_id == user_id)
    if consumer_type == UNKNOWN_TYPE:
        query = query.where(CONSUMER.c.consumer_type_id.is_(None))
    elif consumer_type not in (None, ALL_TYPES):
        query = query.where(CONSUMER_TYPE.c.name == consumer_type)
    return query.subquery()


def of_project(conn, project_id, user_id=None, consumer_type=None):
    """Usage of a project (and user), by consumer type.

    ``{type: {'consumer_count': n, class name: amount, ...}}``: the type
    is the consumer type's name, ``unknown`` for consumers without one;
    ``consumer_type`` narrows the consumers to one type name, ``unknown``
    (no type) or ``all`` (everything under the one key ``all``).

    One statement: the sums per type and class, and, in the rows whose
    class is NULL, the number of distinct consumers per type (a consumer
    with several classes counts once).
    """
    rows = _consumer_allocations(project_id, user_id, consumer_type)
    sums = (
        sa.select(rows.c.type_name, rows.c.class_name,
                  sa.func.sum(rows.c.used))
        .group_by(rows.c.type_name, rows.c.class_name))
    counts = (
        sa.select(rows.c.type_name, sa.null(),
                  sa.func.count(sa.distinct(rows.c.consumer)))
        .group_by(rows.c.type_name))
    untyped = ALL_TYPES if consumer_type == ALL_TYPES else UNKNOWN_TYPE
    usages = {}
    for type_name, class_name, amount in conn.execute(
            sa.union_all(sums, counts)):
        usages.setdefault(type_name or untyped, {})[
            class_name or 'consumer_count'] = int(amount)
    return usages


def of_provider_uuid(conn, uuid):
    """``(provider row, usages)`` of the provider ``uuid``; else NotFound."""
    provider = resource_provider.get_by_uuid(conn, uuid)
    return provider, of_provider(conn, provider.id)
