"""Why GET /allocation_candidates finds what it finds: the numbers of
the explain report (:mod:`placement.reports.explain` words them).

Nothing here decides anew what a candidate is. The conditions are those
the candidate search applies (the builders of :mod:`conditions`
and of :class:`candidate_narrowing.Narrowing`), counted stage by stage
in the database; the trees and candidates come from the search itself
(:class:`candidate_narrowing.Narrowing` over the whole cloud, then
:class:`candidate_loading.Trees`), so the final count is the number
of candidates GET /allocation_candidates returns without a limit.

*Slots* are the narrowing's: one per class of the unsuffixed group (its
classes may come from different providers), one per suffixed group.
Each slot's funnel counts providers: those with inventory of its
classes, then those passing each further condition of the slot in
turn, from one statement per group of a flag per condition and provider
grouped by pattern of flags (all the slots of a group counted at once).
An amount that no inventory could hold even unallocated (what the
search's ``may_match`` asks) makes its capacity flag false without
summing allocations (a slot of that class alone needs no count but that
of the inventories of the class), and a slot no provider passes spares
the search of the trees: when nothing fits, explain reads the
inventories of the classes asked, not every provider's allocations.

Such an amount decides the request: no tree can have a candidate, which
the search knows from one statement of ``EXISTS`` (``may_match``)
without reading the cloud. Explain then counts only the slots asking
such an amount, lists every stage of the others as not counted, and
searches no tree: counting their capacity (every provider's allocations
summed) cost 10 to 200 times the search it explains, and even their
inventories (one count per class) 3 to 6 times.

The request's funnel counts trees (roots): those every slot reaches (its
own providers or a sharing provider shared with it), then those whose
providers meet the unsuffixed group's traits together, those whose root
meets ``root_required``, then those with a candidate once the amounts
are combined, ``same_subtree`` and ``group_policy=isolate`` applied.

A *miss* fails exactly one condition: a provider of a slot, or a tree
that passes every stage but one.
"""

import dataclasses
import typing

import sqlalchemy as sa

from placement.db import models
from placement.objects import candidate_loading
from placement.objects import candidate_narrowing
from placement.objects import candidate_windows
from placement.objects import capacity
from placement.objects import conditions

RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_WHOLE_CLOUD = (None, None)

# Funnel stages of a slot (providers), in order.
INVENTORY = 'inventory'
CAPACITY = 'capacity'
REQUIRED = 'required'
FORBIDDEN = 'forbidden'
MEMBER_OF = 'member_of'
FORBIDDEN_AGGREGATE = 'forbidden_aggregate'
IN_TREE = 'in_tree'
# Funnel stages of the request (trees), in order.
GROUPS = 'groups'
REQUIRED_TOGETHER = 'required_together'
ROOT_REQUIRED = 'root_required'
COMBINED = 'combined'
SAME_SUBTREE = 'same_subtree'
ISOLATE = 'isolate'


class Condition(typing.NamedTuple):
    """One condition of a slot: its stage, what it names (a class, trait
    names, aggregate uuids, a tree's uuid) and its SQL on :data:`RP`."""

    stage: str
    subject: typing.Any
    clause: typing.Any


class Stage(typing.NamedTuple):
    name: str
    count: int


@dataclasses.dataclass(frozen=True)
class Slot:
    """The funnel of one slot."""

    suffix: str
    resources: dict
    #: Providers with inventory of a class of the slot (all providers
    #: for a resourceless group); None if not counted.
    considered: int | None
    funnel: tuple
    #: The stages not counted (then every one, ``funnel`` empty), the
    #: request being decided by an :class:`Impossible` amount of
    #: another slot.
    uncounted: tuple = ()


@dataclasses.dataclass(frozen=True)
class Impossible:
    """An amount of a class asked by a group that no inventory could
    hold even unallocated: the request has no candidate."""

    group: str
    resource_class: str
    amount: int
    #: Providers with inventory of the class.
    providers: int


