"""Narrowing: the providers each slot of a candidates request may use,
found by SQL one window of roots at a time (step 1 of
:mod:`placement.objects.allocation_candidate`).

The conditions (:mod:`placement.objects.conditions`) are probes of each
provider's own rows, so that a window costs what its providers cost,
not what the cloud holds; what SQL cannot say alone (the unsuffixed
group's traits met by its providers together, the roots reached
through sharing providers) is intersected here, in Python, before any
tree is loaded.
"""

import collections
import functools
import itertools
import typing

import os_traits
import sqlalchemy as sa

from placement.db import models
from placement.objects import aggregate
from placement.objects import candidate_folding
from placement.objects import candidate_names
from placement.objects import candidate_request
from placement.objects import candidate_tree
from placement.objects import candidate_windows
from placement.objects import conditions
from placement.objects import kept
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import tagged_union
from placement.objects import trait

RP = models.ResourceProvider.__table__
_RC = models.ResourceClass.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__
_SHARES = os_traits.MISC_SHARES_VIA_AGGREGATE

# Every provider row has its root id (the online data migration
# set_root_provider_ids fills it for rows older than nesting), so trees
# are found through the indexed column alone.
_ROOT_ID = RP.c.root_provider_id

#: Provider ids whose aggregates estimate the share of the providers in
#: those a request names: this many per candidate asked for, at least
#: SAMPLE.
SAMPLE_PER_LIMIT = 16
SAMPLE = 4096
#: What each row of :func:`_look_up` reads: the ids of names, a
#: sharing provider, the tests of :meth:`Narrowing.may_match`.
_CLASS, _TRAIT, _AGGREGATE, _SHARING, _MAY_MATCH, _IN_TREE = (
    'class', 'trait', 'aggregate', 'sharing', 'may_match', 'in_tree')
#: The most tests of :meth:`Narrowing.may_match` (columns of one row).
MOST_TESTS = 32
#: The most required trait sets of the unsuffixed group whose probe of
#: the tree :meth:`Narrowing._trees_that_may_qualify` adds (the first
#: ones, enough to be right: each is only a necessary condition; a
#: probe each of 1,700 nests beyond SQLite's 1,000 levels).
MOST_TREE_TRAITS = 8
#: The statements of a candidates request but its trees' kept built
#: (:mod:`placement.objects.kept`): its look-up, may_match, narrowing
#: and anchors, each keyed by its kind and what it is built from.
_KEPT = kept.Kept(256)
#: How a window's statement tests the capacity of its providers, from
#: the cheapest to what a busy cloud needs (:meth:`Narrowing.narrow`
#: goes one step up after a window of which fewer than half the trees
#: loaded can serve): not at all, the trees that pass the other
#: conditions loaded and tested (``ON_TREES``); a single slot's
#: providers also bounded by the inventories that could serve it were
#: nothing allocated, an index lookup a class (``COULD_SERVE``: nova's
#: PCI group, a device one tree in ten has, whose trait the roots have
#: too); or every slot's capacity now, its allocations summed
#: (``SERVES_NOW``: the trees loaded are then those that can serve).
ON_TREES, COULD_SERVE, SERVES_NOW = range(3)
#: ``{what a narrowing is built from: the capacity test its next search
#: starts at}``, for the requests whose last search stepped up and
#: qualified fewer than half the roots it searched
#: (:meth:`Narrowing.remember_start`).
_STARTS = kept.Recent(256)


