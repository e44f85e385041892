"""The part of the cloud a report looks at: ``member_of`` and ``in_tree``.

Aggregates are looked up on each provider and on its root, as nova puts
the roots of its trees (the compute nodes) into host aggregates: a
provider is in scope when it or its root is in one aggregate of each
``member_of`` group and neither is in a forbidden aggregate.
"""

import dataclasses

import sqlalchemy as sa

from placement import exception
from placement.db import models
from placement.objects import provider_filter
from placement.objects import resource_provider

RP = resource_provider.RP
#: The root provider id of the provider row of :data:`RP`: always set
#: (the migrations refuse to run while a provider has none), and indexed.
ROOT_ID = RP.c.root_provider_id

_AGG = models.PlacementAggregate.__table__


@dataclasses.dataclass(frozen=True)
class Scope:
    """None/empty: the whole cloud."""

    #: Sets of aggregate uuids: a provider (or its root) is in one of each.
    member_of: tuple = ()
    #: Aggregate uuids neither a provider nor its root may be in.
    forbidden_aggregates: frozenset = frozenset()
    #: The uuid of a provider whose tree is looked at.
    in_tree: str | None = None

    def check(self, conn):
        """BadRequest if an aggregate or the ``in_tree`` provider is unknown.

        A report about an aggregate that does not exist is a typo, not an
        empty cloud.
        """
        wanted = self.forbidden_aggregates.union(*self.member_of)
        if wanted:
            known = set(conn.scalars(
                sa.select(_AGG.c.uuid).where(_AGG.c.uuid.in_(wanted))))
            unknown = sorted(wanted - known)
            if unknown:
                raise exception.BadRequest(
                    f'No such aggregate(s): {", ".join(unknown)}')
        if self.in_tree is not None:
            try:
                resource_provider.get_by_uuid(conn, self.in_tree)
            except exception.NotFound as exc:
                raise exception.BadRequest(f'in_tree: {exc}') from exc

    def conditions(self):
        """WHERE conditions on :data:`RP` selecting the providers in scope."""
        conditions = [_self_or_root_in(group) for group in self.member_of]
        if self.forbidden_aggregates:
            conditions.append(~_self_or_root_in(self.forbidden_aggregates))
        if self.in_tree is not None:
            tree_root = (sa.select(ROOT_ID).where(RP.c.uuid == self.in_tree)
                         .scalar_subquery())
            conditions.append(ROOT_ID == tree_root)
        return conditions


def _self_or_root_in(aggregate_uuids):
    uuids = sorted(aggregate_uuids)
    return sa.or_(provider_filter.in_any_aggregate(RP.c.id, uuids),
                  provider_filter.in_any_aggregate(ROOT_ID, uuids))