@dataclasses.dataclass(frozen=True)
class Miss:
    """A provider (or tree, ``group`` None) failing one condition."""

    uuid: str
    name: str
    #: The suffix of the slot's group; None for a tree.
    group: str | None
    kind: str
    #: What the condition names and, for capacity, the inventory's
    #: numbers.
    details: dict


@dataclasses.dataclass(frozen=True)
class Explanation:
    slots: tuple
    #: The :class:`Impossible` amounts asked, which decide the request.
    impossible: tuple
    #: The request's funnel (trees).
    funnel: tuple
    #: Trees reached by every slot, some only through a sharing provider.
    via_sharing: int
    #: Trees with at least one candidate.
    trees: int
    candidates: int
    misses: tuple


def explain(conn, request, max_misses):
    """The :class:`Explanation` of :class:`CandidateRequest` ``request``.

    Unknown resource classes or traits are BadRequest, as for the
    candidates.
    """
    narrowing = candidate_narrowing.Narrowing(conn, request, explaining=True)
    names = narrowing.names
    impossible = _impossible(conn, narrowing, request)
    slots, misses = [], []
    # Groups asking the same (several VFs of one kind, say) have the
    # same funnels and misses, counted once.
    counted = {}
    for group in request.groups:
        key = candidate_narrowing.query_of(group)
        if key not in counted:
            # Misses past the first max_misses are not shown: a later
            # group reads only as many as are still wanted.
            counted[key] = _GroupFunnels(narrowing, group, impossible).read(
                conn, max_misses - len(misses))
        for slot, slot_misses in counted[key]:
            slots.append(dataclasses.replace(slot, suffix=group.suffix))
            misses += [dataclasses.replace(miss, group=group.suffix)
                       for miss in slot_misses]
    # A slot no provider passes reaches no tree: with another such slot,
    # or alone, no tree is reached by every slot but one (a miss), and
    # the request's funnel is empty without a search. A decided request
    # reaches no tree either, and its misses are its impossible slots'
    # own: the trees the other slots reach are not looked for.
    trees = _TreeFunnel(conn, narrowing, names)
    if not impossible:
        empty = sum(1 for slot in slots
                    if slot.funnel and not slot.funnel[-1].count)
        if not empty:
            trees.search(max_misses - len(misses))
        elif empty == 1 and len(slots) > 1:
            trees.walk(max_misses - len(misses))
    misses += trees.misses()
    return Explanation(
        slots=tuple(slots),
        impossible=tuple(
            Impossible(group.suffix, name, amount, impossible[name, amount])
            for group in request.groups
            for name, amount in group.resources.items()
            if (name, amount) in impossible),
        funnel=tuple(trees.funnel),
        via_sharing=trees.via_sharing, trees=trees.with_candidates,
        candidates=trees.candidates, misses=tuple(misses[:max_misses]))