class Narrowing:
    """The providers each slot of the request may use, found by SQL, one
    window of roots at a time.

    A *slot* is one choice the assembly makes: the provider of one class
    of the unsuffixed group (its classes may come from different
    providers), or the single provider of a suffixed group.
    """

    def __init__(self, conn, request, explaining=False, limit=None):
        """``explaining``: for :mod:`placement.objects.explain`, which
        counts the traits checked on trees as stages of their own: each
        slot's query then keeps every provider the group's own
        conditions let through (:meth:`_trees_that_may_qualify`), and
        asks nothing of :meth:`may_match`. ``limit``: the search's
        (:meth:`may_match` samples the first window for it)."""
        self.conn = conn
        self.request = request
        self.explaining = explaining
        self.limit = limit
        (names, (found, unknown), self.aggregate_ids, sharing,
         self._may_match_row, self.in_tree_roots) = _look_up(
            conn, request, explaining, limit)
        #: The :class:`candidate_names.Names` of the request.
        self.names = names
        asked = {name for group in request.groups
                 for name in group.resources}
        self.class_ids = {name: class_id
                          for class_id, name in names.classes.items()
                          if name in asked}
        resource_class.require_known(asked, self.class_ids)
        self.trait_ids = trait.known(
            found, [name for name in unknown if name != _SHARES])
        #: ``{sharing provider id: its root id}``, ``{aggregate id:
        #: [sharing provider id]}``, ``{sharing provider id:
        #: SharingProvider}`` (what the conditions of a group test:
        #: :meth:`_sharing_rows`), and ``{sharing provider id: its
        #: inventories}`` (as :attr:`candidate_tree.Provider.inventories`,
        #: usage counted) that tell which slots it can serve
        #: (:meth:`_slots_by_query`; none read for a request narrowed
        #: by capacity alone, which loads their trees: :meth:`narrow`).
        (self.sharing, self.shared_by, self.sharing_facts,
         self.sharing_inventories) = _sharing_providers(sharing, names)
        #: The ids of the request's traits that a sharing provider has.
        self.sharing_traits = frozenset().union(*(
            facts.traits for facts in self.sharing_facts.values()))
        #: The aggregates of the sharing providers, whose roots in each
        #: window the window's narrowing statement reads too
        #: (:meth:`_slots_by_query`; none if no group allocates).
        self.anchored_aggregates = (
            tuple(sorted(self.shared_by))
            if any(group.resources for group in request.groups) else ())
        #: Whether the window's narrowing statement reads, beside each
        #: provider, which of :attr:`anchored_aggregates` its tree is in
        #: (:func:`_tree_aggregates`) rather than the roots of all their
        #: members (:func:`_anchors_query`); an explanation counts the
        #: roots every slot reaches, and reads those.
        self.trees_anchored = bool(self.anchored_aggregates) and not explaining
        #: The unsuffixed group's required traits, met by its providers
        #: together.
        self.collective = collective_traits(request)
        #: What the statements of this narrowing are built from, but
        #: the window: the request's conditions, the ids of their names
        #: (a name deleted and made again has another), and the sharing
        #: providers with the request's traits they have.
        self.built_from = (
            tuple(map(query_of, request.groups)),
            tuple(map(frozenset, request.root_required)),
            frozenset(request.root_forbidden), explaining,
            *(frozenset(ids.items()) for ids in (
                self.trait_ids, self.aggregate_ids, self.class_ids)),
            frozenset(self.sharing), frozenset(self.sharing_traits))
        #: How many ids they name (:meth:`kept.Kept.get`).
        self.ids_named = sum(map(len, (
            self.trait_ids, self.aggregate_ids, self.class_ids,
            self.sharing)))
        #: ``[SlotProviders]`` of the current window, unsuffixed first.
        self.slots = []
        #: ``{sharing provider id: {root id}}`` of the current window.
        self.anchors = {}
        #: ``{(after, limit): Share}`` of :meth:`members_share`.
        self._shares = {}
        #: Whether the current window bounds the providers: its
        #: conditions are then looked up per provider
        #: (:func:`conditions.exists`).
        self.per_provider = False
        #: Whether the request asks for resources and nothing else,
        #: root traits aside (:func:`by_capacity_alone`).
        self.by_capacity = not explaining and by_capacity_alone(request)
        #: Otherwise, how the window's statement tests the capacity of
        #: its providers (:data:`ON_TREES`); below :data:`SERVES_NOW`
        #: it is tested on their trees, loaded once the other
        #: conditions have narrowed them (:meth:`narrow`).
        self.capacity_test = SERVES_NOW if explaining else ON_TREES
        if not explaining and not self.by_capacity:
            self.capacity_test = _STARTS.get(self.built_from, ON_TREES)

    def narrow(self, window, trees=None):
        """Ids of the roots in ``window`` whose tree can fill every slot,
        and whose providers for the unsuffixed group can meet its
        traits; the slots and anchors are then those of the window.

        ``trees``: the :class:`candidate_loading.Trees` the search
        loads its trees into. A request that asks for resources alone
        (root and forbidden traits aside) is narrowed by a test of
        those on the window's trees, loaded whole
        (:meth:`_slots_by_capacity`), rather than by SQL, until a window
        of which fewer than half the trees can serve. Any other is
        narrowed by SQL, but the capacity of the window's providers is
        tested on the trees that pass the other conditions, loaded
        (:func:`_serving_slots`), until a window of which fewer than
        half those trees can serve, after which the statement tests
        more of it (:data:`ON_TREES`): the six correlated capacity
        probes of the member_of + required query were 40 % of MariaDB's
        CPU for its narrowing statement, and its trees are loaded
        anyway.
        The sharing providers' capacity is tested on their inventories
        read with the names (:meth:`_slots_by_query`), never probed.
        """
        self.per_provider = bool(candidate_windows.within(window, _ROOT_ID))
        loaded = anchored = None
        test = self.capacity_test if trees is not None else SERVES_NOW
        if self.by_capacity and trees is not None:
            providers = trees.load_window(window)
            loaded = {provider.root_id for provider in providers
                      if candidate_windows.holds(window, provider.root_id)}
            self.slots = self._slots_by_capacity(providers)
            test = SERVES_NOW
        else:
            self.slots, anchored = self._slots_by_query(window, test)
            if self.trees_anchored and all(map(self.via_sharing,
                                                self.slots)):
                # Every slot may reach a root through a sharing provider
                # alone, a tree none of whose providers the statement
                # read: the anchors are read whole.
                anchored = None
        self.anchors = _anchors(self.conn, {
            provider_id: root for provider_id, root in self.sharing.items()
            if self._in_a_slot(provider_id)},
            self.shared_by, window, anchored)
        root_traits = None
        if ((self.request.root_required or self.request.root_forbidden)
                and (self.explaining
                     or all(map(self.via_sharing, self.slots)))):
            # Otherwise a slot reaches only the roots of its own
            # providers, which have the root traits: its query checked.
            root_traits = self.roots_with_root_traits(window)
        roots = self._roots(window, root_traits)
        if test < SERVES_NOW:
            narrowed = roots
            providers = trees.load_roots(roots | {
                self.sharing[provider_id] for slot in self.slots
                for provider_id in self.via_sharing(slot)}, all(
                provider_id == root for slot in self.slots
                for provider_id, root in slot.roots.items()))
            self.slots = _serving_slots(self.slots, {
                provider_id: provider.inventories
                for provider_id, provider in providers.items()})
            self.anchors = {
                provider_id: anchors
                for provider_id, anchors in self.anchors.items()
                if self._in_a_slot(provider_id)}
            roots = self._roots(window, root_traits)
            if _few_serve(roots, narrowed):
                # The later windows' statements test more of it.
                self.capacity_test = test + 1
        if loaded is not None and _few_serve(roots, loaded):
            # The later windows are narrowed by the query, which loads
            # only the trees that can serve; the sharing providers'
            # capacity is tested on their trees, loaded with the first.
            self.by_capacity = False
            self.sharing_inventories = {
                provider_id: trees.providers[provider_id].inventories
                for provider_id in self.sharing}
        return roots

    def remember_start(self, progress):
        """After a search with a limit (its
        :class:`candidate_windows.Progress`): the next of the same
        request starts at the capacity test this one ended at if it
        stepped up and qualified fewer than half the roots it searched,
        else at :data:`ON_TREES`. Not remembered for a request naming
        more than :data:`kept.MOST_IDS` ids, as its statements are not.

        A scheduler sends the same request again and again. Nova's PCI
        request stepped up after each search's first window, which
        loaded the 1,000 trees of its window for the hundred that held
        a device: at 10,000 computes a third of its CPU, the service's
        (50-65 ms, 36-38 since) and MariaDB's (89-124, 66-73). A request
        whose roots qualify again (a cloud no longer busy) starts low
        again after one search.
        """
        if (self.explaining or self.by_capacity
                or self.ids_named > kept.MOST_IDS):
            return
        if (self.capacity_test > ON_TREES
                and progress.qualified < progress.searched / 2):
            _STARTS.put(self.built_from, self.capacity_test)
        else:
            _STARTS.drop(self.built_from)

    def _in_a_slot(self, provider_id):
        """Whether ``provider_id`` is among the providers of a slot."""
        return any(provider_id in slot.roots for slot in self.slots)

    def _roots(self, window, root_traits):
        """The roots of ``window`` that every slot reaches, whose
        providers meet the unsuffixed group's traits together, and of
        ``root_traits`` (None: any)."""
        roots = None
        for slot in self.slots:
            reachable = self.reachable_roots(slot)
            roots = reachable if roots is None else roots & reachable
        roots = roots or set()
        if self.collective:
            roots &= self.meeting_collective_traits()
        if root_traits is not None:
            roots &= root_traits
        return {root for root in roots
                if candidate_windows.holds(window, root)}

    def _slots_by_query(self, window, test=SERVES_NOW):
        """``(slots, anchored)``: the :class:`SlotProviders` of each
        slot, from a query each (:meth:`_group_query`, read by
        :meth:`_group_slots`) of the providers of ``window``'s trees and
        the sharing ones; and ``{aggregate id: {root id}}`` of the
        window's trees in each anchored aggregate (None: no aggregate to
        anchor). The queries and the anchors' are one statement
        (:func:`tagged_union.union`, kept built: :data:`_KEPT`): a
        statement costs a round trip and about half a millisecond of the
        service's CPU whatever it reads. ``test``: how it tests the
        capacity (:data:`ON_TREES`).

        With :attr:`trees_anchored` those are only the trees of the
        providers read (:func:`_tree_aggregates`), which hold every root
        that a slot reaches through providers of its own: the roots of
        every member of the anchored aggregates (:func:`_anchors_query`,
        a provider row each) cost MariaDB 1.7 of the statement's 9.8 ms
        for the member_of + required query at 10,000 providers.
        """
        each = _one_query_each(self.request.groups)
        aggregates = self.anchored_aggregates
        read_anchors = aggregates and not self.trees_anchored
        tags = [*map(str, range(len(each))),
                *([_ANCHORS] if read_anchors else [])]
        strings = candidate_folding.strings_by_tag(kept.execute(
            self.conn, _KEPT.get(
                (self.built_from, window, aggregates, test),
                lambda: self._window_statement(each, window, test),
                self.ids_named + len(aggregates))), tags)
        trees = {} if self.trees_anchored else None
        found = {}
        for index, (keys, groups) in enumerate(each):
            rows = _rows(strings[str(index)])
            if groups[0].resources:
                rows = itertools.chain(rows, self._sharing_rows(groups))
            if trees is not None:
                rows = _noting_trees(rows, trees)
            found.update(zip(keys, self._group_slots(groups, rows),
                             strict=True))
        anchored = (_roots_by_aggregate(strings[_ANCHORS]) if read_anchors
                    else _trees_by_aggregate(trees, window)
                    if trees is not None else None)
        # The sharing providers' capacity is not probed
        # (:meth:`_sharing_rows`): tested on their inventories read
        # with the names, before anything (the anchors, the root
        # traits) is decided by which slots they serve.
        return _serving_slots(
            [slot._replace(group=group) for group in self.request.groups
             for slot in found[query_of(group)]],
            self.sharing_inventories, among=self.sharing), anchored

    def _window_statement(self, each, window, test):
        """The statement of :meth:`_slots_by_query`: the query of each of
        ``each`` (:func:`_one_query_each`) tagged by its index, and the
        anchors' (tagged :data:`_ANCHORS`)."""
        tree_within = candidate_windows.within(window, _ROOT_ID)
        queries = {str(index): self._group_query(groups, tree_within, test)
                   for index, (_, groups) in enumerate(each)}
        if self.anchored_aggregates and not self.trees_anchored:
            queries[_ANCHORS] = _anchors_query(self.anchored_aggregates,
                                               window)
        return tagged_union.union(queries)

    def _slots_by_capacity(self, providers):
        """The :class:`SlotProviders` of each slot of a request that asks
        for resources alone (:func:`by_capacity_alone`): of
        ``providers`` (loaded: those of the window's trees and the
        sharing ones), those that can serve the slot on their own
        (:func:`candidate_tree.serves`) and lack the group's forbidden
        traits, in a tree whose root has the root traits unless they
        share.

        The trees of a window are loaded for the assembly anyway: the
        query of :meth:`_slots_by_query` read each provider's
        inventories and allocations once more (with a correlated sum
        per inventory, 10-15 ms of MariaDB's CPU for 1,000 providers).
        """
        request = self.request
        if request.root_required or request.root_forbidden:
            by_id = {provider.id: provider for provider in providers}
            root_traits = _tested_once(lambda traits: (
                candidate_tree.meets_traits(set(traits), request.root_required,
                                            request.root_forbidden)))
            providers = [provider for provider in providers
                         if provider.id in self.sharing
                         or root_traits(by_id[provider.root_id].traits)]
        slots = []
        for group in request.groups:
            lacking = providers
            if group.forbidden_traits:
                lacks = _tested_once(lambda traits, forbidden=(
                    group.forbidden_traits): candidate_tree.meets_traits(
                        set(traits), (), forbidden))
                lacking = [provider for provider in providers
                           if lacks(provider.traits)]
            each = slot_resources(group)
            # The slots an inventories object serves, in one pass: a
            # test per slot and provider was the most called function
            # of nova's scheduler query.
            slots_served = _tested_once(lambda inventories, each=each: [
                index for index, resources in enumerate(each)
                if candidate_tree.serves(inventories, resources)])
            serving = [{} for _ in each]
            for provider in lacking:
                for index in slots_served(provider.inventories):
                    serving[index][provider.id] = provider.root_id
            slots.extend(SlotProviders(group, resources, roots, {})
                         for resources, roots in zip(each, serving,
                                                     strict=True))
        return slots

    def may_match(self):
        """False when the request can match nothing: a group asks for an
        amount that no inventory could hold even unallocated, or names
        only aggregates or traits that no provider is in or has.

        Otherwise a request with a limit that matches nothing searches
        every window of roots before it answers (200 ms at 10,000
        providers): here tests of uncorrelated EXISTS, each an index
        range that stops at its first row, of at most
        :data:`MOST_TESTS` (the first ones, which is enough to be right:
        each test is only a necessary condition), read with the
        request's names (:func:`_look_up`). With a limit, the same
        statement samples :meth:`members_share` from the first id.
        """
        if any(conditions.known_groups(group.member_of, self.aggregate_ids)
               is None for group in self.request.groups):
            return False
        if self._may_match_row is None:
            return True
        tests, sample = self._may_match_row
        if sample is not None:
            self._shares[candidate_windows.FIRST_AFTER, self.limit] = (
                _share(self.limit, *sample))
        return all(tests)

    def members_share(self, after, limit):
        """The :class:`candidate_windows.Share` of the providers after id
        ``after`` that are in an aggregate named by a ``member_of`` of
        the request (1 without any): an estimate of the share of roots
        that may qualify, from the memberships of the
        ``max(SAMPLE_PER_LIMIT * limit, SAMPLE)`` ids from the first
        after ``after`` (an index range whatever the size of the cloud;
        ids rather than providers: gaps left by deleted ones make the
        share smaller, the first window larger)."""
        if (after, limit) not in self._shares:
            named = conditions.known_ids(
                _member_of_uuids(self.request), self.aggregate_ids)
            self._shares[after, limit] = (
                _share(limit, *self.conn.execute(sa.select(
                    *_share_sample(after, limit, named))).one())
                if named else candidate_windows.Share(1.0, None))
        return self._shares[after, limit]

    def via_sharing(self, slot):
        """The sharing providers through which ``slot`` reaches the
        roots of other trees (none for a group without resources)."""
        if not slot.group.resources:
            return set()
        return self.sharing.keys() & slot.roots.keys()

    def reachable_roots(self, slot):
        """The roots the providers of ``slot`` serve (:meth:`reached`),
        as sets rather than pairs; :mod:`placement.objects.explain`
        counts them per slot."""
        roots = set(slot.roots.values())
        for provider_id in self.via_sharing(slot):
            roots |= self.anchors[provider_id]
        return roots

    def reached(self, slot, provider_ids):
        """``(provider id, root id)`` for the roots each provider serves:
        its own, and those of the trees a sharing one is shared with
        (also read by :mod:`placement.objects.explain`)."""
        for provider_id in provider_ids:
            if slot.group.resources and provider_id in self.sharing:
                for root in self.anchors[provider_id]:
                    yield provider_id, root
            else:
                yield provider_id, slot.roots[provider_id]

    def meeting_collective_traits(self):
        """The roots that reach, for each required trait set of the
        unsuffixed group, a provider of that group with one of them
        (also what :mod:`placement.objects.explain` reports missing)."""
        met = collections.defaultdict(set)
        for slot in self.slots:
            for provider_id, root in self.reached(slot, slot.traits_met):
                met[root].update(slot.traits_met[provider_id])
        return {root for root, indexes in met.items()
                if len(indexes) == len(self.collective)}

    def _group_slots(self, groups, rows):
        """For each of ``groups``, the :class:`SlotProviders` of each of
        its slots, from ``rows`` (:func:`_rows`) of its
        :meth:`_group_query`."""
        group = groups[0]
        slots = slot_resources(group)
        if len(groups) > 1:
            return self._slots_of_each(groups, slots[0], rows)
        collective = self.collective if not group.suffix else ()
        collective_ids = [frozenset(self.trait_ids_of(names))
                          for names in collective]
        flagged = len(slots) > 1
        found = [({}, {}) for _ in slots]
        # One frozenset for each combination of trait sets met (keyed by
        # the traits held): a set per provider was most of the memory of
        # a large narrowing.
        combinations = {}
        traits_at = 2 + len(slots) if flagged else 2
        for row in rows:
            provider_id, root = int(row[0]), int(row[1])
            serves = ([flag == '1' for flag in row[2:traits_at]] if flagged
                      else (True,))
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
        return [[SlotProviders(group, resources, roots, traits_met)
                 for resources, (roots, traits_met)
                 in zip(slots, found, strict=True)]]

    def _group_query(self, groups, tree_within, test=SERVES_NOW):
        """The statement (folded: :func:`_rows`) of the providers of the
        window (``tree_within``), and the sharing ones, that pass the
        conditions of ``groups``, each with a flag per slot (can it
        serve that slot's resources on its own?) and, in the unsuffixed
        group, the traits of its required sets that the provider has.

        Several groups (suffixed ones that ask the same but traits,
        :func:`_one_query_each`) have a flag each for their traits: the
        capacity of a provider, the costly part, is then probed once.
        Every condition is a probe of the provider's own rows: a window
        costs what its providers cost, whatever the size of the cloud.
        ``test``: below :data:`SERVES_NOW` the capacity of the window's
        providers is tested once their trees are loaded (:meth:`narrow`):
        their flags are true, and a single slot's resources no condition
        (:data:`ON_TREES`) or one that they could be served were nothing
        allocated (:data:`COULD_SERVE`). The sharing providers of a
        group with resources are left out: tested on what the look-up
        read of them (:meth:`_sharing_rows`, their capacity by
        :meth:`_slots_by_query`).
        """
        group = groups[0]
        slots = slot_resources(group)
        collective = self.collective if not group.suffix else ()
        now = test == SERVES_NOW
        serving = [self._serving(resources, now) for resources in slots]
        allocating = bool(group.resources)
        if len(groups) == 1:
            trait_flags = []
            traits = self._group_traits(group, allocating)
        else:
            trait_flags = [sa.and_(*conditions) if conditions else sa.true()
                           for conditions in (self._group_traits(
                               each, allocating) for each in groups)]
            traits = [sa.or_(*trait_flags)]
        # The ids of each trait set, and the traits of them the provider
        # has, in one column however many the sets are.
        held = ([_traits_held(sorted(
            frozenset().union(*map(self.trait_ids_of, collective))))]
            if collective else [])
        # Third, the anchored aggregates of the provider's tree, which
        # _noting_trees takes out of the row.
        anchored = ([_tree_aggregates(self.anchored_aggregates)]
                    if self.trees_anchored else [])

        # One slot: its resources are conditions; several (one class
        # each): flags, labelled (a select keeps one of equal columns).
        # The same for the traits of one group or several.
        flags = ([(sa.and_(*conditions) if now else sa.true())
                  .label(f'serves_{index}')
                  for index, conditions in enumerate(serving)]
                 if len(slots) > 1 else [])
        bounds = [*tree_within, *self._trees_that_may_qualify(group),
                  *(self._trees_holding_devices(groups)
                    if test == COULD_SERVE else [])]
        if self.sharing and group.resources:
            # Tested on what the look-up read (:meth:`_sharing_rows`).
            bounds.append(RP.c.id.not_in(sorted(self.sharing)))
        return candidate_folding.folded_rows(sa.select(
            RP.c.id, _ROOT_ID, *anchored, *flags, *held,
            *trait_flags).where(
                *self._group_conditions(group), *traits,
                *(serving[0] if test != ON_TREES and not flags else []),
                *bounds), 'id')

    def _sharing_rows(self, groups):
        """The rows (as :func:`_rows` reads them) that the query of
        ``groups`` (:meth:`_group_query`, a group with resources) would
        read of the sharing providers, which it leaves out: those that
        pass the group's aggregates, ``in_tree`` and traits
        (:func:`conditions.meets_aggregates`,
        :func:`candidate_tree.meets_traits`), tested on what the look-up
        read of them (:class:`SharingProvider`). Their capacity is not
        probed (flags true): tested on their inventories read with the
        names (:meth:`_slots_by_query`).

        As a part of the statement of their own (a ``UNION ALL``: an OR
        of them would keep the database from starting at the providers
        of the trees that may qualify), they cost MariaDB the parse and
        optimisation of a second copy of the query for four rows: 0.3
        of 1.6 ms for the member_of + required query.
        """
        group = groups[0]
        member_of = conditions.known_groups(group.member_of,
                                            self.aggregate_ids)
        if member_of is None or not self.sharing:
            return
        forbidden = conditions.known_ids(group.forbidden_aggregates,
                                         self.aggregate_ids)
        slots = len(slot_resources(group))
        collective = self.collective if not group.suffix else ()
        held = frozenset().union(*map(self.trait_ids_of, collective))
        names = {trait_id: name for name, trait_id in self.trait_ids.items()}
        for provider_id, facts in sorted(self.sharing_facts.items()):
            if not conditions.meets_aggregates(
                    facts.aggregates | (facts.root_aggregates
                                        if not group.suffix else set()),
                    member_of, forbidden):
                continue
            if (group.in_tree is not None
                    and self.in_tree_roots.get(group.in_tree) != facts.root):
                continue
            traits = {names[trait_id] for trait_id in facts.traits
                      if trait_id in names}
            met = [candidate_tree.meets_traits(
                       traits, each.required_traits
                       if each.suffix else (), each.forbidden_traits)
                   for each in groups]
            if not any(met):
                continue
            yield [str(provider_id), str(facts.root),
                   *([','.join(map(str, sorted(
                       facts.tree_aggregates.intersection(
                           self.anchored_aggregates))))]
                     if self.trees_anchored else []),
                   *(['1'] * slots if slots > 1 else []),
                   *([','.join(map(str, sorted(facts.traits & held)))]
                     if collective else []),
                   *(['1' if each else '0' for each in met]
                     if len(groups) > 1 else [])]

    @staticmethod
    def _slots_of_each(groups, resources, rows):
        """The one slot of each of ``groups`` (suffixed), from ``rows``
        (:func:`_rows`): id, root, and a flag per group."""
        found = [{} for _ in groups]
        for row in rows:
            provider_id, root = int(row[0]), int(row[1])
            for roots, flag in zip(found, row[2:], strict=True):
                if flag == '1':
                    roots[provider_id] = root
        return [[SlotProviders(group, resources, roots, {})]
                for group, roots in zip(groups, found, strict=True)]

    def _trees_that_may_qualify(self, group):
        """Conditions (maybe none) on ``RP`` of a search, not of an
        explanation: the provider is in a tree whose root has the
        request's root traits, and that holds a trait of each set the
        unsuffixed group requires together, unless a sharing provider
        holds one (the sharing providers of a group with resources are
        not held to them: :meth:`_group_slots`).

        Only necessary conditions (:meth:`narrow` checks both exactly),
        cheap ones: they spare the capacity probes of the providers of
        trees that cannot qualify (nine in ten of the member_of +
        required query's).
        """
        if self.explaining:
            return []
        request = self.request
        found = conditions.trait_conditions(
            [self.trait_ids_of(names) for names in request.root_required],
            self.trait_ids_of(request.root_forbidden), self.per_provider,
            provider_id=_ROOT_ID)
        shared = self.sharing_traits if group.resources else set()
        for names in self.collective[:MOST_TREE_TRAITS]:
            ids = self.trait_ids_of(names)
            if shared.isdisjoint(ids):
                found.append(conditions.tree_has_any_trait(
                    sorted(ids), self.per_provider))
        return found

    def _serving(self, resources, now=True):
        """Conditions: the provider can serve ``resources`` on its own
        (not ``now``: could, were nothing allocated)."""
        if not now:
            return [RP.c.id.in_(conditions.could_serve(
                self.class_ids[name], amount))
                for name, amount in resources.items()]
        return [conditions.has_capacity(
            RP.c.id, self.class_ids[name], amount, self.per_provider)
            for name, amount in resources.items()]

    def _trees_holding_devices(self, groups):
        """Conditions on ``RP`` of a window whose capacity is tested
        :data:`COULD_SERVE`, for a provider of ``groups``: its tree
        holds, for each other group of one slot, a provider that could
        serve it were nothing allocated (a group no sharing provider can
        serve: it is then served in the tree). The unsuffixed group's
        providers of nova's PCI request are then those of the trees with
        a device, not every tree of the window."""
        found = []
        for other in self.request.groups:
            slots = slot_resources(other)
            if (other in groups or len(slots) != 1 or not other.resources
                    or self._sharing_may_serve(other)):
                continue
            device = RP.alias('device')
            found.append(_ROOT_ID.in_(
                sa.select(device.c.root_provider_id).where(*(
                    device.c.id.in_(conditions.could_serve(
                        self.class_ids[name], amount))
                    for name, amount in other.resources.items()))))
        return found

    def _sharing_may_serve(self, group):
        """Whether a sharing provider holds one of ``group``'s classes
        (or its inventories are not known)."""
        return any(provider_id not in self.sharing_inventories
                   or not self.sharing_inventories[provider_id].keys()
                   .isdisjoint(group.resources)
                   for provider_id in self.sharing)

    def _group_conditions(self, group):
        """Conditions on ``RP`` for a provider serving ``group``, but its
        traits (:meth:`_group_traits`).

        A provider of the unsuffixed group counts as a member of an
        aggregate of its root.
        """
        member_of = conditions.known_groups(group.member_of,
                                            self.aggregate_ids)
        if member_of is None:
            return [sa.false()]
        found = conditions.aggregate_conditions(
            member_of, conditions.known_ids(group.forbidden_aggregates,
                                            self.aggregate_ids),
            with_root=not group.suffix)
        if group.in_tree is not None:
            found.append(conditions.in_tree(group.in_tree))
        return found

    def _group_traits(self, group, allocating):
        """Conditions on ``RP``: the traits of a provider serving
        ``group``. The required traits of an unsuffixed group with
        resources are checked on its providers together, later."""
        required = (group.required_traits
                    if group.suffix or not allocating else ())
        return self._trait_conditions(required, group.forbidden_traits)

    def trait_ids_of(self, names):
        """The ids of trait ``names`` (all known: the request's traits
        are looked up once); :mod:`placement.objects.explain` builds
        its conditions with them."""
        return {self.trait_ids[name] for name in names}

    def _trait_conditions(self, required, forbidden):
        """:func:`conditions.trait_conditions` of trait names; looked up
        per provider within a window."""
        return conditions.trait_conditions(
            [self.trait_ids_of(names) for names in required],
            self.trait_ids_of(forbidden),
            self.per_provider)

    def roots_with_root_traits(self, window):
        """The roots of ``window`` with the request's root_required
        traits and none of its root_forbidden ones (also read by
        :mod:`placement.objects.explain`)."""
        query = sa.select(RP.c.id).where(
            RP.c.parent_provider_id.is_(None),
            *self._trait_conditions(self.request.root_required,
                                    self.request.root_forbidden),
            *candidate_windows.within(window, RP.c.id))
        return set(self.conn.scalars(query))


