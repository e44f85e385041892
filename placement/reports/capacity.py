"""The capacity report: Limes' ``GET /v1/clusters/current`` document.

Per resource class: ``capacity`` = Σ ⌊(total − reserved) × allocation_ratio⌋,
``raw_capacity`` = Σ (total − reserved) (only for a class where some
ratio ≠ 1), ``usage`` = Σ allocations; the same per availability zone and,
with ``detail``, per provider tree (``subcapacities``).
"""

import dataclasses

import sqlalchemy as sa

from placement.db import models
from placement.objects import trait
from placement.reports import areas
from placement.reports import inventory
from placement.reports import scope as scope_mod
from placement.reports import zones as zones_mod

RP = scope_mod.RP
_AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__


@dataclasses.dataclass
class _Numbers:
    capacity: int = 0
    raw_capacity: int = 0
    usage: int = 0

    def add(self, row):
        raw, capacity = inventory.capacity(row)
        self.raw_capacity += raw
        self.capacity += capacity
        self.usage += int(row.used)

    def fields(self, with_raw):
        fields = {'capacity': self.capacity}
        if with_raw:
            fields['raw_capacity'] = self.raw_capacity
        fields['usage'] = self.usage
        return fields


@dataclasses.dataclass
class _Resource:
    total: _Numbers = dataclasses.field(default_factory=_Numbers)
    zones: dict = dataclasses.field(default_factory=dict)
    roots: dict = dataclasses.field(default_factory=dict)
    overcommitted: bool = False


def _roots_in_scope(conditions):
    """The ids of the roots of providers in scope with inventory."""
    return (sa.select(scope_mod.ROOT_ID)
            .where(RP.c.id.in_(sa.select(inventory.INV.c.resource_provider_id)),
                   *conditions))


def _root_details(conn, conditions):
    """``{root id: {name, uuid, traits, aggregates}}``: three queries."""
    roots = _roots_in_scope(conditions)
    details = {
        row.id: {'name': row.name, 'uuid': row.uuid,
                 'traits': [], 'aggregates': []}
        for row in conn.execute(
            sa.select(RP.c.id, RP.c.name, RP.c.uuid)
            .where(RP.c.id.in_(roots)))}
    for provider_id, name in conn.execute(
            sa.select(_RP_TRAIT.c.resource_provider_id, trait.TRAIT.c.name)
            .join(trait.TRAIT, trait.TRAIT.c.id == _RP_TRAIT.c.trait_id)
            .where(_RP_TRAIT.c.resource_provider_id.in_(roots))
            .order_by(trait.TRAIT.c.name)):
        details[provider_id]['traits'].append(name)
    for provider_id, uuid in conn.execute(
            sa.select(_RP_AGG.c.resource_provider_id, _AGG.c.uuid)
            .join(_AGG, _AGG.c.id == _RP_AGG.c.aggregate_id)
            .where(_RP_AGG.c.resource_provider_id.in_(roots))
            .order_by(_AGG.c.uuid)):
        details[provider_id]['aggregates'].append(uuid)
    return details


def _collect(rows, root_zones, detail):
    """``{class name: _Resource}`` summed from inventory rows."""
    resources = {}
    for row in rows:
        resource = resources.setdefault(row.class_name, _Resource())
        resource.total.add(row)
        resource.overcommitted |= inventory.overcommitted(row)
        for zone in zones_mod.of_tree(root_zones, row.root_id):
            resource.zones.setdefault(zone, _Numbers()).add(row)
        if detail:
            resource.roots.setdefault(row.root_id, _Numbers()).add(row)
    return resources


def _subcapacities(resource, details, root_zones):
    entries = []
    for root_id, numbers in resource.roots.items():
        root = details[root_id]
        entries.append(dict(
            name=root['name'], uuid=root['uuid'],
            **numbers.fields(resource.overcommitted),
            traits=root['traits'], aggregates=root['aggregates'],
            zone=','.join(zones_mod.of_tree(root_zones, root_id))))
    return sorted(entries, key=lambda entry: (entry['name'], entry['uuid']))


def report(conn, zones, selection, scope, detail, now):
    """The Limes cluster document of the providers in ``scope``.

    ``selection`` (:class:`areas.ResourceSelection`) picks the classes;
    ``now`` is the UNIX time of the answer (placement data is live).
    """
    scope.check(conn)
    selection.check(conn)
    conditions = scope.conditions()
    rows = [row for row in inventory.rows(conn, conditions)
            if selection.keeps(row.class_name)]
    root_zones = zones.of_roots(conn)
    collected = _collect(rows, root_zones, detail)
    details = _root_details(conn, conditions) if detail else {}
    resources = {}
    for class_name, resource in collected.items():
        with_raw = resource.overcommitted
        entry = areas.resource(
            class_name, **resource.total.fields(with_raw),
            per_availability_zone=[
                dict(name=zone, **resource.zones[zone].fields(with_raw))
                for zone in zones.ordered(resource.zones)])
        if detail:
            entry['subcapacities'] = _subcapacities(
                resource, details, root_zones)
        resources[class_name] = entry
    return {'cluster': {
        'id': 'current',
        'services': areas.services(
            resources, min_scraped_at=now, max_scraped_at=now),
        'min_scraped_at': now,
        'max_scraped_at': now,
    }}
