"""Inventories in a scope, each with its capacities and what it has used.

:func:`numbers` is a subquery of one row per inventory; the reports sum
it with GROUP BY in the database, so that no report reads one row per
provider into Python (except ``detail``, whose answer has one entry per
provider tree anyway).
"""

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import functions

from placement.db import api as db_api
from placement.db import models
from placement.objects import capacity
from placement.objects import conditions
from placement.reports import scope as scope_mod

INV = models.Inventory.__table__
_CLASS = models.ResourceClass.__table__
_ALLOC = models.Allocation.__table__
RP = scope_mod.RP
#: The settings MariaDB reads a statement over :func:`numbers` with
#: (:func:`db_api.on_mariadb`): the allocations' sums per provider and
#: class made once and joined, rather than made per inventory as a
#: ``LATERAL DERIVED`` table (its ``split_materialized``): at 100,000
#: nodes 760,000 index reads instead of 1,080,000, a fifth less of its
#: CPU.
MARIADB_SUMS = {'optimizer_switch': "'split_materialized=off'"}
#: Those of a statement grouping :func:`numbers` per provider tree
#: (``capacity?detail``): room in memory for its temporary table, which
#: outgrew the default 16 MB at 100,000 nodes (299,703 groups; 32 MB held
#: them) and went to disk, doubling its CPU. A cap: the table takes what
#: its groups need.
MARIADB_SUMS_PER_TREE = {**MARIADB_SUMS,
                         'tmp_table_size': 256 * 2 ** 20,
                         'max_heap_table_size': 256 * 2 ** 20}


def tuned(statement, every_provider=False, per_tree=False):
    """``statement`` summing :func:`numbers`, as MySQL and MariaDB run
    it best: :func:`in_order`, with :data:`MARIADB_SUMS` (grouped
    ``per_tree``, :data:`MARIADB_SUMS_PER_TREE`)."""
    return db_api.on_mariadb(
        in_order(statement, every_provider),
        MARIADB_SUMS_PER_TREE if per_tree else MARIADB_SUMS)


def in_order(statement, every_provider):
    """``statement`` summing :func:`numbers`, over ``every_provider``
    (no condition) with the inventories read first, each one's provider
    looked up (:func:`db_api.in_written_order`): MariaDB would read
    every provider and then its inventories, at 100,000 nodes a third
    more of its CPU for the same rows. A scope keeps the database's
    order: its conditions narrow the providers first."""
    return db_api.in_written_order(statement) if every_provider else statement


def integer(value):
    """A sum from the database as an int (MySQL sums are decimals)."""
    return int(value or 0)


class _Integer(sa.types.TypeDecorator):
    """A number the database computes as a double, read as an int."""

    impl = sa.Float
    cache_ok = True

    def process_result_value(self, value, dialect):
        return None if value is None else int(value)


class _double(functions.GenericFunction):  # noqa: N801 (an SQL function)
    """Its argument as a double-precision number, on every backend
    (``CAST(... AS FLOAT)`` is single precision on MySQL: 20000001 is
    20000000 there)."""

    type = sa.Float()
    inherit_cache = True


@compiler.compiles(_double)
def _double_precision(element, compiler_, **kwargs):
    return (f'CAST({compiler_.process(element.clauses, **kwargs)} '
            f'AS DOUBLE PRECISION)')


@compiler.compiles(_double, 'mysql')
@compiler.compiles(_double, 'mariadb')
def _double_mysql(element, compiler_, **kwargs):
    return f'CAST({compiler_.process(element.clauses, **kwargs)} AS DOUBLE)'


@compiler.compiles(_double, 'sqlite')
def _double_sqlite(element, compiler_, **kwargs):
    return f'CAST({compiler_.process(element.clauses, **kwargs)} AS REAL)'


def sum_of_capacities(column):
    """SUM of a column of capacities (or of counts derived from them),
    as an int: summed as doubles. An inventory's capacity may exceed
    BIGINT (an ``allocation_ratio`` up to 3.4e38), where an integer SUM
    failed (SQLite: integer overflow; PostgreSQL: bigint out of range as
    it was cast back), a 500; the sums of smaller ones, below 2**53, are
    exact."""
    return sa.type_coerce(sa.func.sum(_double(column)), _Integer())


def shared(provider_id, *tested):
    """1 where provider ``provider_id`` shares its inventory through its
    aggregates (trait MISC_SHARES_VIA_AGGREGATE), else 0; only tested
    where the conditions ``tested`` hold."""
    return sa.case(
        (sa.and_(*tested, provider_id.in_(conditions.sharing())), 1),
        else_=0)


def numbers(selected, class_ids=None, sharing_class_ids=()):
    """Subquery: one row per inventory of the providers ``selected``
    (conditions on them).

    Columns: ``provider_id``, ``root_id``, ``resource_class_id``,
    ``total``, ``reserved``, ``raw`` (total - reserved), ``capacity``
    (:func:`capacity.capacity_sql`), ``overcommitted`` (1 where the ratio is
    not 1), ``used`` (the sum of its allocations), ``shared``
    (:func:`shared` for the classes of ``sharing_class_ids``, whose area
    depends on it; 0 for the others, so that most rows need no test),
    and the inventory's
    ``allocation_ratio``, ``min_unit``, ``max_unit`` and ``step_size``.
    ``class_ids`` narrows to those resource classes (ids read from the
    classes' table: without them, a join to it). An inventory of a
    class that no longer exists (the audit's
    ``inventories_without_provider_or_class``) counts nowhere.
    """
    used = sa.select(_ALLOC.c.resource_provider_id,
                     _ALLOC.c.resource_class_id,
                     sa.func.sum(_ALLOC.c.used).label('used'))
    raw = INV.c.total - INV.c.reserved
    query = (
        sa.select(RP.c.id.label('provider_id'),
                  scope_mod.ROOT_ID.label('root_id'),
                  INV.c.resource_class_id,
                  INV.c.total, INV.c.reserved,
                  raw.label('raw'),
                  capacity.capacity_sql(INV.c).label('capacity'),
                  sa.case((INV.c.allocation_ratio != 1, 1), else_=0)
                  .label('overcommitted'),
                  (shared(RP.c.id, INV.c.resource_class_id.in_(
                      sharing_class_ids)) if sharing_class_ids
                   else sa.literal(0)).label('shared'),
                  INV.c.allocation_ratio, INV.c.min_unit, INV.c.max_unit,
                  INV.c.step_size)
        .select_from(INV)
        .join(RP, RP.c.id == INV.c.resource_provider_id)
        .where(*selected))
    if class_ids is None:
        query = query.join(_CLASS, _CLASS.c.id == INV.c.resource_class_id)
    else:
        used = used.where(_ALLOC.c.resource_class_id.in_(class_ids))
        query = query.where(INV.c.resource_class_id.in_(class_ids))
    used = used.group_by(_ALLOC.c.resource_provider_id,
                         _ALLOC.c.resource_class_id).subquery()
    return query.add_columns(
        sa.func.coalesce(used.c.used, 0).label('used')
    ).outerjoin(used, capacity.of_inventory_sql(used.c, INV.c)
    ).subquery('inventory_numbers')
