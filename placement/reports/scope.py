"""The part of the cloud a report looks at: ``member_of`` and ``in_tree``.

Aggregates are looked up on each provider and on its root, as nova puts
the roots of its trees (the compute nodes) into host aggregates: a
provider is in scope when it or its root is in one aggregate of each
``member_of`` group and neither is in a forbidden aggregate.
"""

import dataclasses

from placement import exception
from placement.objects import aggregate
from placement.objects import conditions
from placement.objects import resource_provider

RP = conditions.RP
ROOT_ID = conditions.ROOT_ID


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
        unknown = sorted(self._wanted() - self._known(conn).keys())
        if unknown:
            raise exception.BadRequest(
                f'No such aggregate(s): {", ".join(unknown)}')
        if self.in_tree is not None:
            try:
                resource_provider.get_by_uuid(conn, self.in_tree)
            except exception.NotFound as exc:
                raise exception.BadRequest(f'in_tree: {exc}') from exc

    def conditions(self, conn):
        """WHERE conditions on :data:`RP` selecting the providers in scope
        (:meth:`check` first)."""
        known = self._known(conn)
        selected = conditions.aggregate_conditions(
            conditions.known_groups(self.member_of, known),
            conditions.known_ids(self.forbidden_aggregates, known),
            with_root=True)
        if self.in_tree is not None:
            selected.append(conditions.in_tree(self.in_tree))
        return selected

    def _wanted(self):
        return self.forbidden_aggregates.union(*self.member_of)

    def _known(self, conn):
        """``{uuid: id}`` of the aggregates named that exist."""
        return aggregate.existing_ids(conn, self._wanted())