def _span(limit):
    """Provider ids :meth:`Narrowing.members_share` samples for
    ``limit``."""
    return max(min(SAMPLE_PER_LIMIT * limit, candidate_windows.MOST_IDS),
               SAMPLE)


def _share(limit, members, lowest, highest):
    """:meth:`Narrowing.members_share` of its sample: ``members`` of
    the ids from ``lowest`` (None: no provider after the first id) on,
    ``highest`` the highest id."""
    if lowest is None:
        return candidate_windows.Share(1.0, 0)
    ids = highest - lowest + 1
    return candidate_windows.Share(
        min(max(members, 1) / min(_span(limit), ids), 1.0), ids)


class SlotProviders(typing.NamedTuple):
    group: candidate_request.RequestGroup
    #: ``{class name: amount}`` of the slot.
    resources: dict
    #: ``{provider id: root id}`` of the providers that can serve it.
    roots: dict
    #: ``{provider id: frozenset of index}``: which of the unsuffixed group's
    #: required trait sets each provider meets (if the slot is of it).
    traits_met: dict


def _serving_slots(slots, inventories, among=None):
    """``slots`` (:class:`SlotProviders`), each with only those of its
    providers that can serve its resources on their own
    (:func:`candidate_tree.serves`) with ``inventories`` (``{provider
    id: its inventories}``, as :attr:`candidate_tree.Provider.inventories`;
    a provider not there serves none), of ``among`` (ids; None: of all
    its providers, the others kept)."""
    found = []
    for slot in slots:
        if slot.resources:
            serves = _tested_once(functools.partial(
                candidate_tree.serves, resources=slot.resources))
            roots = {provider_id: root
                     for provider_id, root in slot.roots.items()
                     if (among is not None and provider_id not in among)
                     or (provider_id in inventories
                         and serves(inventories[provider_id]))}
            slot = slot._replace(roots=roots, traits_met={
                provider_id: met
                for provider_id, met in slot.traits_met.items()
                if provider_id in roots})
        found.append(slot)
    return found


