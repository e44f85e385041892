"""GET /allocation_candidates: the search behind the answer.

The cost must follow the number of candidates asked for, not the number
of providers or of combinations (see ARCHITECTURE.md, "Known traps"):

A request that cannot match anything, as one naming an amount no
inventory holds or a trait no provider has, is answered at once
(:meth:`_Narrowing.may_match`). Otherwise:

0. *Windows* (:func:`_windows`): with a limit, the roots are searched a
   window of ids at a time (the first as large as the limit, or as
   many more as the aggregates the request names are rare, each next
   as large as the rates seen so far say the rest of the limit needs;
   from a random root with
   ``randomize_allocation_candidates``), and the steps below run per
   window until the limit is met, so that the rows read follow the limit
   rather than the cloud. Without a limit one window holds every root.
1. *Narrowing* (:class:`_Narrowing`): one query per request group
   finds the providers of the window (and the sharing providers
   anywhere) that pass the group's traits, aggregates and in_tree, with
   their roots and, per resource class of the unsuffixed group, whether
   they can serve it alone (capacity, min/max/step); its conditions are
   probes of each provider's own rows, so a window costs what its
   providers cost, not what the cloud holds. The sharing providers
   (MISC_SHARES_VIA_AGGREGATE) and their aggregates take two queries a
   request, the roots they are shared with (those of the window's
   providers in an aggregate with them) one a window, the ids of the
   aggregates named one a request. The roots that can serve
   every slot are intersected in Python; the same queries tell which of
   the unsuffixed group's required traits each provider has, so that
   roots whose providers cannot meet them together are dropped before
   their trees are loaded; and ``root_required`` is one query on roots.
2. *Assembly*, lazily: the roots of a window are walked in order
   (shuffled when randomised), their trees loaded a batch at a
   time (:func:`_load_providers`, one query per batch, a row per
   provider, parents and roots found among the rows of the tree), and
   each tree yields its candidates through the window's
   :class:`candidate_tree.Search` (slots that cannot interact, as those
   of the unsuffixed group alone, are combined directly, without the
   walk).
   ``depth-first`` exhausts a tree before the next; ``breadth-first``
   takes one candidate from each tree in turn. Everything stops at the
   limit.
3. *Summaries* of the trees of the candidates returned and of the
   trees of their sharing providers, from the data already loaded.
"""

import collections
import itertools
import random
import time
import typing

import os_traits
import sqlalchemy as sa

from placement.db import models
from placement.objects import aggregate
from placement.objects import candidate_request
from placement.objects import candidate_tree
from placement.objects import capacity
from placement.objects import conditions
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import trait

RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RC = models.ResourceClass.__table__
_TRAIT = models.Trait.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_SHARES = os_traits.MISC_SHARES_VIA_AGGREGATE
_RP_TRAIT = models.ResourceProviderTrait.__table__
# Every provider row has its root id (the online data migration
# set_root_provider_ids fills it for rows older than nesting), so trees
# are found through the indexed column alone.
_ROOT_ID = RP.c.root_provider_id

#: Trees loaded by the first batch of queries without a limit (with one:
#: as many as the limit); each next batch is twice as big, up to the most.
FIRST_BATCH = 16
MOST_BATCH = 1024
#: Roots in the first window searched for a request with a limit.
FIRST_WINDOW = 64
#: Provider ids whose aggregates estimate the share of the providers in
#: those a request names: this many per candidate asked for, at least
#: SAMPLE.
SAMPLE_PER_LIMIT = 16
SAMPLE = 4096
#: The most tests of :meth:`_Narrowing.may_match` (columns of one row).
MOST_TESTS = 32
#: More ids than a provider id (a 32-bit integer) can span: the most
#: roots a window or a sample is sized to, whatever the limit.
MOST_IDS = 2 ** 31


