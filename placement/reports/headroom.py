"""The headroom report: how many more workloads of one shape fit.

What is counted and what is not is said once, in :data:`COUNTED` and
:data:`NOT_COUNTED`, which every answer carries.
"""

import dataclasses

import sqlalchemy as sa

from placement.objects import capacity
from placement.objects import provider_filter
from placement.objects import resource_class
from placement.reports import inventory

COUNTED = (
    'Each provider that alone can serve the whole request: it has '
    'inventory of every requested class, every required trait itself, no '
    'forbidden trait, and it or its root is in the aggregates asked for. '
    'Per class it fits floor(((total - reserved) * allocation_ratio - '
    'used) / amount) workloads, or none if the amount breaks min_unit, '
    'max_unit or step_size; the provider fits the minimum over the '
    'classes. Counts are summed per availability zone and in total.')
NOT_COUNTED = (
    'Requests split over several providers (sharing providers serving '
    'part of a request, several providers of one tree), granular '
    '(suffixed) request groups, and what is decided outside placement '
    '(nova filters and weighers, quotas).')


@dataclasses.dataclass(frozen=True)
class Shape:
    """One workload: ``{class name: amount}`` and its trait conditions."""

    resources: dict
    #: Sets of trait names: the provider has one of each.
    required_traits: tuple = ()
    forbidden_traits: frozenset = frozenset()


def _fits(numbers, amounts):
    """Per inventory row: how many of its class's amount it has room for
    (:func:`capacity.room_sql`)."""
    amount = sa.case(amounts, value=numbers.c.resource_class_id)
    return capacity.room_sql(numbers.c, numbers.c.used, amount)


def _summed(rows):
    """The ``sums`` of several groups, as integers."""
    return tuple(sum(map(inventory.integer, column))
                 for column in zip(*rows, strict=True))


def report(conn, zones, shape, scope):
    """``{"headroom": {...}}``: the counts per zone and in total.

    One statement (:meth:`zones.Zones.sums`) over a subquery with one
    row per provider that has inventory of every requested class.
    """
    scope.check(conn)
    class_ids = resource_class.ids_by_name(conn, shape.resources)
    conditions = scope.conditions(conn) + provider_filter.trait_conditions(
        conn, provider_filter.ProviderFilter(
            required_traits=shape.required_traits,
            forbidden_traits=shape.forbidden_traits))
    numbers = inventory.numbers(conditions, sorted(class_ids.values()))
    amounts = {class_ids[name]: amount
               for name, amount in shape.resources.items()}
    providers = (
        sa.select(numbers.c.root_id,
                  sa.func.min(_fits(numbers, amounts)).label('count'))
        .group_by(numbers.c.provider_id, numbers.c.root_id)
        .having(sa.func.count() == len(amounts))
        .subquery('providers'))
    sums = (inventory.sum_of_capacities(providers.c.count),
            sa.func.sum(sa.case((providers.c.count > 0, 1), else_=0)))
    totals, per_zone = zones.sums(conn, providers, [], sums, _summed,
                                  inventory.tuned)
    count, with_room = totals.get((), (0, 0))
    return {'headroom': {
        'resources': dict(shape.resources),
        'count': count,
        'providers': with_room,
        'per_availability_zone': [
            {'name': zone, 'count': per_zone[zone][()][0],
             'providers': per_zone[zone][()][1]}
            for zone in zones.ordered(per_zone)],
        'counted': COUNTED,
        'not_counted': NOT_COUNTED,
    }}