def _tested_once(test):
    """``test`` (of a provider's inventories or traits), made once for
    each object tested: the providers of one model (and usage) share
    them (:meth:`candidate_names.Names.shared`), and all live while the
    results (by object id) do."""
    results = {}

    def tested(shared):
        result = results.get(id(shared))
        if result is None:
            result = results[id(shared)] = test(shared)
        return result
    return tested


def by_capacity_alone(request):
    """Whether every group of ``request`` asks for resources and nothing
    else but forbidden traits (no required traits, aggregates or
    in_tree; root traits may be named): its providers are then those of
    the trees searched and the sharing ones that can serve the
    resources and lack the forbidden traits (:meth:`Narrowing.narrow`;
    nova asks ``required=!COMPUTE_STATUS_DISABLED`` with every
    flavor)."""
    return all(
        group.resources and not (
            group.required_traits or group.member_of
            or group.forbidden_aggregates or group.in_tree is not None)
        for group in request.groups)


def collective_traits(request):
    """The required trait sets of the unsuffixed group with resources."""
    return next((group.required_traits for group in request.groups
                 if not group.suffix and group.resources), ())


def _trait_names(request):
    names = set(request.root_forbidden).union(*request.root_required)
    for group in request.groups:
        names.update(group.forbidden_traits, *group.required_traits)
    return names


