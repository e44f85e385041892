"""What GET /allocation_candidates asks for, and what it finds.

The handler (:mod:`placement.handlers.allocation_candidate`) parses and
validates the query string into a :class:`CandidateRequest`; the object
layer (:mod:`placement.objects.allocation_candidate`) answers it with
:class:`Candidates`, independent of the microversion except for the
:attr:`CandidateRequest.nested` switch; the handler renders that for
the request's microversion.
"""

import dataclasses
import typing


@dataclasses.dataclass(frozen=True)
class RequestGroup:
    """One request group: the unsuffixed one or a granular ``resourcesN``.

    The resources of the unsuffixed group (``suffix == ''``) may come
    from several providers of one tree plus sharing providers; those of
    a suffixed group all come from one single provider. A suffixed group
    may have no resources (1.36): then it names a provider by its traits,
    aggregates and tree, for ``same_subtree``.
    """

    suffix: str = ''
    #: ``{resource class name: amount}``.
    resources: dict = dataclasses.field(default_factory=dict)
    #: Sets of trait names: a provider of the group has one of each.
    required_traits: tuple = ()
    #: Trait names no provider of the group may have.
    forbidden_traits: frozenset = frozenset()
    #: Sets of aggregate uuids: a provider of the group is in one of each.
    member_of: tuple = ()
    #: Aggregate uuids no provider of the group may be in.
    forbidden_aggregates: frozenset = frozenset()
    #: A provider uuid: the group's providers are in that provider's tree.
    in_tree: str | None = None


@dataclasses.dataclass(frozen=True)
class CandidateRequest:
    """The whole request: its groups and the request-wide parameters."""

    #: The unsuffixed group (if given) first, then suffixed ones by suffix.
    groups: tuple = ()
    #: ``'none'`` or ``'isolate'``; None when not given.
    group_policy: str | None = None
    #: The most candidates to return; None for no limit.
    limit: int | None = None
    #: Sets of trait names the root of the (non-sharing) tree has one of.
    root_required: tuple = ()
    #: Trait names the root of the (non-sharing) tree must not have.
    root_forbidden: frozenset = frozenset()
    #: Sets of group suffixes whose providers must all be in the subtree
    #: of one of them (1.36).
    same_subtree: tuple = ()
    #: False before 1.29: a candidate may take resources from at most one
    #: provider of each tree.
    nested: bool = True


class Candidate(typing.NamedTuple):
    """One allocation request, kept small: a large answer holds 100,000
    until it is sent, and as dicts they were most of a worker's memory
    (and of the arenas the allocator then keeps). Its dicts are made
    each time they are read, a chunk of the answer at a time."""

    #: The uuid of the provider each slot of the search chose.
    uuids: tuple
    #: ``(allocating, mapped)``, shared by the candidates whose slots
    #: chose alike: ``(slot, {class: amount})`` of each provider
    #: allocated from, ``(suffix, (slot, ...))`` of each group, a slot
    #: indexing :attr:`uuids`.
    layout: tuple

    @property
    def allocations(self):
        """``{provider uuid: {resource class name: amount}}``."""
        uuids = self.uuids
        return {uuids[slot]: amounts for slot, amounts in self.layout[0]}

    @property
    def mappings(self):
        """``{group suffix: [provider uuid, ...]}``; ``''`` is the
        unsuffixed group. The providers that satisfy each group (1.34
        ``mappings``)."""
        uuids = self.uuids
        return {suffix: sorted(uuids[slot] for slot in slots)
                for suffix, slots in self.layout[1]}


@dataclasses.dataclass(frozen=True)
class Candidates:
    """The answer: candidates, and summaries of the providers involved.

    ``summaries`` holds every provider of every tree (and every sharing
    provider) that appears in ``candidates``, keyed by uuid: the
    :class:`placement.objects.candidate_tree.Provider` the search loaded
    (not a copy: the summaries of a large answer are most of its data);
    the handler narrows it for microversions before 1.29. ``limited``:
    the answer holds as many candidates as the limit allowed;
    ``seconds_to_first``: how long the search took to find the first
    (None: none found), for the metrics.
    """

    candidates: list
    summaries: dict
    limited: bool = False
    seconds_to_first: float | None = None
