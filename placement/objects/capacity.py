"""The capacity and fit rule of an inventory, written once, in Python and
in SQL.

An inventory's capacity is ``floor((total - reserved) *
allocation_ratio)``; an allocation of ``amount`` fits when ``min_unit <=
amount <= max_unit``, ``amount`` is a multiple of ``step_size`` and
``used + amount <= capacity`` (for whole amounts the same test as
upstream's ``used + amount <= (total - reserved) * allocation_ratio``).

The Python functions take any object with the inventory's fields as
attributes; the SQL builders take the columns (``table.c`` of the
inventory table, or of a subquery with the same column names). Both
read the ratio as the service shows it: MySQL stores it as a
single-precision ``FLOAT`` and computes with the binary value (0.9999 is
0.99989998...), but sends it to clients as its shortest decimal, which
is what the Python side (and the API) reads; the SQL form uses that
decimal too, so that both give the same answer on every backend
(``tests/functional/db/test_capacity.py`` proves it on each).
"""

import math

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import functions


def capacity(total, reserved, allocation_ratio):
    """What allocations of the inventory may consume in total."""
    return math.floor((total - reserved) * allocation_ratio)


def allows(inventory, amount):
    """Whether one allocation of ``amount`` keeps the inventory's unit
    rules (min_unit, max_unit, step_size)."""
    return (inventory.min_unit <= amount <= inventory.max_unit
            and amount % inventory.step_size == 0)


def has_room(inventory, used, amount):
    """Whether ``amount`` more fits the capacity, ``used`` being
    allocated already."""
    return used + amount <= capacity(
        inventory.total, inventory.reserved, inventory.allocation_ratio)


def fits(inventory, used, amount):
    """Whether one more allocation of ``amount`` fits the inventory."""
    return allows(inventory, amount) and has_room(inventory, used, amount)


def room(inventory, used, amount):
    """How many more allocations of ``amount`` fit (0 if one breaks the
    unit rules)."""
    if not fits(inventory, used, amount):
        return 0
    return (capacity(inventory.total, inventory.reserved,
                     inventory.allocation_ratio) - used) // amount


class floor(functions.GenericFunction):  # noqa: N801 (an SQL function)
    """FLOOR of a non-negative number, as an integer, on every backend."""

    type = sa.BigInteger()
    inherit_cache = True


@compiler.compiles(floor, 'sqlite')
def _floor_sqlite(element, compiler_, **kwargs):
    # SQLite may lack FLOOR; its CAST truncates, which is the floor of a
    # non-negative number (MySQL's and PostgreSQL's CASTs round).
    return f'CAST({compiler_.process(element.clauses, **kwargs)} AS INTEGER)'


class ratio_as_read(functions.GenericFunction):  # noqa: N801
    """An allocation ratio column as clients read it (see the module's
    docstring): the column itself, but on MySQL its decimal text."""

    type = sa.Float()
    inherit_cache = True


@compiler.compiles(ratio_as_read)
def _ratio_as_stored(element, compiler_, **kwargs):
    return compiler_.process(element.clauses, **kwargs)


@compiler.compiles(ratio_as_read, 'mysql')
@compiler.compiles(ratio_as_read, 'mariadb')
def _ratio_as_sent(element, compiler_, **kwargs):
    column = compiler_.process(element.clauses, **kwargs)
    return f'CAST(CAST({column} AS CHAR) AS DOUBLE)'


def of_inventory_sql(rows, inventory):
    """The condition that ``rows`` (allocations, or their sums per
    provider and class) are of the inventory ``inventory``: the same
    provider and class, what its ``used`` counts. Both are column
    collections (``table.c``)."""
    return sa.and_(
        rows.resource_provider_id == inventory.resource_provider_id,
        rows.resource_class_id == inventory.resource_class_id)


def capacity_sql(columns):
    """SQL of :func:`capacity` of the inventory row of ``columns``."""
    return floor((columns.total - columns.reserved)
                 * ratio_as_read(columns.allocation_ratio))


def allows_sql(columns, amount):
    """SQL conditions of :func:`allows` (``amount`` an SQL expression)."""
    return [columns.min_unit <= amount,
            columns.max_unit >= amount,
            # The first test is implied by the second; PostgreSQL
            # estimates it from its statistics (most steps are 1), where
            # it guesses that 1 row in 200 passes the second alone and
            # then plans a window's probes as a scan of every inventory
            # of the class (17 ms against 6 at 10,000 providers).
            (columns.step_size == 1) | (amount % columns.step_size == 0)]


def has_room_sql(columns, used, amount):
    """SQL condition of :func:`has_room`."""
    return used + amount <= capacity_sql(columns)


def fits_sql(columns, used, amount):
    """SQL conditions of :func:`fits`."""
    return [has_room_sql(columns, used, amount),
            *allows_sql(columns, amount)]


def room_sql(columns, used, amount):
    """SQL of :func:`room`."""
    return sa.case(
        (sa.and_(*fits_sql(columns, used, amount)),
         floor((capacity_sql(columns) - used) / amount)),
        else_=0)