def _rows(strings):
    """The rows of folded ``strings`` (:func:`candidate_folding.folded_rows`:
    a provider's id and root id first) as lists of text; but those of
    providers whose root id is NULL, a broken tree (the audit reports
    it) that serves no candidate, as upstream's joins on the root leave
    it out."""
    return (row for row in candidate_folding.unfolded_rows(strings)
            if row[1])


def _one_query_each(groups):
    """``(keys, groups)`` for each narrowing query of ``groups``: the
    distinct groups (by :func:`query_of`) one query serves, and their
    keys. Suffixed groups that differ only by their traits (two NICs
    on two physical networks, say) share one."""
    by_query = {}
    for group in groups:
        by_query.setdefault(query_of(group), group)
    shared = collections.defaultdict(list)
    for key, group in by_query.items():
        # The key but its traits (query_of's third and fourth items).
        shared[key[:2] + key[4:] if group.suffix else key].append(key)
    return [(keys, [by_query[key] for key in keys])
            for keys in shared.values()]


def query_of(group):
    """What the narrowing query of ``group`` depends on: suffixed groups
    that ask the same (several VFs of one kind, say) share one query
    (and one funnel in :mod:`placement.objects.explain`)."""
    return (bool(group.suffix), tuple(sorted(group.resources.items())),
            tuple(frozenset(names) for names in group.required_traits),
            frozenset(group.forbidden_traits),
            tuple(frozenset(uuids) for uuids in group.member_of),
            frozenset(group.forbidden_aggregates), group.in_tree)