class _GroupFunnels:
    """The funnels and misses of the slots of one request group.

    One statement counts the providers of each pattern of flags, a flag
    per condition of the group: the inventory and the capacity of each
    of its classes, then its other conditions (all its slots are counted
    from it), and returns the first ``max_misses`` providers of each
    pattern in id order: a slot's misses are the first of those whose
    pattern fails one of its conditions only (a second pass over the
    cloud read them before, the whole of it when misses are few).

    A provider's inventory of each class is an outer join (a provider
    has one inventory row of a class at most); the count reads its
    usage of the classes from the sums of every provider's allocations,
    made once (a sum per provider probed costs twice as much on
    PostgreSQL), the misses from a sum per provider read, for them
    alone. The ``(class name, amount)`` in
    ``impossible`` fit no inventory even unallocated
    (:func:`_impossible`): their capacity flag is then false without
    summing any allocations, and the request is decided: its slots but
    those :meth:`_apart` are then not counted, and that statement not
    made.
    """

    def __init__(self, narrowing, group, impossible):
        self.narrowing = narrowing
        self.group = group
        self.classes = list(group.resources)
        self.inventories = [_INV.alias(f'inventory_{index}')
                            for index in range(len(self.classes))]
        #: ``{(class name, amount): providers with inventory of the
        #: class}`` of the amounts no inventory could hold
        #: (:func:`_impossible`).
        self.impossible = impossible
        self.possible = {name for name, amount in group.resources.items()
                         if (name, amount) not in impossible}
        #: The group's conditions other than its classes'.
        self.others = _other_conditions(narrowing, group)

    def read(self, conn, max_misses):
        """``[(Slot, [Miss])]`` of each slot of the group, at most
        ``max_misses`` misses in all."""
        slots = candidate_narrowing.slot_resources(self.group)
        apart = list(map(self._apart, slots))
        counted = ([] if self.impossible or all(apart)
                   else self._patterns(conn, max_misses))
        found = []
        for resources, is_apart in zip(slots, apart, strict=True):
            stages = self._stages(resources)
            if is_apart:
                # No provider of the slot has the capacity: the
                # conditions after it count none, whatever they are;
                # taken as met, they leave misses to look for.
                patterns = [([True, False] + [True] * (len(stages) - 2),
                             self.impossible[self._asked(resources)], None)]
            elif self.impossible:
                found.append((self._uncounted_slot(resources, stages), []))
                continue
            else:
                indexes = {self.classes.index(name) for name in resources}
                patterns = [(self._passed(stages, flags), providers, first)
                            for flags, providers, first in counted
                            if not indexes
                            or any(flags[index] for index in indexes)]
            slot = self._slot(resources, stages, [
                (passed, providers) for passed, providers, _ in patterns])
            misses = []
            if max_misses > 0 and any(passed.count(False) == 1 and providers
                                      for passed, providers, _ in patterns):
                misses = (self._misses(conn, resources, max_misses)
                          if is_apart
                          else self._first_misses(resources, stages,
                                                  patterns, max_misses))
                max_misses -= len(misses)
            found.append((slot, misses))
        return found

    def _asked(self, resources):
        """The ``(class name, amount)`` of a slot of one class."""
        return next(iter(resources.items()))

    def _apart(self, resources):
        """Whether the slot asking ``resources`` is counted without the
        statement of :meth:`_patterns`: it asks for one class an amount
        no inventory could hold, and its providers are those with
        inventory of it, whose number :func:`_impossible` read."""
        return len(resources) == 1 and self._asked(resources) in (
            self.impossible)

    def _patterns(self, conn, most):
        """``[(flags, providers, first)]``: the number of providers of the
        group with each pattern of flags (:attr:`flags`), and the rows
        of the first ``most`` of them (at least one) in id order, with
        what a miss shows (:meth:`_first_misses`)."""
        usage = _usage({index: self.narrowing.class_ids[name]
                        for index, name in enumerate(self.classes)
                        if name in self.possible})

        def summed(index):
            return sa.func.coalesce(usage.c[f'used_{index}'], 0)

        flags = [_has(inventory) for inventory in self.inventories]
        flags += [self._capacity(index, summed)
                  for index in range(len(self.classes))]
        flags += [condition.clause for condition in self.others]
        every = range(len(self.classes))
        providers, looked_at = self._providers(every), self._looked_at(every)
        provider_id = RP.c.id
        if len(self.classes) == 1:
            # From the inventories of the class, each with its provider
            # outer joined: the databases leave the provider rows unread
            # when no condition needs them.
            inventory = self.inventories[0]
            provider_id = inventory.c.resource_provider_id
            providers = inventory.outerjoin(RP, RP.c.id == provider_id)
            looked_at = [inventory.c.resource_class_id
                         == self.narrowing.class_ids[self.classes[0]]]
        if usage is not None:
            providers = providers.outerjoin(
                usage, usage.c.resource_provider_id == provider_id)
        counted = (sa.select(provider_id.label('provider_id'), *(
                       sa.case((flag, 1), else_=0).label(f'f{index}')
                       for index, flag in enumerate(flags)),
                       *self._numbers(every))
                   .select_from(providers).where(*looked_at)
                   .subquery('flags'))
        pattern = [counted.c[f'f{index}'] for index in range(len(flags))]
        # The first rows of each pattern, numbered over the flags
        # counted once: the misses need no second pass over the cloud;
        # what only a miss shows is read for those rows alone.
        ranked = sa.select(
            counted, sa.func.count().over(partition_by=pattern)
            .label('providers'),
            sa.func.row_number().over(
                partition_by=pattern, order_by=counted.c.provider_id)
            .label('position')).subquery('ranked')
        named = RP.alias('named')

        def of_provider(column):
            return (sa.select(column)
                    .where(named.c.id == ranked.c.provider_id)
                    .scalar_subquery())

        rows = conn.execute(
            sa.select(ranked, of_provider(named.c.uuid).label('uuid'),
                      of_provider(named.c.name).label('name'), *(
                          self._used(index, ranked.c.provider_id)
                          .label(f'used_{index}') for index in every))
            .where(ranked.c.position <= max(most, 1))
            .order_by(ranked.c.provider_id))
        found = {}
        for row in rows:
            flags = tuple(bool(row._mapping[column.name])
                          for column in pattern)
            _, first = found.setdefault(flags, (row.providers, []))
            first.append(row)
        return [(flags, providers, first)
                for flags, (providers, first) in found.items()]

    def _first_misses(self, resources, stages, patterns, most):
        """The first ``most`` providers (by id) of the slot asking
        ``resources`` that fail one of its ``stages`` only, as
        :class:`Miss`, from the rows of :meth:`_patterns` (``[(passed,
        providers, first rows)]``)."""
        failing = sorted(
            ((row, stages[passed.index(False)]) for passed, _, first
             in patterns if passed.count(False) == 1 for row in first),
            key=lambda found: found[0].provider_id)
        return [self._miss(row, stage, subject)
                for row, (stage, subject, _) in failing[:most]]

    def _miss(self, row, stage, subject):
        """The :class:`Miss` of the provider of ``row`` (with the columns
        of :meth:`_numbers`) failing ``stage`` on ``subject``."""
        details = {'subject': subject}
        if stage == CAPACITY:
            index = self.classes.index(subject)
            shown = row._mapping
            details.update(_capacity_numbers(
                {name: shown[f'{name}_{index}'] for name in _NUMBERS},
                int(shown[f'used_{index}'])),
                asked=self.group.resources[subject])
        return Miss(row.uuid, row.name, self.group.suffix, stage, details)

    def _numbers(self, indexes):
        """Columns: the numbers of the provider's inventory of each class
        at ``indexes`` a capacity miss shows (its usage is
        :meth:`_used`)."""
        return [self.inventories[index].c[name].label(f'{name}_{index}')
                for index in indexes for name in _NUMBERS]

    def _providers(self, indexes):
        """:data:`RP` outer joined to its inventory of the classes at
        ``indexes``."""
        providers = RP
        for index in indexes:
            inventory = self.inventories[index]
            providers = providers.outerjoin(inventory, sa.and_(
                inventory.c.resource_provider_id == RP.c.id,
                inventory.c.resource_class_id
                == self.narrowing.class_ids[self.classes[index]]))
        return providers

    def _looked_at(self, indexes):
        """Conditions: the provider is one a slot of the classes at
        ``indexes`` looks at, one with inventory of one of them (any,
        for a resourceless group)."""
        if not self.classes:
            return []
        return [sa.or_(*(_has(self.inventories[index])
                         for index in indexes))]

    def _capacity(self, index, used):
        """Condition: the provider's inventory of the class at ``index``
        can serve the amount asked, ``used(index)`` being allocated
        (false if no inventory could)."""
        name = self.classes[index]
        if name not in self.possible:
            return sa.false()
        inventory = self.inventories[index]
        return sa.and_(_has(inventory), *capacity.fits_sql(
            inventory.c, used(index),
            sa.literal(self.group.resources[name], sa.Integer)))

    def _stages(self, resources):
        """``[(stage, subject, index of the flag)]`` of the conditions of
        the slot asking ``resources``, in funnel order (index: that of
        the class for its inventory and capacity)."""
        indexes = [self.classes.index(name) for name in resources]
        return ([(INVENTORY, name, index)
                 for name, index in zip(resources, indexes, strict=True)]
                + [(CAPACITY, name, index)
                   for name, index in zip(resources, indexes, strict=True)]
                + [(condition.stage, condition.subject, position)
                   for position, condition in enumerate(self.others)])

    def _passed(self, stages, flags):
        """Whether the provider of the counted ``flags`` passes each of
        ``stages`` (:meth:`_stages`). Without inventory of a class a
        provider fails its inventory condition only: the capacity
        condition asks about the inventory there is."""
        count = len(self.classes)
        found = []
        for stage, _, index in stages:
            if stage == INVENTORY:
                found.append(flags[index])
            elif stage == CAPACITY:
                found.append(flags[count + index] or not flags[index])
            else:
                found.append(flags[2 * count + index])
        return found

    def _uncounted_slot(self, resources, stages):
        """The :class:`Slot` asking ``resources`` of a decided request:
        none of its ``stages`` (:meth:`_stages`) counted."""
        return Slot(suffix=self.group.suffix, resources=dict(resources),
                    considered=None, funnel=(), uncounted=tuple(
                        dict.fromkeys(stage for stage, _, _ in stages)))

    def _slot(self, resources, stages, patterns):
        """The :class:`Slot` asking ``resources``, from the number of its
        providers passing each of ``stages`` (:meth:`_stages`) or not:
        ``[([passed], providers)]``."""
        names, ends = [], {}
        for position, (stage, _, _) in enumerate(stages):
            if stage not in ends:
                names.append(stage)
            ends[stage] = position + 1
        return Slot(
            suffix=self.group.suffix, resources=dict(resources),
            considered=sum(providers for _, providers in patterns),
            funnel=tuple(Stage(stage, sum(
                providers for passed, providers in patterns
                if all(passed[:ends[stage]]))) for stage in names))

    def _misses(self, conn, resources, most):
        """The first ``most`` providers (by id) of the slot of
        :meth:`_apart` asking ``resources``, failing its capacity only
        (meeting the group's other conditions), as :class:`Miss`."""
        name, _ = self._asked(resources)
        index = self.classes.index(name)
        rows = conn.execute(
            sa.select(RP.c.uuid, RP.c.name, *self._numbers([index]),
                      self._used(index, RP.c.id).label(f'used_{index}'))
            .select_from(self._providers([index]))
            .where(_has(self.inventories[index]),
                   *(condition.clause for condition in self.others))
            .order_by(RP.c.id).limit(most))
        return [self._miss(row, CAPACITY, name) for row in rows]

    def _used(self, index, provider_id):
        """The amount of the class at ``index`` allocated from the
        provider ``provider_id`` (a column), summed for it alone."""
        return (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
                .where(_ALLOC.c.resource_provider_id == provider_id,
                       _ALLOC.c.resource_class_id
                       == self.narrowing.class_ids[self.classes[index]])
                .scalar_subquery())


