"""The capacity report: Limes' ``GET /v1/clusters/current`` document.

Per resource (a class in an area, :func:`areas.area_of`): ``capacity``
= Σ ⌊(total − reserved) × allocation_ratio⌋, ``raw_capacity`` = Σ
(total − reserved) (only for a resource where some ratio ≠ 1),
``usage`` = Σ allocations; the same per availability zone and, with
``detail``, per provider tree (``subcapacities``). The sums are GROUP BY
queries over :func:`inventory.numbers`: per class and zone, or with
``detail`` per class and root, which the zones and totals are summed
from.
"""

import functools

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import candidate_folding
from placement.objects import resource_class
from placement.objects import resource_provider
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
    """``overcommitted, capacity, raw, used`` of a group, as integers."""
    return (sa.func.max(numbers.c.overcommitted),
            inventory.sum_of_capacities(numbers.c.capacity),
            *(sa.cast(sa.func.sum(column), sa.BigInteger)
              for column in (numbers.c.raw, numbers.c.used)))


def _one_of_each():
    """A function returning the first equal value it was given: the
    rows of a detailed report repeat few distinct sums, trait lists and
    zones (a cloud has few hardware models), and one object each keeps
    a report of 100,000 trees small."""
    seen = {}
    return lambda value: seen.setdefault(value, value)


def _total(groups):
    """The ``_sums`` of several groups."""
    over, capacity, raw, used = zip(*groups, strict=True)
    return max(over), sum(capacity), sum(raw), sum(used)


def _numbers(entry, sums, with_raw):
    """``entry`` with ``capacity``, ``raw_capacity`` (if ``with_raw``) and
    ``usage`` of the ``_sums`` ``sums`` added."""
    entry['capacity'] = sums[1]
    if with_raw:
        entry['raw_capacity'] = sums[2]
    entry['usage'] = sums[3]
    return entry


class _Sums:
    """The sums of each resource ``(area, class name)``: in total, per
    zone and (with ``detail``) per root provider id.

    A resource is one group of the statements' (class, shared) groups:
    ``shared`` is 0 for a class whose area is fixed by name.
    """

    def __init__(self, names, selection):
        self.names = names
        self.selection = selection
        self.totals = {}
        self.per_zone = {}
        self.per_root = {}

    def key(self, class_id, shared):
        """The resource of inventory of a class; None if not shown."""
        name = self.names[class_id]
        area = areas.area_of(name, shared)
        return (area, name) if self.selection.keeps(name, area) else None

    def by_zone(self, conn, zones, numbers, every_provider):
        """One GROUP BY per class and set of zones
        (:meth:`zones.Zones.sums`); ``every_provider``: see
        :func:`inventory.tuned`."""
        keys = (numbers.c.resource_class_id, numbers.c.shared)
        totals, per_zone = zones.sums(
            conn, numbers, keys, _sums(numbers), _total,
            functools.partial(inventory.tuned,
                              every_provider=every_provider))
        for group, total in totals.items():
            key = self.key(*group)
            if key is not None:
                self.totals[key] = total
                self.per_zone[key] = {
                    zone: by_group[group]
                    for zone, by_group in per_zone.items()
                    if group in by_group}

    def by_root(self, conn, root_zones, numbers, every_provider):
        """One GROUP BY per class and root; zones and totals summed here.

        ``root_zones`` as :meth:`zones.Zones.of_roots` gives it;
        ``every_provider``: see :func:`inventory.tuned`. The
        rows are kept as they come (no object per row: 30,000 of them
        for 10,000 compute nodes).
        """
        groups = {}
        for sums, key, root_id in _per_root(conn, numbers, every_provider):
            per_root = groups.get(key)
            if per_root is None:
                per_root = groups[key] = {}
            per_root[root_id] = sums
        for (class_id, shared), per_root in groups.items():
            key = self.key(class_id, shared)
            if key is not None:
                self.per_root[key] = per_root
        for key, per_root in self.per_root.items():
            self.totals[key] = _total(per_root.values())
            per_zone = {zones_mod.UNKNOWN: [
                row for root_id, row in per_root.items()
                if root_id not in root_zones]}
            for root_id, names in root_zones.items():
                if root_id in per_root:
                    for zone in names:
                        per_zone.setdefault(zone, []).append(
                            per_root[root_id])
            self.per_zone[key] = {zone: _total(rows)
                                  for zone, rows in per_zone.items() if rows}


def _per_root(conn, numbers, every_provider):
    """``(sums, (class id, shared), root id)`` of each class and root of
    ``numbers``, equal sums one tuple.

    On MariaDB the groups come folded, 64 roots to a string
    (:func:`candidate_folding.folded_rows`): PyMySQL decodes each field
    in Python, and at 100,000 nodes the 300,000 groups of seven fields
    took 3.3-3.6 s of the worker's CPU, their 1,600 strings 0.6 s
    (MariaDB's 0.3-0.6 s more: the two-level grouping).
    """
    keys = (numbers.c.resource_class_id, numbers.c.shared,
            numbers.c.root_id)
    statement = sa.select(*_sums(numbers), *keys).group_by(*keys)
    if not resource_provider.folds_listings(conn.dialect):
        one_of = _one_of_each()
        for row in db_api.streamed(conn, inventory.tuned(
                statement, every_provider, per_tree=True)):
            yield one_of(row[:4]), row[4:6], row[6]
        return
    folded = candidate_folding.folded_rows(
        inventory.in_order(statement, every_provider), 'root_id')
    # The few distinct texts of sums and keys, each made numbers once.
    strings = (text for text, in db_api.streamed(conn, db_api.on_mariadb(
        folded, inventory.MARIADB_SUMS_PER_TREE)))
    decoded = {}
    for over, capacity, raw, used, class_id, shared, root_id in (
            candidate_folding.unfolded_rows(strings)):
        sums = (over, capacity, raw, used)
        if sums not in decoded:
            # A sum of doubles, in the shortest text that is the same
            # double (as PyMySQL reads it unfolded).
            decoded[sums] = (int(over), int(float(capacity)), int(raw),
                             int(used))
        key = (class_id, shared)
        if key not in decoded:
            decoded[key] = (int(class_id), int(shared))
        yield decoded[sums], decoded[key], int(root_id) if root_id else None