def get_candidates(conn, request, conf):
    """The :class:`candidate_request.Candidates` answering ``request``.

    Unknown resource classes or traits are BadRequest; an in_tree
    provider that does not exist matches nothing.
    """
    limit = _limit(request, conf)
    randomize = conf.placement.randomize_allocation_candidates
    names = _Names(conn)
    narrowing = _Narrowing(conn, request, names)
    if not narrowing.may_match():
        return candidate_request.Candidates(candidates=[], summaries={})
    trees = _Trees(conn, narrowing, names)
    progress = _Progress()
    windows = (progress.narrowed(narrowing.narrow(window), randomize)
               for window in _windows(conn, limit, randomize, progress,
                                      narrowing.members_share))
    found = _strategy(conf)(trees.candidates_by_root(windows, limit))
    chosen = list(itertools.islice(progress.counted(found), limit))
    return candidate_request.Candidates(
        candidates=[candidate for _, candidate in chosen],
        summaries=trees.summaries(chosen),
        limited=limit is not None and len(chosen) == limit,
        seconds_to_first=progress.seconds_to_first)


class _Progress:
    """How far the search went: what sizes the next window of roots."""

    def __init__(self):
        self.started = time.perf_counter()
        #: Seconds from the start to the first candidate taken.
        self.seconds_to_first = None
        #: Roots in the windows searched so far.
        self.searched = 0
        #: Of those, the roots that can serve every slot.
        self.qualified = 0
        #: Candidates taken so far.
        self.taken = 0

    def narrowed(self, roots, randomize):
        """``roots`` in id order, or shuffled; counted as qualified."""
        roots = sorted(roots)
        if randomize:
            random.shuffle(roots)
        self.qualified += len(roots)
        return roots

    def counted(self, found):
        for pair in found:
            if not self.taken:
                self.seconds_to_first = time.perf_counter() - self.started
            self.taken += 1
            yield pair

    def next_size(self, size, limit):
        """Roots in the next window: as many as should hold the
        candidates still needed for ``limit``, at the rates of roots
        qualifying and of candidates per qualifying root seen so far,
        plus a quarter; twice the last while nothing was taken."""
        if not self.taken:
            return size * 2
        roots = (limit - self.taken) * self.qualified // self.taken + 1
        expected = roots * self.searched // self.qualified
        return max(expected + expected // 4, FIRST_WINDOW)


def _windows(conn, limit, randomize, progress, members_share):
    """The windows of root ids to search, in order, lazily.

    A window ``(after, last)`` holds the roots with ``after < id <=
    last`` (None: no bound). Without a limit one window holds every
    root. With one the first holds ``max(limit / share, FIRST_WINDOW)``
    roots, ``share`` being ``members_share(after, limit)``
    (:meth:`_Narrowing.members_share`: a request naming aggregates that
    a quarter of the providers are in needs four times the roots), and
    each next as many as :meth:`_Progress.next_size` expects to hold
    the candidates still needed: a limit met early reads few rows
    whatever the size of the cloud, a window does not load many more
    trees than the limit needs, and a rare match takes few windows.
    Randomised, the windows start at a random root and wrap around.
    """
    if limit is None:
        yield None, None
        return
    passes = [(0, None)]    # ids start at 1
    if randomize:
        lowest, highest = conn.execute(
            sa.select(sa.func.min(RP.c.id), sa.func.max(RP.c.id))
            .where(RP.c.parent_provider_id.is_(None))).one()
        if lowest is None:
            return
        start = random.randint(lowest, highest)
        passes = [(start - 1, None), (lowest - 1, start - 1)]
    size = max(int(min(limit / members_share(passes[0][0], limit),
                       MOST_IDS)), FIRST_WINDOW)
    for after, until in passes:
        while until is None or after < until:
            last = conn.scalar(
                sa.select(RP.c.id)
                .where(RP.c.parent_provider_id.is_(None), RP.c.id > after,
                       *([] if until is None else [RP.c.id <= until]))
                .order_by(RP.c.id).offset(size - 1).limit(1))
            last = until if last is None else last
            progress.searched += size
            yield after, last
            if last == until:
                break
            size = progress.next_size(size, limit)
            after = last


def _within(window, column):
    """Conditions: ``column`` (a root id) is in ``window``."""
    after, last = window
    conditions = []
    if after is not None:
        conditions.append(column > after)
    if last is not None:
        conditions.append(column <= last)
    return conditions


def _limit(request, conf):
    """The smaller of the request's limit and max_allocation_candidates."""
    limits = [request.limit, conf.placement.max_allocation_candidates]
    limits = [limit for limit in limits if limit is not None and limit >= 0]
    return min(limits, default=None)


def _strategy(conf):
    if (conf.placement.allocation_candidates_generation_strategy
            == 'breadth-first'):
        return breadth_first
    return depth_first


def depth_first(per_root):
    """``(root, candidate)`` pairs: every candidate of a root, then the
    next root's."""
    for root, generator in per_root:
        for candidate in generator:
            yield root, candidate


def breadth_first(per_root):
    """``(root, candidate)`` pairs: one candidate of each root in turn.

    The first round walks the roots lazily, so a limit reached within it
    loads no more trees than depth-first would.
    """
    active = collections.deque()
    for root, generator in per_root:
        candidate = next(generator, None)
        if candidate is not None:
            yield root, candidate
            active.append((root, generator))
    while active:
        root, generator = active.popleft()
        candidate = next(generator, None)
        if candidate is not None:
            yield root, candidate
            active.append((root, generator))


class _Narrowing:
    """The providers each slot of the request may use, found by SQL, one
    window of roots at a time.

    A *slot* is one choice the assembly makes: the provider of one class
    of the unsuffixed group (its classes may come from different
    providers), or the single provider of a suffixed group.
    """

    def __init__(self, conn, request, names):
        self.conn = conn
        self.request = request
        asked = {name for group in request.groups
                 for name in group.resources}
        # Every class, read once for the ids asked and for the names of
        # the inventories loaded (a small table).
        self.class_ids = {name: class_id
                          for class_id, name in names.classes.items()
                          if name in asked}
        resource_class.require_known(asked, self.class_ids)
        # The sharing trait's id too, in the same query: a literal id
        # lets PostgreSQL see how few providers have it.
        found, unknown = name_table.ids_by_name(
            conn, trait.TRAIT, _trait_names(request) | {_SHARES})
        self.trait_ids = trait.known(
            found, [name for name in unknown if name != _SHARES])
        #: ``{uuid: id}`` of the aggregates named (unknown ones left out).
        self.aggregate_ids = _aggregate_ids(conn, request)
        #: ``{sharing provider id: its root id}``.
        self.sharing = _sharing_providers(conn, found.get(_SHARES))
        #: ``{aggregate id: [sharing provider id]}``.
        self.shared_by = _aggregates_of(conn, self.sharing)
        #: The unsuffixed group's required traits, met by its providers
        #: together.
        self.collective = _collective_traits(request)
        #: ``[_SlotProviders]`` of the current window, unsuffixed first.
        self.slots = []
        #: ``{sharing provider id: {root id}}`` of the current window.
        self.anchors = {}
        #: Whether the current window bounds the providers: its
        #: conditions are then looked up per provider
        #: (:func:`conditions.exists`).
        self.per_provider = False

    def narrow(self, window):
        """Ids of the roots in ``window`` whose tree can fill every slot,
        and whose providers for the unsuffixed group can meet its
        traits; the slots and anchors are then those of the window."""
        tree_within = _within(window, _ROOT_ID)
        self.per_provider = bool(tree_within)
        found = {}
        self.slots = []
        for group in self.request.groups:
            key = _query_of(group)
            if key not in found:
                found[key] = self._group_slots(group, tree_within)
            self.slots += [slot._replace(group=group) for slot in found[key]]
        self.anchors = _anchors(self.conn, {
            provider_id: root for provider_id, root in self.sharing.items()
            if any(provider_id in slot.roots for slot in self.slots)},
            self.shared_by, tree_within)
        roots = None
        for slot in self.slots:
            reachable = self._reachable_roots(slot)
            roots = reachable if roots is None else roots & reachable
        roots = roots or set()
        if self.collective:
            roots &= self._meeting_collective_traits()
        if self.request.root_required or self.request.root_forbidden:
            roots &= self._roots_with_root_traits(window)
        after, last = window
        return {root for root in roots
                if (after is None or root > after)
                and (last is None or root <= last)}

    def may_match(self):
        """False when the request can match nothing: a group asks for an
        amount that no inventory could hold even unallocated, or names
        only aggregates or traits that no provider is in or has.

        Otherwise a request with a limit that matches nothing searches
        every window of roots before it answers (200 ms at 10,000
        providers): here one statement of uncorrelated EXISTS, each an
        index range that stops at its first row, of at most
        :data:`MOST_TESTS` (the first ones, which is enough to be right:
        each test is only a necessary condition).
        """
        groups = self.request.groups
        tests = {}
        for group in groups:
            member_of = conditions.known_groups(group.member_of,
                                                self.aggregate_ids)
            if member_of is None:
                return False
            for ids in map(sorted, member_of):
                tests['aggregates', *ids] = sa.exists().where(
                    _RP_AGG.c.aggregate_id.in_(ids))
        for names in (*self.request.root_required,
                      *(names for group in groups
                        for names in group.required_traits)):
            ids = sorted(self._ids(names))
            tests['traits', *ids] = sa.exists().where(
                _RP_TRAIT.c.trait_id.in_(ids))
        for group in groups:
            for name, amount in group.resources.items():
                tests[name, amount] = conditions.could_ever_fit(
                    self.class_ids[name], amount)
        tests = list(tests.values())[:MOST_TESTS]
        return not tests or all(self.conn.execute(sa.select(*tests)).one())

    def members_share(self, after, limit):
        """The share of the providers after id ``after`` that are in an
        aggregate named by a ``member_of`` of the request (1 without
        any): an estimate of the share of roots that may qualify, from
        the memberships of the ``max(SAMPLE_PER_LIMIT * limit, SAMPLE)``
        ids from the first after ``after`` (an index range whatever the
        size of the cloud; ids rather than providers: gaps left by
        deleted ones make the share smaller, the first window larger)."""
        named = conditions.known_ids(
            (uuid for group in self.request.groups
             for uuids in group.member_of for uuid in uuids),
            self.aggregate_ids)
        if not named:
            return 1.0
        span = max(min(SAMPLE_PER_LIMIT * limit, MOST_IDS), SAMPLE)
        first = (sa.select(sa.func.min(RP.c.id)).where(RP.c.id > after)
                 .scalar_subquery())
        members, lowest, highest = self.conn.execute(sa.select(
            sa.select(sa.func.count()).select_from(_RP_AGG).where(
                _RP_AGG.c.aggregate_id.in_(named),
                _RP_AGG.c.resource_provider_id >= first,
                _RP_AGG.c.resource_provider_id < first + span)
            .scalar_subquery(),
            first, sa.select(sa.func.max(RP.c.id)).scalar_subquery())
        ).one()
        if lowest is None:
            return 1.0
        return min(max(members, 1) / min(span, highest - lowest + 1), 1.0)

    def _reachable_roots(self, slot):
        """The roots the providers of ``slot`` serve (:meth:`_reached`),
        as sets rather than pairs."""
        roots = set(slot.roots.values())
        if slot.group.resources:
            for provider_id in self.sharing.keys() & slot.roots.keys():
                roots |= self.anchors[provider_id]
        return roots

    def _reached(self, slot, provider_ids):
        """``(provider id, root id)`` for the roots each provider serves:
        its own, and those of the trees a sharing one is shared with."""
        for provider_id in provider_ids:
            if slot.group.resources and provider_id in self.sharing:
                for root in self.anchors[provider_id]:
                    yield provider_id, root
            else:
                yield provider_id, slot.roots[provider_id]

    def _meeting_collective_traits(self):
        """The roots that reach, for each required trait set of the
        unsuffixed group, a provider of that group with one of them."""
        met = collections.defaultdict(set)
        for slot in self.slots:
            for provider_id, root in self._reached(slot, slot.traits_met):
                met[root].update(slot.traits_met[provider_id])
        return {root for root, indexes in met.items()
                if len(indexes) == len(self.collective)}

    def _group_slots(self, group, tree_within):
        """The :class:`_SlotProviders` of each slot of ``group``, from one
        query: the providers of the window (``tree_within``), and the
        sharing ones, that pass the group's conditions, each with a flag
        per slot (can it serve that slot's resources on its own?) and,
        in the unsuffixed group, the traits of its required sets that
        the provider has.

        Every condition is a probe of the provider's own rows: a window
        costs what its providers cost, whatever the size of the cloud.
        """
        slots = _slot_resources(group)
        collective = self.collective if not group.suffix else ()
        serving = [self._serving(resources) for resources in slots]
        # One slot: its resources are conditions; several (one class
        # each): flags.
        flags = ([sa.and_(*conditions) for conditions in serving]
                 if len(slots) > 1 else [])
        # The ids of each trait set, and the traits of them the provider
        # has, in one column however many the sets are.
        collective_ids = [frozenset(self._ids(names)) for names in collective]
        held = ([_folded_traits(sorted(frozenset().union(*collective_ids)))]
                if collective else [])
        query = sa.select(RP.c.id, _ROOT_ID, *flags, *held).where(
            *self._group_conditions(group, bool(group.resources)))
        if not flags:
            query = query.where(*serving[0])
        if tree_within:
            in_window = sa.and_(*tree_within)
            if self.sharing and group.resources:
                in_window |= RP.c.id.in_(sorted(self.sharing))
            query = query.where(in_window)
        found = [({}, {}) for _ in slots]
        # One frozenset for each combination of trait sets met (keyed by
        # the traits held): a set per provider was most of the memory of
        # a large narrowing.
        combinations = {}
        traits_at = 2 + len(flags)
        for row in self.conn.execute(query):
            provider_id, root = row[0], row[1]
            serves = row[2:traits_at] if flags else (True,)
            met = None
            if collective:
                folded = row[traits_at]
                met = combinations.get(folded)
                if met is None:
                    ids = set(map(int, folded.split(','))) if folded else ()
                    met = combinations[folded] = frozenset(
                        index for index, trait_ids in enumerate(collective_ids)
                        if not trait_ids.isdisjoint(ids))
            for (roots, traits_met), serving in zip(found, serves,
                                                    strict=True):
                if serving:
                    roots[provider_id] = root
                    if collective:
                        traits_met[provider_id] = met
        return [_SlotProviders(group, resources, roots, traits_met)
                for resources, (roots, traits_met)
                in zip(slots, found, strict=True)]

    def _serving(self, resources):
        """Conditions: the provider can serve ``resources`` on its own."""
        return [conditions.has_capacity(
            RP.c.id, self.class_ids[name], amount, self.per_provider)
            for name, amount in resources.items()]

    def _group_conditions(self, group, allocating):
        """Conditions on ``RP`` for a provider serving ``group``.

        A provider of the unsuffixed group counts as a member of an
        aggregate of its root; the required traits of an unsuffixed group
        with resources are checked on its providers together, later.
        """
        member_of = conditions.known_groups(group.member_of,
                                            self.aggregate_ids)
        if member_of is None:
            return [sa.false()]
        required = (group.required_traits
                    if group.suffix or not allocating else ())
        found = conditions.aggregate_conditions(
            member_of, conditions.known_ids(group.forbidden_aggregates,
                                            self.aggregate_ids),
            with_root=not group.suffix)
        found += self._trait_conditions(required, group.forbidden_traits)
        if group.in_tree is not None:
            found.append(conditions.in_tree(group.in_tree))
        return found

    def _ids(self, names):
        return {self.trait_ids[name] for name in names}

    def _trait_conditions(self, required, forbidden):
        """:func:`conditions.trait_conditions` of trait names; looked up
        per provider within a window."""
        return conditions.trait_conditions(
            [self._ids(names) for names in required], self._ids(forbidden),
            self.per_provider)

    def _roots_with_root_traits(self, window):
        query = sa.select(RP.c.id).where(
            RP.c.parent_provider_id.is_(None),
            *self._trait_conditions(self.request.root_required,
                                    self.request.root_forbidden),
            *_within(window, RP.c.id))
        return set(self.conn.scalars(query))


class _SlotProviders(typing.NamedTuple):
    group: candidate_request.RequestGroup
    #: ``{class name: amount}`` of the slot.
    resources: dict
    #: ``{provider id: root id}`` of the providers that can serve it.
    roots: dict
    #: ``{provider id: frozenset of index}``: which of the unsuffixed group's
    #: required trait sets each provider meets (if the slot is of it).
    traits_met: dict


def _collective_traits(request):
    """The required trait sets of the unsuffixed group with resources."""
    return next((group.required_traits for group in request.groups
                 if not group.suffix and group.resources), ())


def _trait_names(request):
    names = set(request.root_forbidden).union(*request.root_required)
    for group in request.groups:
        names.update(group.forbidden_traits, *group.required_traits)
    return names


def _query_of(group):
    """What the narrowing query of ``group`` depends on: suffixed groups
    that ask the same (several VFs of one kind, say) share one query."""
    return (bool(group.suffix), tuple(sorted(group.resources.items())),
            tuple(frozenset(names) for names in group.required_traits),
            frozenset(group.forbidden_traits),
            tuple(frozenset(uuids) for uuids in group.member_of),
            frozenset(group.forbidden_aggregates), group.in_tree)


def _slot_resources(group):
    """The resources of each slot of ``group``: one slot per class of
    the unsuffixed group, one for a suffixed or resourceless group."""
    if group.suffix or not group.resources:
        return [group.resources]
    return [{name: amount} for name, amount in group.resources.items()]


def _aggregate_ids(conn, request):
    """``{uuid: id}`` of the aggregates the groups name, read once so
    that each probe of :func:`_in_any_aggregate` is an index lookup."""
    uuids = set()
    for group in request.groups:
        uuids.update(group.forbidden_aggregates, *group.member_of)
    return aggregate.existing_ids(conn, uuids)


def _sharing_providers(conn, trait_id):
    """``{id: root id}`` of the providers with the sharing trait (of id
    ``trait_id``; None: no such trait)."""
    if trait_id is None:
        return {}
    return dict(conn.execute(
        sa.select(RP.c.id, _ROOT_ID)
        .join(_RP_TRAIT, _RP_TRAIT.c.resource_provider_id == RP.c.id)
        .where(_RP_TRAIT.c.trait_id == trait_id)).all())


def _aggregates_of(conn, sharing):
    """``{aggregate id: [provider id]}`` of the aggregates of the
    providers ``sharing`` (ids)."""
    shared_by = collections.defaultdict(list)
    if sharing:
        for provider_id, aggregate_id in conn.execute(
                sa.select(_RP_AGG.c.resource_provider_id,
                          _RP_AGG.c.aggregate_id)
                .where(_RP_AGG.c.resource_provider_id.in_(sorted(sharing)))
                .order_by(_RP_AGG.c.resource_provider_id)):
            shared_by[aggregate_id].append(provider_id)
    return shared_by


def _anchors(conn, sharing, shared_by, tree_within):
    """``{sharing provider id: {root id}}`` for the ``{id: root id}`` of
    ``sharing``: its own root, and the roots (within the window) of the
    providers in one of its aggregates (``shared_by``: the sharing
    providers of each aggregate, :func:`_aggregates_of`).

    One query for the roots of each aggregate, by aggregate id: the
    database starts from the window's providers or from the
    aggregates' memberships, whichever are fewer (a join from the
    sharing providers through their aggregates started from the
    memberships, 25,000 of them for a window of 4,000 roots at 100,000
    providers). The roots come folded into one string per aggregate:
    there are few aggregates and many roots, and the driver's cost is
    per row.
    """
    anchors = {provider_id: {root} for provider_id, root in sharing.items()}
    aggregates = sorted(
        aggregate_id for aggregate_id, providers in shared_by.items()
        if any(provider_id in sharing for provider_id in providers))
    if not aggregates:
        return anchors
    query = (
        sa.select(_RP_AGG.c.aggregate_id,
                  sa.func.aggregate_strings(_text(_ROOT_ID), ','))
        .select_from(RP)
        .join(_RP_AGG, _RP_AGG.c.resource_provider_id == RP.c.id)
        .where(_RP_AGG.c.aggregate_id.in_(aggregates), *tree_within)
        .group_by(_RP_AGG.c.aggregate_id))
    for aggregate_id, roots in conn.execute(query):
        roots = set(map(int, roots.split(',')))
        for provider_id in shared_by[aggregate_id]:
            if provider_id in anchors:
                anchors[provider_id] |= roots
    return anchors


class _Trees:
    """Trees loaded batch by batch, and the options of each slot in each
    root's tree."""

    def __init__(self, conn, narrowing, names):
        self.conn = conn
        self.narrowing = narrowing
        self.rules = _rules(narrowing.request)
        self.by_root = collections.defaultdict(list)
        self.providers = {}
        self.names = names
        self.by_uuid = {}

    def candidates_by_root(self, windows, limit):
        """``(root, generator of its candidates)`` for each root of
        ``windows`` (lists of root ids, each narrowed when it is reached,
        which sets the narrowing's slots and anchors).

        Candidates equal to one of another root (made of sharing
        providers only) are skipped too.
        """
        memo = candidate_tree.Memo(self.narrowing.sharing)
        size = FIRST_BATCH if limit is None else min(limit, MOST_BATCH)
        for roots in windows:
            # The trees of the window's sharing providers, whole (their
            # summaries show them), come with the first batch.
            sharing_roots = [self.narrowing.sharing[provider_id]
                             for provider_id in self.narrowing.anchors]
            shared_with = self._shared_with()
            search = candidate_tree.Search(
                [candidate_tree.Slot(slot.group.suffix, slot.resources)
                 for slot in self.narrowing.slots],
                self.rules, self.providers, memo)
            for batch in _batches(roots, size):
                self._load(sharing_roots + batch)
                sharing_roots = []
                for root in batch:
                    yield root, search.candidates(
                        root, self._options(root, shared_with[root]))
                size = min(len(batch) * 2, MOST_BATCH)

    def _shared_with(self):
        """``{root: [sharing provider id]}`` of the current window."""
        shared_with = collections.defaultdict(list)
        for provider_id, roots in sorted(self.narrowing.anchors.items()):
            for root in roots:
                shared_with[root].append(provider_id)
        return shared_with

    def _load(self, roots):
        roots = {root for root in roots if root not in self.by_root}
        if roots:
            self._remember(_load_providers(
                self.conn, sorted(roots), self.names))

    def _remember(self, loaded):
        self.providers.update(loaded)
        self.by_uuid.update((p.uuid, p) for p in loaded.values())
        for provider in sorted(loaded.values(), key=lambda p: p.id):
            self.by_root[provider.root_id].append(provider)

    def _options(self, root, shared):
        """The options of each slot of the request (unsuffixed first) in
        the tree of ``root`` or ``shared`` with it."""
        tree = [provider.id for provider in self.by_root[root]]
        options = []
        for slot in self.narrowing.slots:
            reachable = tree + shared if slot.group.resources else tree
            options.append(tuple(dict.fromkeys(
                p for p in reachable if p in slot.roots)))
        return options

    def summaries(self, chosen):
        """Summaries of every provider of the trees of ``chosen`` and of
        the trees of the sharing providers they use."""
        involved = {}
        for root, candidate in chosen:
            roots = [root] + [self.by_uuid[uuid].root_id
                              for uuid in candidate.uuids]
            for tree_root in dict.fromkeys(roots):
                for provider in self.by_root[tree_root]:
                    involved[provider.uuid] = provider
        return involved


def _batches(items, first):
    """Consecutive slices of ``items``: ``first`` long, then each twice
    the one before (up to MOST_BATCH), so that a small limit loads few
    trees and a large one takes few queries."""
    start, size = 0, max(first, 1)
    while start < len(items):
        yield items[start:start + size]
        start, size = start + size, min(size * 2, MOST_BATCH)


def _rules(request):
    return candidate_tree.Rules(
        isolate=request.group_policy == 'isolate',
        unsuffixed_required=_collective_traits(request),
        same_subtree=tuple(frozenset(suffixes)
                           for suffixes in request.same_subtree),
        nested=request.nested)


def _load_providers(conn, roots, names):
    """``{id: candidate_tree.Provider}`` for every provider of the trees
    of ``roots``, in one query.

    A row per provider, its inventories (with usage) and trait ids
    folded into strings by the database: the driver's cost is per row
    and per column, and this way a provider is one row, not one per
    inventory and trait. The uuids of parents and roots come from the
    rows themselves (the trees are loaded whole). ``names`` is a
    :class:`_Names`.
    """
    rows = conn.execute(_LOAD_TREES, {'roots': roots}).all()
    uuids = {row[0]: row[1] for row in rows}
    names.traits({int(trait_id) for row in rows if row[5]
                  for trait_id in row[5].split(',')})
    return {
        row[0]: candidate_tree.Provider(
            id=row[0], uuid=row[1], parent_id=row[2], root_id=row[3],
            parent_uuid=uuids[row[2]] if row[2] is not None else None,
            root_uuid=uuids[row[3]],
            inventories=names.shared(row[4], _inventories),
            traits=names.shared(row[5], _traits))
        for row in rows}


def _text(column):
    return sa.cast(column, sa.String)


def _folded_inventories():
    """The provider's inventories as ``class:total:reserved:ratio:
    max_unit:used`` joined by ``;`` (None without any); the usage is a
    correlated sum that the index on allocations (provider, class,
    used) answers alone."""
    used = (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
            .where(_ALLOC.c.resource_provider_id
                   == _INV.c.resource_provider_id,
                   _ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())
    fields = [_INV.c.resource_class_id, _INV.c.total, _INV.c.reserved,
              _INV.c.allocation_ratio, _INV.c.max_unit, used]
    text = _text(fields[0])
    for field in fields[1:]:
        text = text + ':' + _text(field)
    return (sa.select(sa.func.aggregate_strings(text, ';'))
            .where(_INV.c.resource_provider_id == RP.c.id)
            .scalar_subquery())


def _folded_traits(trait_ids=None):
    """The provider's trait ids (of ``trait_ids`` only, if given) joined
    by ``,`` (None without any)."""
    conditions = [_RP_TRAIT.c.resource_provider_id == RP.c.id]
    if trait_ids is not None:
        conditions.append(_RP_TRAIT.c.trait_id.in_(trait_ids))
    return (sa.select(sa.func.aggregate_strings(
        _text(_RP_TRAIT.c.trait_id), ','))
        .where(*conditions).scalar_subquery())


#: The rows of :func:`_load_providers`; built once (its roots are an
#: expanding parameter), so that a request neither builds nor coerces it.
_LOAD_TREES = (
    sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id, _ROOT_ID,
              _folded_inventories(), _folded_traits())
    .where(_ROOT_ID.in_(sa.bindparam('roots', expanding=True))))


def _inventories(folded, names):
    """``{class: (capacity, used, free, max_unit)}`` of a folded
    inventory string (:func:`_folded_inventories`); ``free`` is the
    capacity less what is used."""
    inventories = {}
    if not folded:
        return inventories
    classes = names.classes
    for inventory in folded.split(';'):
        class_id, total, reserved, ratio, max_unit, used = inventory.split(
            ':')
        limit = capacity.capacity(int(total), int(reserved), float(ratio))
        used = int(used)
        inventories[classes[int(class_id)]] = (
            limit, used, limit - used, int(max_unit))
    return inventories


def _traits(folded, names):
    """The trait names of a folded trait id string, by id (read for the
    whole batch of rows before: no query)."""
    if not folded:
        return ()
    ids = sorted(int(trait_id) for trait_id in folded.split(','))
    trait_names = names.traits(ids)
    return tuple(trait_names[trait_id] for trait_id in ids)


#: Distinct folded strings whose inventories and traits one request
#: shares between providers.
MOST_SHARED = 10000


class _Names:
    """The names of resource classes and traits, read once a request;
    and the inventories and traits made of them."""

    def __init__(self, conn):
        self.conn = conn
        self._classes = None
        self._traits = {}
        self._shared = {}

    def shared(self, folded, make):
        """``make(folded, self)``, one object for each distinct string
        (up to :data:`MOST_SHARED`): the providers of one model (and
        usage) share their inventories and traits, which are most of
        the memory of a large answer otherwise. Read only, then."""
        key = make, folded
        found = self._shared.get(key)
        if found is None:
            found = make(folded, self)
            if len(self._shared) < MOST_SHARED:
                self._shared[key] = found
        return found

    @property
    def classes(self):
        """``{id: name}`` of every resource class (a small table)."""
        if self._classes is None:
            self._classes = dict(self.conn.execute(
                sa.select(_RC.c.id, _RC.c.name)).all())
        return self._classes

    def traits(self, ids):
        """``{id: name}`` of the traits ``ids`` (and those read before)."""
        missing = sorted(set(ids) - set(self._traits))
        if missing:
            self._traits.update(self.conn.execute(
                sa.select(_TRAIT.c.id, _TRAIT.c.name)
                .where(_TRAIT.c.id.in_(missing))).all())
        return self._traits
