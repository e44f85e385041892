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

    def sums(self, conn, source, keys, sums):
        """``[(zone name, *sums, *keys)]``: ``source`` summed per zone.

        ``source`` is a subquery with a ``root_id`` column; ``keys`` and
        ``sums`` are its columns and aggregates. One GROUP BY over
        ``source`` outer-joined to the zone aggregates of its roots: a
        tree in two zones is in both groups, one in none in the NULL
        group (``unknown``).
        """
        members = self._memberships()
        rows = []
        for uuid, *values in conn.execute(
                sa.select(members.c.uuid, *sums, *keys)
                .select_from(source.outerjoin(
                    members,
                    members.c.resource_provider_id == source.c.root_id))
                .group_by(members.c.uuid, *keys)):
            for name in self.by_aggregate[uuid] if uuid else [UNKNOWN]:
                rows.append((name, *values))
        return rows

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