#: The columns of an inventory a capacity miss shows.
_NUMBERS = ('total', 'reserved', 'allocation_ratio', 'min_unit',
            'max_unit', 'step_size')


def _capacity_numbers(inventory, used):
    """The details of a capacity miss on ``inventory`` (``{column:
    value}`` of :data:`_NUMBERS`), ``used`` being allocated."""
    limit = capacity.capacity(inventory['total'], inventory['reserved'],
                              inventory['allocation_ratio'])
    # An inventory lowered under its usage has nothing free (as the
    # headroom report counts it), and is over by the rest.
    return {'capacity': limit, 'used': used, 'free': max(limit - used, 0),
            'over_capacity': max(used - limit, 0),
            'min_unit': inventory['min_unit'],
            'max_unit': inventory['max_unit'],
            'step_size': inventory['step_size']}


def _has(inventory):
    """Condition: the outer joined ``inventory`` row exists."""
    return inventory.c.resource_provider_id.isnot(None)


def _usage(class_ids):
    """Subquery: per provider id, the amount allocated of each class of
    ``class_ids`` (``{index: class id}``) in column ``used_<index>``;
    None without classes."""
    if not class_ids:
        return None
    return (sa.select(_ALLOC.c.resource_provider_id, *(
                sa.func.sum(sa.case(
                    (_ALLOC.c.resource_class_id == class_id, _ALLOC.c.used),
                    else_=0)).label(f'used_{index}')
                for index, class_id in class_ids.items()))
            .where(_ALLOC.c.resource_class_id.in_(
                sorted(set(class_ids.values()))))
            .group_by(_ALLOC.c.resource_provider_id)
            .subquery('usage'))


