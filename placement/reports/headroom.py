"""The headroom report: how many more workloads of one shape fit.

What is counted and what is not is said once, in :data:`COUNTED` and
:data:`NOT_COUNTED`, which every answer carries.
"""

import dataclasses

from placement.objects import provider_filter
from placement.objects import resource_class
from placement.reports import inventory
from placement.reports import zones as zones_mod

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


def fits(row, amount):
    """How many ``amount``s the inventory row still has room for.

    The same test as a claim: used + n × amount ≤ (total − reserved) ×
    allocation_ratio, with min_unit ≤ amount ≤ max_unit and amount a
    multiple of step_size.
    """
    if not (row.min_unit <= amount <= row.max_unit
            and amount % row.step_size == 0):
        return 0
    capacity = (row.total - row.reserved) * row.allocation_ratio
    used = int(row.used)  # MySQL sums are decimals
    return max(int((capacity - used) // amount), 0)


def _per_provider(rows, resources):
    """``{(provider id, root id): count}`` of providers of every class."""
    by_provider = {}
    for row in rows:
        by_provider.setdefault((row.provider_id, row.root_id), []).append(
            fits(row, resources[row.class_name]))
    return {key: min(counts) for key, counts in by_provider.items()
            if len(counts) == len(resources)}


def report(conn, zones, shape, scope):
    """``{"headroom": {...}}``: the counts per zone and in total."""
    scope.check(conn)
    class_ids = resource_class.ids_by_name(conn, shape.resources)
    conditions = scope.conditions() + provider_filter.trait_conditions(
        conn, provider_filter.ProviderFilter(
            required_traits=shape.required_traits,
            forbidden_traits=shape.forbidden_traits))
    rows = inventory.rows(conn, conditions, sorted(class_ids.values()))
    counts = _per_provider(rows, shape.resources)
    root_zones = zones.of_roots(conn)
    per_zone = {}
    for (_provider, root_id), count in counts.items():
        for zone in zones_mod.of_tree(root_zones, root_id):
            totals = per_zone.setdefault(zone, [0, 0])
            totals[0] += count
            totals[1] += bool(count)
    return {'headroom': {
        'resources': dict(shape.resources),
        'count': sum(counts.values()),
        'providers': sum(1 for count in counts.values() if count),
        'per_availability_zone': [
            {'name': zone, 'count': per_zone[zone][0],
             'providers': per_zone[zone][1]}
            for zone in zones.ordered(per_zone)],
        'counted': COUNTED,
        'not_counted': NOT_COUNTED,
    }}
