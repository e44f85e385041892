"""Availability zones: names for the aggregates nova mirrors them into.

A zone is a property of a provider tree: the tree is in the zones whose
aggregates hold its root provider (nova puts compute node roots, and
sharing providers, into aggregates; their children are in none). A tree
in no zone is in ``unknown``, as in Limes.
"""

import dataclasses
import functools

import sqlalchemy as sa

from placement import fatal
from placement import uuid_form
from placement.db import models

UNKNOWN = 'unknown'
#: Zone aggregates a column of :meth:`Zones._sets` holds, a bit each.
_SET_BITS = 62
OPTION = '[reports] availability_zones'

_AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__


class ZoneMapError(fatal.ConfigurationError, ValueError):
    """The configured zone map is malformed (a configuration error)."""


@dataclasses.dataclass(frozen=True)
class Zones:
    #: ``{aggregate uuid: [zone names]}``.
    by_aggregate: dict
    #: Zone names in the order of the option, then ``unknown``.
    order: tuple

    @classmethod
    def from_conf(cls, conf):
        """The zones of ``[reports] availability_zones``; else ZoneMapError.

        Also checked when the service starts, so that a typo stops it
        instead of putting every provider into the zone ``unknown``.
        Parsed once for each value of the option: reports ask for the
        zones on every request.
        """
        try:
            configured = conf.reports.availability_zones
        except ValueError as exc:
            raise ZoneMapError(f'{OPTION}: {exc}') from exc
        return _parsed(tuple(configured.items()))

    def _memberships(self):
        """Subquery ``(resource_provider_id, uuid)`` of zone aggregates."""
        return (sa.select(_RP_AGG.c.resource_provider_id, _AGG.c.uuid)
                .join(_AGG, _AGG.c.id == _RP_AGG.c.aggregate_id)
                .where(_AGG.c.uuid.in_(sorted(self.by_aggregate)))
                .subquery('zone_members'))

    def sums(self, conn, source, keys, sums, combined, tuned):
        """``(totals, per_zone)`` of ``source`` summed: ``{keys: sums}``
        and ``{zone name: {keys: sums}}``.

        ``source`` is a subquery with a ``root_id`` column; ``keys`` and
        ``sums`` are its columns and aggregates; ``combined(rows)`` sums
        several rows of ``sums`` as ``sums`` sums rows of ``source``;
        ``tuned(statement)``: the statement as it is run
        (:func:`inventory.tuned`).
        One GROUP BY over ``source`` per keys and set of zone aggregates
        of its roots (:meth:`_sets`), rather than one for the totals and
        one per zone aggregate, which read every row twice: the totals
        count each set once, a zone every set holding one of its
        aggregates (a tree in two zones is in both, one in none in
        ``unknown``).
        """
        sets = self._sets()
        columns = [column for name, column in sets.c.items()
                   if name != 'resource_provider_id']
        statement = sa.select(*columns, *sums, *keys).select_from(
            source.outerjoin(
                sets, sets.c.resource_provider_id == source.c.root_id)
        ).group_by(*columns, *keys).having(
            # No group of no rows where nothing is grouped by.
            sa.func.count() > 0)
        width = len(columns)
        groups, zones_of = {}, {}
        for row in conn.execute(tuned(statement)):
            masks, values, key = (tuple(row[:width]),
                                  tuple(row[width:width + len(sums)]),
                                  tuple(row[width + len(sums):]))
            if masks not in zones_of:
                zones_of[masks] = self._names(masks)
            groups.setdefault(key, []).append((zones_of[masks], values))
        totals, per_zone = {}, {}
        for key, rows in groups.items():
            totals[key] = combined([values for _names, values in rows])
            in_zone = {}
            for names, values in rows:
                for name in names:
                    in_zone.setdefault(name, []).append(values)
            for name, zone_rows in in_zone.items():
                per_zone.setdefault(name, {})[key] = combined(zone_rows)
        return totals, per_zone

    def _aggregates(self):
        """The zone aggregates' uuids in the order of the bits of
        :meth:`_sets`."""
        return sorted(self.by_aggregate)

    def _sets(self):
        """Subquery ``(resource_provider_id, set0, ...)``: per provider in
        some zone aggregate, which ones, as bits of BIGINTs
        (:data:`_SET_BITS` aggregates a column)."""
        members = self._memberships()
        aggregates = self._aggregates()
        return sa.select(members.c.resource_provider_id, *(
            sa.func.sum(sa.case(
                {uuid: sa.literal(1 << bit, sa.BigInteger)
                 for bit, uuid in enumerate(
                     aggregates[start:start + _SET_BITS])},
                value=members.c.uuid, else_=0)).label(f'set{number}')
            for number, start in enumerate(
                range(0, len(aggregates), _SET_BITS)))
        ).group_by(members.c.resource_provider_id).subquery('zone_sets')

    def _names(self, masks):
        """The zone names of a row of :meth:`_sets`' bits, a name once
        per aggregate of it; ``unknown`` for a root in none."""
        aggregates = self._aggregates()
        names = [name
                 for number, mask in enumerate(masks) if mask is not None
                 for bit, uuid in enumerate(
                     aggregates[number * _SET_BITS:][:_SET_BITS])
                 if int(mask) >> bit & 1
                 for name in self.by_aggregate[uuid]]
        return names or [UNKNOWN]

    def of_roots(self, conn):
        """``{root provider id: zone names}`` of the roots in some zone.

        One query over the memberships of the zones' aggregates.
        """
        found = {}
        for provider_id, uuid in conn.execute(sa.select(self._memberships())):
            found.setdefault(provider_id, set()).update(
                self.by_aggregate[uuid])
        return {provider_id: sorted(names, key=self.order.index)
                for provider_id, names in found.items()}

    def ordered(self, names):
        """``names`` in the order of :attr:`order`."""
        return sorted(names, key=self.order.index)


@functools.lru_cache(maxsize=8)
def _parsed(pairs):
    """The :class:`Zones` of ``(name, aggregate uuid)`` pairs."""
    by_aggregate = {}
    for name, uuid in pairs:
        canonical = uuid_form.canonical(uuid or '')
        if not name or name == UNKNOWN or canonical is None:
            raise ZoneMapError(
                f'{OPTION}: expected name:aggregate_uuid pairs with a '
                f'name other than {UNKNOWN!r}, got {name}:{uuid}')
        by_aggregate.setdefault(canonical, []).append(name)
    return Zones(by_aggregate, (*(name for name, _ in pairs), UNKNOWN))