def _other_conditions(narrowing, group):
    """The :class:`Condition` list of ``group`` other than its classes',
    in funnel order, on the provider of :data:`RP`: one per trait set,
    trait, aggregate set and aggregate, and in_tree (the unsuffixed
    group's required traits are met by its providers together: the
    request's funnel counts them)."""
    found = []
    spans_root = not group.suffix

    def has_any(names):
        return conditions.has_any_trait(RP.c.id,
                                        narrowing.trait_ids_of(names))

    def member_of(uuids):
        return conditions.member_of_any(
            conditions.known_ids(uuids, narrowing.aggregate_ids),
            with_root=spans_root)

    if group.suffix or not group.resources:
        found += [Condition(REQUIRED, sorted(names), has_any(names))
                  for names in group.required_traits]
    found += [Condition(FORBIDDEN, name, ~has_any([name]))
              for name in sorted(group.forbidden_traits)]
    found += [Condition(MEMBER_OF, sorted(uuids), member_of(uuids))
              for uuids in group.member_of]
    found += [Condition(FORBIDDEN_AGGREGATE, uuid, ~member_of([uuid]))
              for uuid in sorted(group.forbidden_aggregates)]
    if group.in_tree is not None:
        found.append(Condition(IN_TREE, group.in_tree,
                               conditions.in_tree(group.in_tree)))
    return found