def _roots(conn, root_zones):
    """``[(id, name, uuid, traits, aggregates, zone)]`` of every root,
    in the order of name and uuid.

    Three statements over all roots (cheaper than narrowing them to the
    scope's), their rows folded on MariaDB (as :func:`_per_root`'s: at
    100,000 nodes PyMySQL's decoding of the roots and their aggregates
    was most of the worker's CPU left). Equal trait lists, aggregate
    lists and zones are one object each (:func:`_one_of_each`).
    """
    is_root = scope_mod.ROOT_ID == RP.c.id
    folds = resource_provider.folds_listings(conn.dialect)
    one_of = _one_of_each()
    traits, aggregates = {}, {}
    for provider_id, name in _named(
            conn, folds,
            sa.select(_RP_TRAIT.c.resource_provider_id, trait.TRAIT.c.name)
            .join(RP, RP.c.id == _RP_TRAIT.c.resource_provider_id)
            .join(trait.TRAIT, trait.TRAIT.c.id == _RP_TRAIT.c.trait_id)
            .where(is_root)):
        traits.setdefault(provider_id, []).append(one_of(name))
    for provider_id, uuid in _named(
            conn, folds, sa.select(_RP_AGG.c.resource_provider_id, _AGG.c.uuid)
            .join(RP, RP.c.id == _RP_AGG.c.resource_provider_id)
            .join(_AGG, _AGG.c.id == _RP_AGG.c.aggregate_id)
            .where(is_root)):
        aggregates.setdefault(provider_id, []).append(one_of(uuid))
    zone = {root_id: one_of(','.join(names))
            for root_id, names in root_zones.items()}
    if folds:
        # The id, the key of the texts, then the columns they hold.
        rows = resource_provider.unfolded_listing(
            row[1:] for row in db_api.streamed(
                conn, resource_provider.folded_listing(
                    sa.select(RP.c.id, RP.c.name, RP.c.uuid, RP.c.id)
                    .where(is_root))))
    else:
        rows = db_api.streamed(
            conn, sa.select(RP.c.name, RP.c.uuid, RP.c.id).where(is_root))
    return [(root_id, name, uuid,
             one_of(tuple(sorted(traits.pop(root_id, ())))),
             one_of(tuple(sorted(aggregates.pop(root_id, ())))),
             zone.get(root_id, zones_mod.UNKNOWN))
            for name, uuid, root_id in sorted(tuple(row) for row in rows)]


def _named(conn, folds, query):
    """The ``(provider id, name)`` rows of ``query``, folded if ``folds``
    (:func:`candidate_folding.folded_rows`: a trait's name or an
    aggregate's uuid holds none of its separators)."""
    if not folds:
        return db_api.streamed(conn, query)
    strings = (text for text, in db_api.streamed(
        conn, candidate_folding.folded_rows(query, 'resource_provider_id')))
    return ((int(provider_id), name) for provider_id, name
            in candidate_folding.unfolded_rows(strings))


def _subcapacities(roots, per_root, with_raw):
    """The subcapacities of one resource, in the order of ``roots``,
    made as they are read: a detailed report of a large cloud holds one
    per tree and resource, several times its JSON as dicts (the API
    serialises them a chunk at a time)."""
    for root_id, name, uuid, traits, aggregates, zone in roots:
        sums = per_root.get(root_id)
        if sums is not None:
            entry = _numbers({'name': name, 'uuid': uuid}, sums, with_raw)
            entry.update(traits=traits, aggregates=aggregates, zone=zone)
            yield entry


def report(conn, zones, selection, scope, detail, now):
    """The Limes cluster document of the providers in ``scope``.

    ``selection`` (:class:`areas.ResourceSelection`) picks the resources;
    ``now`` is the UNIX time of the answer (placement data is live).
    """
    scope.check(conn)
    selection.check(conn)
    names = {class_id: name for class_id, name in conn.execute(
        sa.select(RC.c.id, RC.c.name)) if selection.may_keep(name)}
    selected = scope.conditions(conn)
    numbers = inventory.numbers(
        selected, sorted(names),
        sorted(class_id for class_id, name in names.items()
               if areas.fixed_area(name) is None))
    sums = _Sums(names, selection)
    if detail:
        root_zones = zones.of_roots(conn)
        sums.by_root(conn, root_zones, numbers, not selected)
        roots = _roots(conn, root_zones)
    else:
        sums.by_zone(conn, zones, numbers, not selected)
    resources = {}
    for key, total in sums.totals.items():
        with_raw = bool(total[0])
        per_zone = sums.per_zone[key]
        entry = _numbers(areas.resource(key[1]), total, with_raw)
        entry['per_availability_zone'] = [
            _numbers({'name': zone}, per_zone[zone], with_raw)
            for zone in zones.ordered(per_zone)]
        if detail:
            entry['subcapacities'] = _subcapacities(
                roots, sums.per_root[key], with_raw)
        resources[key] = entry
    return {'cluster': {
        'id': 'current',
        'services': areas.services(
            resources, min_scraped_at=now, max_scraped_at=now),
        'min_scraped_at': now,
        'max_scraped_at': now,
    }}
