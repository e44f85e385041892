"""The Python and SQL forms of the capacity rule (placement.objects.capacity)
give the same answers on the backend the tests run on, for inventories
as stored and read back by the driver: ratios that a single-precision
FLOAT (MySQL) does not hold exactly, reserved amounts, usage at and
around the capacity, unit rules at their edges and the largest totals;
so do the providers the provider list selects with it
(placement.objects.conditions.with_capacity).
"""

import itertools

import pytest
import sqlalchemy as sa

from placement import limits
from placement.db import models
from placement.objects import capacity
from placement.objects import conditions

pytestmark = pytest.mark.db

INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__

TOTALS = (1, 3, 7, 10, 10000, 99999, limits.MAX_INT)
RATIOS = (1.0, 1.5, 0.9999, 0.5, 0.1, 1.1, 3.0, 16.0)
#: ``(min_unit, max_unit, step_size)``
UNITS = ((1, limits.MAX_INT, 1), (2, 8, 2), (3, 9, 3))
AMOUNTS = (1, 2, 3, 4, 8, 9, 10, 9999, limits.MAX_INT)
#: Usage: this much below the capacity (clamped to what a row holds).
BELOW_CAPACITY = (0, 1, 2, 3)


def _inventories():
    """``(inventory row values, used)`` of every point of the grid."""
    for total, ratio, units in itertools.product(TOTALS, RATIOS, UNITS):
        for reserved in sorted({0, 1, total // 2, total}):
            limit = capacity.capacity(total, reserved, ratio)
            for below in BELOW_CAPACITY:
                used = min(max(limit - below, 0), limits.MAX_INT)
                min_unit, max_unit, step_size = units
                yield ({'total': total, 'reserved': reserved,
                        'allocation_ratio': ratio, 'min_unit': min_unit,
                        'max_unit': max_unit, 'step_size': step_size},
                       used)


@pytest.fixture
def grid(db):
    """The inventory rows of the grid (with their ``used``), as the
    database driver reads them; one provider id each."""
    inventories, allocations = [], []
    for provider_id, (values, used) in enumerate(_inventories(), 1):
        inventories.append({**values, 'resource_provider_id': provider_id,
                            'resource_class_id': 0})
        if used:
            allocations.append({
                'resource_provider_id': provider_id, 'resource_class_id': 0,
                'consumer_id': f'consumer-{provider_id}', 'used': used})
    with db.writer() as conn:
        conn.execute(sa.insert(INV), inventories)
        conn.execute(sa.insert(ALLOC), allocations)
    with db.reader() as conn:
        return conn.execute(
            sa.select(INV, _used().label('used'))
            .order_by(INV.c.resource_provider_id)).all()


def _used():
    """The correlated usage sum, as the object layer reads it."""
    return (sa.select(sa.func.coalesce(sa.func.sum(ALLOC.c.used), 0))
            .where(ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
                   ALLOC.c.resource_class_id == INV.c.resource_class_id)
            .scalar_subquery())


def _flag(conditions):
    return sa.case((sa.and_(*conditions), 1), else_=0)


def test_python_and_sql_agree(db, grid):
    with db.reader() as conn:
        capacities = dict(conn.execute(sa.select(
            INV.c.resource_provider_id, capacity.capacity_sql(INV.c))).all())
        by_amount = {}
        for amount in AMOUNTS:
            literal = sa.literal(amount, sa.Integer)
            rows = conn.execute(sa.select(
                INV.c.resource_provider_id,
                _flag(capacity.allows_sql(INV.c, literal)),
                _flag([capacity.has_room_sql(INV.c, _used(), literal)]),
                _flag(capacity.fits_sql(INV.c, _used(), literal)),
                capacity.room_sql(INV.c, _used(), literal)))
            by_amount[amount] = {row[0]: tuple(row[1:]) for row in rows}
    differences = []
    for row in grid:
        python = capacity.capacity(row.total, row.reserved,
                                   row.allocation_ratio)
        if int(capacities[row.resource_provider_id]) != python:
            differences.append((row, 'capacity', python))
        for amount in AMOUNTS:
            expected = (capacity.allows(row, amount),
                        capacity.has_room(row, row.used, amount),
                        capacity.fits(row, row.used, amount),
                        capacity.room(row, row.used, amount))
            found = by_amount[amount][row.resource_provider_id]
            if tuple(map(int, found)) != tuple(map(int, expected)):
                differences.append((row, amount, expected, found))
    assert len(grid) == len(list(_inventories()))
    assert not differences, differences[:10]


def test_the_grid_reaches_the_edges(grid):
    """The grid holds both answers of each test near the capacity: the
    agreement above is not that of a constant."""
    answers = {(capacity.has_room(row, row.used, 1),
                capacity.allows(row, 2), row.allocation_ratio == 0.9999)
               for row in grid}
    assert answers == set(itertools.product((True, False), repeat=3))


def test_a_ratio_a_float_column_rounds(db):
    """0.9999 of 10000 is 9999 on every backend, also where the column
    holds 0.99989998 (MySQL's single-precision FLOAT)."""
    with db.writer() as conn:
        conn.execute(sa.insert(INV), [{
            'resource_provider_id': 1, 'resource_class_id': 0,
            'total': 10000, 'reserved': 0, 'allocation_ratio': 0.9999,
            'min_unit': 1, 'max_unit': 10000, 'step_size': 1}])
    with db.reader() as conn:
        row = conn.execute(sa.select(
            INV, capacity.capacity_sql(INV.c).label('sql'))).one()
    assert row.allocation_ratio == 0.9999
    assert int(row.sql) == capacity.capacity(
        row.total, row.reserved, row.allocation_ratio) == 9999


def test_the_providers_that_can_serve_every_amount(db, grid):
    """with_capacity selects the providers where each amount fits its
    class: of one class, and of two where every other provider has the
    second class, used in part on every fourth."""
    second, used = {}, {}
    for row in grid[::2]:
        second[row.resource_provider_id] = {
            'resource_provider_id': row.resource_provider_id,
            'resource_class_id': 1, 'total': 4, 'reserved': 0,
            'allocation_ratio': 1.0, 'min_unit': 1, 'max_unit': 4,
            'step_size': 1}
    for provider_id in list(second)[::2]:
        used[provider_id] = 3
    with db.writer() as conn:
        conn.execute(sa.insert(INV), list(second.values()))
        conn.execute(sa.insert(ALLOC), [
            {'resource_provider_id': provider_id, 'resource_class_id': 1,
             'consumer_id': f'second-{provider_id}', 'used': amount}
            for provider_id, amount in used.items()])
    with db.reader() as conn:
        for amount in AMOUNTS:
            fitting = {row.resource_provider_id for row in grid
                       if capacity.fits(row, row.used, amount)}
            assert set(conn.scalars(conditions.with_capacity(
                ((0, amount),)))) == fitting, amount
            both = {provider_id for provider_id in fitting
                    if provider_id in second
                    and used.get(provider_id, 0) + 2 <= 4}
            assert set(conn.scalars(conditions.with_capacity(
                ((0, amount), (1, 2))))) == both, amount
            if amount == 1:
                # Not a constant: some pass on both classes, not all.
                assert 0 < len(both) < len(second)