def slot_resources(group):
    """The resources of each slot of ``group``: one slot per class of
    the unsuffixed group, one for a suffixed or resourceless group.
    :mod:`placement.objects.explain` explains each slot."""
    if group.suffix or not group.resources:
        return [group.resources]
    return [{name: amount} for name, amount in group.resources.items()]


def _member_of_uuids(request):
    """The uuids of the aggregates named by the ``member_of`` of
    ``request``'s groups, sorted."""
    return sorted({uuid for group in request.groups
                   for uuids in group.member_of for uuid in uuids})


def _share_sample(after, limit, aggregate_ids):
    """The columns of :meth:`Narrowing.members_share`'s sample of the
    memberships of ``aggregate_ids`` (ids, or a query of them): the
    memberships, the first id and the highest."""
    first = (sa.select(sa.func.min(RP.c.id)).where(RP.c.id > after)
             .scalar_subquery())
    return (sa.select(sa.func.count()).select_from(_RP_AGG).where(
                _RP_AGG.c.aggregate_id.in_(aggregate_ids),
                _RP_AGG.c.resource_provider_id >= first,
                _RP_AGG.c.resource_provider_id < first + _span(limit))
            .scalar_subquery(),
            first, sa.select(sa.func.max(RP.c.id)).scalar_subquery())


def _look_up(conn, request, explaining, limit):
    """``(Names, ({trait name: id}, unknown trait names), {aggregate
    uuid: id}, sharing rows, may_match's row, {in_tree uuid: its root
    id})`` of ``request``, read in
    one statement (:func:`name_table.looked_up`), kept built
    (:data:`_KEPT`): every resource class (a small table: the ids asked
    and the names of the inventories loaded), the traits the request
    names and the sharing trait, the aggregates it names (unknown ones
    left out), the sharing providers (:func:`_sharing_providers`, with
    their inventories and usage), the roots of the providers of the
    groups' ``in_tree`` and, unless ``explaining``, the tests
    of :meth:`Narrowing.may_match` (None: nothing to test), with the
    first window's sample for ``limit``. A statement costs a round trip
    and about half a millisecond of the service's CPU whatever it
    reads: those that need the ids of names find them by name
    themselves."""
    traits = frozenset(_trait_names(request) | {_SHARES})
    uuids = set()
    for group in request.groups:
        uuids.update(group.forbidden_aggregates, *group.member_of)
    uuids = tuple(sorted(uuids))
    trees = tuple(sorted({group.in_tree for group in request.groups
                          if group.in_tree is not None}))
    # A request narrowed by capacity alone loads the sharing
    # providers' trees (Narrowing.narrow).
    capacities = explaining or not by_capacity_alone(request)
    statement, tested, sampled = _KEPT.get(
        ('look up', traits, uuids, explaining, limit, capacities,
         tuple(map(query_of, request.groups)),
         tuple(map(frozenset, request.root_required))),
        lambda: _look_up_statement(
            traits, uuids, trees,
            () if explaining else _may_match_columns(request, limit),
            capacities),
        len(traits) + len(uuids) + len(trees))
    rows = name_table.looked_up(conn, statement, (
        _CLASS, _TRAIT, *([_AGGREGATE] if uuids else []), _SHARING,
        *([_IN_TREE] if trees else []),
        *([_MAY_MATCH] if tested is not None else [])))
    may_match = None
    if tested is not None:
        (folded, _), = rows[_MAY_MATCH]
        fields, = candidate_folding.unfolded_rows([folded])
        may_match = ([field == '1' for field in fields[:tested]],
                     [int(field) if field else None
                      for field in fields[tested:]] if sampled else None)
    return (candidate_names.Names(
                conn, {class_id: name for name, class_id in rows[_CLASS]}),
            name_table.found_and_unknown(traits, rows[_TRAIT]),
            aggregate.canonical_ids(rows.get(_AGGREGATE, ())),
            rows[_SHARING], may_match,
            # By the canonical (lower case) uuid asked: MariaDB's
            # collation matches a row of another case.
            {uuid.lower(): root for uuid, root in rows.get(_IN_TREE, ())})


