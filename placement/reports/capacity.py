"""The capacity report: Limes' ``GET /v1/clusters/current`` document.

Per resource class: ``capacity`` = Σ ⌊(total − reserved) × allocation_ratio⌋,
``raw_capacity`` = Σ (total − reserved) (only for a class where some
ratio ≠ 1), ``usage`` = Σ allocations; the same per availability zone and,
with ``detail``, per provider tree (``subcapacities``). The sums are
GROUP BY queries over :func:`inventory.numbers`.
"""

import sqlalchemy as sa

from placement.db import models
from placement.objects import resource_class
from placement.objects import trait
from placement.reports import areas
from placement.reports import inventory
from placement.reports import scope as scope_mod
from placement.reports import zones as zones_mod

RP = scope_mod.RP
RC = resource_class.RC
_AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__


def _sums(numbers):
    return (sa.func.sum(numbers.c.capacity), sa.func.sum(numbers.c.raw),
            sa.func.sum(numbers.c.used))


def _fields(values, with_raw):
    """``capacity``, ``raw_capacity`` (if ``with_raw``), ``usage``."""
    capacity, raw, used = (inventory.integer(value) for value in values)
    fields = {'capacity': capacity}
    if with_raw:
        fields['raw_capacity'] = raw
    fields['usage'] = used
    return fields


def _root_details(conn):
    """``{root id: {name, uuid, traits, aggregates}}`` of every root.

    Three joins (cheaper than narrowing them to the scope's roots).
    """
    is_root = scope_mod.ROOT_ID == RP.c.id
    details = {
        row.id: {'name': row.name, 'uuid': row.uuid,
                 'traits': [], 'aggregates': []}
        for row in conn.execute(
            sa.select(RP.c.id, RP.c.name, RP.c.uuid).where(is_root))}
    for provider_id, name in conn.execute(
            sa.select(RP.c.id, trait.TRAIT.c.name)
            .join(_RP_TRAIT, _RP_TRAIT.c.resource_provider_id == RP.c.id)
            .join(trait.TRAIT, trait.TRAIT.c.id == _RP_TRAIT.c.trait_id)
            .where(is_root).order_by(trait.TRAIT.c.name)):
        details[provider_id]['traits'].append(name)
    for provider_id, uuid in conn.execute(
            sa.select(RP.c.id, _AGG.c.uuid)
            .join(_RP_AGG, _RP_AGG.c.resource_provider_id == RP.c.id)
            .join(_AGG, _AGG.c.id == _RP_AGG.c.aggregate_id)
            .where(is_root).order_by(_AGG.c.uuid)):
        details[provider_id]['aggregates'].append(uuid)
    return details


def _subcapacities(conn, zones, numbers, overcommitted):
    """``{class id: [subcapacity]}``: the sums of each tree, by name."""
    details = _root_details(conn)
    root_zones = zones.of_roots(conn)
    found = {}
    for class_id, root_id, *values in conn.execute(
            sa.select(numbers.c.resource_class_id, numbers.c.root_id,
                      *_sums(numbers))
            .group_by(numbers.c.resource_class_id, numbers.c.root_id)):
        root = details[root_id]
        found.setdefault(class_id, []).append(dict(
            name=root['name'], uuid=root['uuid'],
            **_fields(values, class_id in overcommitted),
            traits=root['traits'], aggregates=root['aggregates'],
            zone=','.join(zones_mod.of_tree(root_zones, root_id))))
    for entries in found.values():
        entries.sort(key=lambda entry: (entry['name'], entry['uuid']))
    return found


def report(conn, zones, selection, scope, detail, now):
    """The Limes cluster document of the providers in ``scope``.

    ``selection`` (:class:`areas.ResourceSelection`) picks the classes;
    ``now`` is the UNIX time of the answer (placement data is live).
    """
    scope.check(conn)
    selection.check(conn)
    names = {class_id: name for class_id, name in conn.execute(
        sa.select(RC.c.id, RC.c.name)) if selection.keeps(name)}
    numbers = inventory.numbers(scope.conditions(), sorted(names))
    totals = conn.execute(
        sa.select(numbers.c.resource_class_id,
                  sa.func.max(numbers.c.overcommitted), *_sums(numbers))
        .group_by(numbers.c.resource_class_id)).all()
    overcommitted = {class_id for class_id, over, *_values in totals
                     if over}
    per_zone = {}
    for zone, class_id, *values in zones.sums(
            conn, numbers, [numbers.c.resource_class_id], _sums(numbers)):
        per_zone.setdefault(class_id, {})[zone] = dict(
            name=zone, **_fields(values, class_id in overcommitted))
    subcapacities = (_subcapacities(conn, zones, numbers, overcommitted)
                     if detail else {})
    resources = {}
    for class_id, _over, *values in totals:
        entry = areas.resource(
            names[class_id], **_fields(values, class_id in overcommitted),
            per_availability_zone=[
                per_zone[class_id][zone]
                for zone in zones.ordered(per_zone[class_id])])
        if detail:
            entry['subcapacities'] = subcapacities[class_id]
        resources[names[class_id]] = entry
    return {'cluster': {
        'id': 'current',
        'services': areas.services(
            resources, min_scraped_at=now, max_scraped_at=now),
        'min_scraped_at': now,
        'max_scraped_at': now,
    }}