def _impossible(conn, narrowing, request):
    """``{(class name, amount): providers with inventory of the class}``
    of the amounts asked that no inventory could hold even unallocated,
    from one statement of uncorrelated EXISTS (each stops at the first
    inventory that could hold the amount; the inventories of the class
    are counted only when none could)."""
    asked = sorted({(name, amount) for group in request.groups
                    for name, amount in group.resources.items()})
    if not asked:
        return {}

    def held(name, amount):
        class_id = narrowing.class_ids[name]
        return sa.case(
            (conditions.could_ever_fit(class_id, amount), sa.null()),
            else_=sa.select(sa.func.count()).select_from(_INV)
            .where(_INV.c.resource_class_id == class_id).scalar_subquery())

    found = conn.execute(sa.select(*(
        held(name, amount) for name, amount in asked))).one()
    return {pair: count for pair, count in zip(asked, found, strict=True)
            if count is not None}


class _TreeFunnel:
    """The request's funnel, from the candidate search over the whole
    cloud (:meth:`candidate_narrowing.Narrowing.narrow` of one window
    holding every root, then the assembly of each tree), and its misses.
    """

    def __init__(self, conn, narrowing, names):
        """Every stage empty until :meth:`search`."""
        self.conn = conn
        self.narrowing = narrowing
        self.names = names
        request = narrowing.request
        self.rules = candidate_loading.tree_rules(request)
        stages = [GROUPS]
        if narrowing.collective:
            stages.append(REQUIRED_TOGETHER)
        if request.root_required or request.root_forbidden:
            stages.append(ROOT_REQUIRED)
        stages.append(COMBINED)
        if request.same_subtree:
            stages.append(SAME_SUBTREE)
        if self.rules.isolate:
            stages.append(ISOLATE)
        self.stages = stages
        #: The roots each slot reaches (of the window narrowed last).
        self.reach = []
        #: ``{stage: roots}`` of each stage's own condition, for the
        #: trees that fail only one (of the window narrowed last).
        self.meeting = {}
        #: ``[(stage, roots passing it)]`` of the stages so far.
        self.passed = [(stage, set()) for stage in stages]
        self.via_sharing = self.with_candidates = self.candidates = 0
        #: ``{root id: (stage, details)}`` of the trees missed so far.
        self.failed = {}
        #: Roots of which a provider serves a slot (not only sharing
        #: providers of other trees): a candidate must use one.
        self.owned = set()

    def search(self, most):
        """Every stage, and the first ``most`` misses."""
        narrowing = self.narrowing
        final = self._narrow(_WHOLE_CLOUD)
        own = [set(slot.roots.values()) for slot in narrowing.slots]
        reached = set.intersection(*self.reach) if self.reach else set()
        self.via_sharing = sum(
            1 for root in reached
            if any(root not in roots for roots in own))
        self.owned = set().union(*own)
        self.passed = [(GROUPS, reached)]
        for stage, roots in self.meeting.items():
            self.passed.append((stage, self.passed[-1][1] & roots))
        roots = sorted(final)
        self.trees = candidate_loading.Trees(self.conn, narrowing, self.names)
        rules = self.rules
        relaxed = [(COMBINED, dataclasses.replace(
            rules, isolate=False, same_subtree=()))]
        if SAME_SUBTREE in self.stages:
            relaxed.append((SAME_SUBTREE, dataclasses.replace(
                rules, isolate=False)))
        if ISOLATE in self.stages:
            relaxed.append((ISOLATE, rules))
        for stage, stage_rules in relaxed[:-1]:
            roots = [root for root, first
                     in self._candidates(roots, stage_rules)
                     if first is not None]
            self.passed.append((stage, set(roots)))
        with_candidates, self.candidates = self._count(roots, relaxed[-1][1])
        self.passed.append((relaxed[-1][0], with_candidates))
        self.with_candidates = len(with_candidates)
        self._reach_misses(_WHOLE_CLOUD, most)
        self._stage_misses(most)

    def walk(self, most):
        """The first ``most`` misses when one slot of several reaches no
        tree: no tree passes the first stage, and the misses are the
        trees every other slot reaches (meeting the stages of their own
        conditions). The roots are narrowed a window at a time, in id
        order, until ``most`` are found (the windows of a search with
        a limit of ``most``): the trees of the cloud are not all
        searched when misses are many."""
        if most <= 0:
            return
        narrowing = self.narrowing
        for window in candidate_windows.windows(
                self.conn, most, False, candidate_windows.Progress(),
                narrowing.members_share):
            self._narrow(window)
            self._reach_misses(window, most)
            if len(self.failed) >= most:
                return

    def _narrow(self, window):
        """:meth:`candidate_narrowing.Narrowing.narrow` of ``window``
        (its result), with the reach of each slot and the roots meeting
        the stages of their own conditions."""
        narrowing = self.narrowing
        final = narrowing.narrow(window)
        self.reach = [narrowing.reachable_roots(slot)
                      for slot in narrowing.slots]
        self.meeting = {}
        if REQUIRED_TOGETHER in self.stages:
            self.meeting[REQUIRED_TOGETHER] = (
                narrowing.meeting_collective_traits())
        if ROOT_REQUIRED in self.stages:
            self.meeting[ROOT_REQUIRED] = narrowing.roots_with_root_traits(
                window)
        return final

    def _candidates(self, roots, rules, first_only=True):
        """``(root, first candidate or None)`` of each of ``roots``, or
        ``(root, generator)`` without ``first_only``, under ``rules``;
        the trees loaded by one pass serve the next."""
        trees = self.trees
        trees.rules = rules
        for root, generator in trees.candidates_by_root([roots], None):
            yield root, next(generator, None) if first_only else generator

    def _count(self, roots, rules):
        """``(trees with a candidate, candidates)``, the candidates
        counted as they are made, not kept."""
        with_candidates, count = set(), 0
        for root, generator in self._candidates(roots, rules, False):
            for _candidate in generator:
                count += 1
                with_candidates.add(root)
        return with_candidates, count

    @property
    def funnel(self):
        return [Stage(stage, len(roots)) for stage, roots in self.passed]

    def misses(self):
        """The :class:`Miss` of each tree missed."""
        return self._named(self.failed)

    def _reach_misses(self, window, most):
        """Trees of ``window`` reached by every slot but one (and
        meeting the stages of their own conditions), or by every slot
        and failing one of those stages, in id order, while fewer than
        ``most`` are missed."""
        failed = self.failed
        slots = self.narrowing.slots
        for root in sorted(root for root in set().union(*self.reach)
                           if candidate_windows.holds(window, root)):
            if len(failed) >= most:
                return
            missing = [index for index, roots
                       in enumerate(self.reach) if root not in roots]
            unmet = [stage for stage, roots in self.meeting.items()
                     if root not in roots]
            if len(missing) + len(unmet) != 1:
                continue
            if missing:
                slot = slots[missing[0]]
                failed[root] = (GROUPS, {
                    'subject': slot.group.suffix,
                    'resources': dict(slot.resources)})
            elif unmet[0] == REQUIRED_TOGETHER:
                failed[root] = (unmet[0], {
                    'subject': self._unmet_together(root)})
            else:
                failed[root] = (unmet[0], {'subject': None})

    def _stage_misses(self, most):
        """Trees passing every stage up to an assembly rule, and failing
        it, while fewer than ``most`` are missed."""
        previous = self.passed[0][1]
        for stage, roots in self.passed[1:]:
            if stage not in self.meeting:
                for root in sorted(previous - roots)[
                        :max(most - len(self.failed), 0)]:
                    self.failed[root] = (stage, self._stage_details(
                        stage, root))
            previous = roots

    def _stage_details(self, stage, root):
        """The details of ``root``'s tree failing assembly rule
        ``stage``: of :data:`COMBINED`, whether a provider of its own
        serves a slot (a tree reached only through sharing providers
        has none, and their candidates are those of their own trees)."""
        if stage == COMBINED:
            return {'subject': None, 'own_providers': root in self.owned}
        return {'subject': None}

    def _unmet_together(self, root):
        """The trait sets (sorted names) of the unsuffixed group that
        no provider of it reaching ``root`` meets."""
        narrowing = self.narrowing
        met = set()
        for slot in narrowing.slots:
            for provider_id, reached in narrowing.reached(
                    slot, slot.traits_met):
                if reached == root:
                    met.update(slot.traits_met[provider_id])
        return [sorted(names) for index, names
                in enumerate(narrowing.collective) if index not in met]

    def _named(self, failed):
        if not failed:
            return []
        rows = dict((row.id, row) for row in self.conn.execute(
            sa.select(RP.c.id, RP.c.uuid, RP.c.name)
            .where(RP.c.id.in_(sorted(failed)))))
        return [Miss(rows[root].uuid, rows[root].name, None, stage, details)
                for root, (stage, details) in failed.items()]