def _may_match_columns(request, limit):
    """``(tests, sample)``: the columns of :meth:`Narrowing.may_match`
    (by name: they are read with the ids of the names), and those of
    the first window's sample for ``limit`` (none without a limit or
    aggregates named); ``()`` if there are neither.

    A request naming more than :data:`kept.MOST_IDS` aggregates has
    neither aggregate tests nor sample (:meth:`Narrowing.members_share`
    reads it then, by the ids found): each would name all their uuids
    again, to parse and send (2,005 of them: 10 ms more of each side's
    CPU).
    """
    groups = request.groups
    uuids = _member_of_uuids(request)
    named = len(uuids) <= kept.MOST_IDS
    tests = {}
    for group in groups if named else ():
        for member_of in map(sorted, group.member_of):
            tests['aggregates', *member_of] = conditions.anyone_in(
                aggregate.ids_of(member_of))
    for names in (*request.root_required,
                  *(names for group in groups
                    for names in group.required_traits)):
        names = sorted(names)
        tests['traits', *names] = conditions.anyone_has(
            name_table.ids_named(trait.TRAIT, names))
    for group in groups:
        for name, amount in group.resources.items():
            tests[name, amount] = conditions.could_ever_fit_named(
                name, amount)
    tests = list(tests.values())[:MOST_TESTS]
    sample = (_share_sample(candidate_windows.FIRST_AFTER, limit,
                            aggregate.ids_of(uuids))
              if limit is not None and uuids and named else ())
    if not tests and not sample:
        return ()
    return tests, sample


def _look_up_statement(traits, uuids, trees, tests, capacities):
    """``(statement, tests, sampled)``: the statement of :func:`_look_up`
    of trait names ``traits``, aggregate ``uuids``, the uuids of the
    providers of ``in_tree`` ``trees``, may_match's
    ``tests`` (:func:`_may_match_columns`) and, if ``capacities``, the
    sharing providers' inventories and usage; how many tests it reads
    (None: no row of may_match) and whether the sample follows them."""
    queries = {_CLASS: sa.select(_RC.c.name, _RC.c.id),
               _TRAIT: name_table.select_ids(trait.TRAIT, sorted(traits)),
               _SHARING: _sharing_query(sorted(traits), capacities)}
    if uuids:
        queries[_AGGREGATE] = aggregate.select_ids(uuids)
    if trees:
        queries[_IN_TREE] = sa.select(RP.c.uuid, _ROOT_ID).where(
            RP.c.uuid.in_(trees))
    if not tests:
        return tagged_union.union(queries), None, False
    tested, sample = tests
    queries[_MAY_MATCH] = sa.select(
        candidate_folding.folded_row([*tested, *sample]), sa.null())
    return tagged_union.union(queries), len(tested), bool(sample)


def _sharing_providers(rows, names):
    """``({id: root id}, {aggregate id: [id]}, {id: SharingProvider},
    {id: inventories})`` of the providers with the sharing trait, the
    last their inventories with their usage (as a loaded tree's:
    :func:`candidate_folding.decode_inventories`, shared by ``names``;
    empty if the rows have none), from the rows of
    :func:`_sharing_query`."""
    sharing = {}
    shared_by = collections.defaultdict(list)
    facts = {}
    inventories = {}
    rows = sorted(
        (provider_id, int(aggregate_id) if aggregate_id else None,
         int(root), traits, root_aggregates, tree_aggregates, capacities)
        for provider_id, (root, aggregate_id, traits, root_aggregates,
                          tree_aggregates, *capacities) in (
            (provider_id, *candidate_folding.unfolded_rows([folded]))
            for folded, provider_id in rows))
    for (provider_id, aggregate_id, root, traits, root_aggregates,
         tree_aggregates, capacities) in rows:
        sharing[provider_id] = root
        if provider_id not in facts:
            facts[provider_id] = SharingProvider(
                root, set(), _ids(root_aggregates), _ids(tree_aggregates),
                _ids(traits))
        if aggregate_id is not None:
            shared_by[aggregate_id].append(provider_id)
            facts[provider_id].aggregates.add(aggregate_id)
        if capacities and provider_id not in inventories:
            folded, used = capacities
            inventories[provider_id] = names.shared(
                (folded, candidate_folding.decode_usage(used)),
                candidate_folding.decode_inventories)
    return sharing, shared_by, facts, inventories


def _ids(folded):
    """The frozenset of the ids of a text of ids joined by ``,``."""
    return frozenset(map(int, folded.split(','))) if folded else frozenset()


class SharingProvider(typing.NamedTuple):
    """What :meth:`Narrowing._sharing_rows` tests of a sharing
    provider (ids)."""

    root: int
    #: Its aggregates (a set, filled as they are read), its root's and
    #: those of the providers of its tree.
    aggregates: set
    root_aggregates: frozenset
    tree_aggregates: frozenset
    #: The request's traits (and the sharing one) it has.
    traits: frozenset


def _sharing_query(traits, capacities):
    """The rows of :func:`_sharing_providers`: a sharing provider's
    root, one of its aggregates (or none), the ids of those of trait
    names ``traits`` it has, its root's aggregates, those of its tree's
    providers and, if ``capacities``, its inventories
    (:func:`candidate_folding.folded_inventories`) and their usage
    (:func:`candidate_folding.folded_usage`), folded
    (:func:`candidate_folding.folded_row`), and its id.

    The sharing trait is found by name, a join from its row (its
    unique index): PostgreSQL no longer sees how few providers have it,
    as it did with a literal id, and estimates a provider's traits per
    trait; at 2,000 providers it reads all their traits (2,600 rows)
    rather than the index of trait ids, and starts from the index as
    they grow. A scalar subquery of its id was worse: hash joins of
    every provider and membership.
    """
    sharing_trait = trait.TRAIT.alias('sharing_trait')
    roots = _RP_AGG.alias('root_aggregates')
    return (
        sa.select(candidate_folding.folded_row([
            _ROOT_ID, _RP_AGG.c.aggregate_id,
            candidate_folding.folded_traits(
                name_table.ids_named(trait.TRAIT, traits)),
            sa.select(candidate_folding.aggregated(
                candidate_folding.as_text(roots.c.aggregate_id), ','))
            .where(roots.c.resource_provider_id == _ROOT_ID)
            .correlate(RP).scalar_subquery(),
            _tree_aggregates(),
            *([candidate_folding.folded_inventories(),
               candidate_folding.folded_usage()]
              if capacities else [])]),
            RP.c.id)
        .join(_RP_TRAIT, _RP_TRAIT.c.resource_provider_id == RP.c.id)
        .join(sharing_trait, sharing_trait.c.id == _RP_TRAIT.c.trait_id)
        .outerjoin(_RP_AGG, _RP_AGG.c.resource_provider_id == RP.c.id)
        .where(sharing_trait.c.name == _SHARES))


def _anchors(conn, sharing, shared_by, window, anchored=None):
    """``{sharing provider id: {root id}}`` for the ``{id: root id}`` of
    ``sharing``: its own root, and the roots (within ``window``) of the
    providers in one of its aggregates (``shared_by``: the sharing
    providers of each aggregate, :func:`_sharing_providers`).

    ``anchored``: ``{aggregate id: {root id}}`` of the sharing
    providers' aggregates, read with the window's narrowing
    (:meth:`Narrowing._slots_by_query`); without them (a window narrowed
    on its trees, or whose slots may all reach roots through sharing
    providers alone), the roots of ``sharing``'s aggregates are read
    here, in a statement of their own.
    """
    anchors = {provider_id: {root} for provider_id, root in sharing.items()}
    if anchored is None:
        aggregates = tuple(sorted(
            aggregate_id for aggregate_id, providers in shared_by.items()
            if any(provider_id in sharing for provider_id in providers)))
        if not aggregates:
            return anchors
        anchored = _roots_by_aggregate(kept.execute(conn, _KEPT.get(
            ('anchors', aggregates, window),
            lambda: _anchors_query(aggregates, window),
            len(aggregates))).scalars())
    for aggregate_id, roots in anchored.items():
        for provider_id in shared_by[aggregate_id]:
            if provider_id in anchors:
                anchors[provider_id] |= roots
    return anchors


def _roots_by_aggregate(strings):
    """``{aggregate id: {root id}}`` of the folded rows of
    :func:`_anchors_query`."""
    return {int(aggregate_id): set(map(int, roots.split(',')))
            for aggregate_id, roots in candidate_folding.unfolded_rows(
                strings)}


def _noting_trees(rows, trees):
    """``rows`` of a window's query (:func:`_rows`) without their third
    field, the anchored aggregates of the provider's tree
    (:func:`_tree_aggregates`), noted in ``trees`` (``{root id: the
    field}``, the trees with one)."""
    for row in rows:
        if row[2]:
            trees[int(row[1])] = row[2]
        del row[2]
        yield row


def _trees_by_aggregate(trees, window):
    """``{aggregate id: {root id}}`` of ``trees`` (of
    :func:`_noting_trees`) within ``window``."""
    anchored = collections.defaultdict(set)
    for root, aggregates in trees.items():
        if candidate_windows.holds(window, root):
            for aggregate_id in aggregates.split(','):
                anchored[int(aggregate_id)].add(root)
    return anchored


def _few_serve(serving, loaded):
    """Whether fewer than half the roots whose trees were ``loaded``
    are ``serving`` (a busy cloud): testing the capacity on loaded trees
    then loads more than it keeps, where the window's statement loads
    only the trees that can serve."""
    return len(serving) < len(loaded) / 2


def _tree_aggregates(aggregates=None):
    """SQL: which of ``aggregates`` (ids; None: any) a provider of the
    tree of :data:`RP` is in, their ids joined by ``,`` (None: none;
    repeated if several of the tree are in one, but of ``aggregates``).

    Read beside each provider of a window's narrowing, an index range
    of its tree's providers (the index of their root ids holds their
    ids) and of their memberships: where :func:`_anchors_query` reads
    the provider row of every member of the aggregates.
    """
    part = RP.alias('tree_part')
    query = (sa.select(
                candidate_folding.aggregated(
                    candidate_folding.as_text(_RP_AGG.c.aggregate_id), ',')
                if aggregates is None else candidate_folding.ids_among(
                    _RP_AGG.c.aggregate_id, aggregates))
             .select_from(part)
             .join(_RP_AGG, _RP_AGG.c.resource_provider_id == part.c.id)
             .where(part.c.root_provider_id == _ROOT_ID))
    if aggregates is not None:
        query = query.where(_RP_AGG.c.aggregate_id.in_(aggregates))
    return query.correlate(RP).scalar_subquery()


def _traits_held(trait_ids):
    """SQL: which of ``trait_ids`` the provider of :data:`RP` has, their
    ids joined by ``,`` (None: none)."""
    return (sa.select(candidate_folding.ids_among(_RP_TRAIT.c.trait_id,
                                                  trait_ids))
            .where(_RP_TRAIT.c.resource_provider_id == RP.c.id,
                   _RP_TRAIT.c.trait_id.in_(trait_ids))
            .correlate(RP).scalar_subquery())


def _anchors_query(aggregates, window):
    """The statement of :func:`_anchors`: the roots (within ``window``)
    of the providers of each of ``aggregates``, folded
    (:func:`candidate_folding.folded_rows`), kept built.

    One query for the roots of each aggregate, by aggregate id: the
    database starts from the window's providers or from the
    aggregates' memberships, whichever are fewer (a join from the
    sharing providers through their aggregates started from the
    memberships, 25,000 of them for a window of 4,000 roots at 100,000
    providers). The roots come folded into one string per aggregate:
    there are few aggregates and many roots, and the driver's cost is
    per row.
    """
    return candidate_folding.folded_rows(
        sa.select(_RP_AGG.c.aggregate_id,
                  candidate_folding.aggregated(
                      candidate_folding.as_text(_ROOT_ID), ','))
        .select_from(RP)
        .join(_RP_AGG, _RP_AGG.c.resource_provider_id == RP.c.id)
        .where(_RP_AGG.c.aggregate_id.in_(aggregates),
               *candidate_windows.within(window, _ROOT_ID))
        .group_by(_RP_AGG.c.aggregate_id), 'aggregate_id')


#: The tag of the anchors' rows in a window's narrowing statement
#: (:meth:`Narrowing._window_statement`).
_ANCHORS = 'anchors'
