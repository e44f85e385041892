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
turn, in one statement of a flag per condition and provider grouped by
pattern of flags. An amount that no inventory could hold even
unallocated (what the search's ``may_match`` asks) makes its capacity
flag false without summing allocations, and a slot no provider passes
spares the search of the trees: when nothing fits, explain reads the
inventories of the classes asked, not every provider's allocations. The
request's funnel counts trees (roots): those every slot reaches (its
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
    #: for a resourceless group).
    considered: int
    funnel: tuple


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
        for resources in candidate_narrowing.slot_resources(group):
            key = (candidate_narrowing.query_of(group),
                   tuple(sorted(resources.items())))
            if key not in counted:
                counted[key] = _slot(conn, narrowing, group, resources,
                                     max_misses, impossible)
            slot, slot_misses = counted[key]
            slots.append(dataclasses.replace(slot, suffix=group.suffix))
            misses += [dataclasses.replace(miss, group=group.suffix)
                       for miss in slot_misses]
    # A slot no provider passes reaches no tree: with another such slot,
    # or alone, no tree is reached by every slot but one (a miss), and
    # the request's funnel is empty without a search.
    empty = sum(1 for slot in slots
                if slot.funnel and not slot.funnel[-1].count)
    trees = _TreeFunnel(conn, narrowing, names,
                        search=not empty or (empty == 1 and len(slots) > 1))
    misses += trees.misses(max_misses)
    return Explanation(
        slots=tuple(slots), funnel=tuple(trees.funnel),
        via_sharing=trees.via_sharing, trees=trees.with_candidates,
        candidates=trees.candidates, misses=tuple(misses[:max_misses]))


def slot_conditions(narrowing, group, resources, impossible=frozenset()):
    """The :class:`Condition` list of the slot of ``group`` asking
    ``resources``, in funnel order: those the narrowing applies to a
    provider of the slot, one per class, trait set, trait, aggregate set
    and aggregate (the unsuffixed group's required traits are met by its
    providers together: the request's funnel counts them).

    The conditions are on the providers the slot looks at, those with
    inventory of one of its classes (:func:`_considered`): with one
    class, they all have it. The ``(class name, amount)`` in
    ``impossible`` fit no inventory even unallocated
    (:func:`_impossible`): their capacity condition is then the same
    without summing any allocations.
    """
    found = []
    spans_root = not group.suffix
    one_class = len(resources) == 1

    def has_inventory(name):
        return (sa.true() if one_class
                else _has_inventory(narrowing.class_ids[name]))

    for name in resources:
        found.append(Condition(INVENTORY, name, has_inventory(name)))
    # Without inventory of the class a provider fails its inventory
    # condition only: the capacity condition asks about the inventory
    # there is.
    for name, amount in resources.items():
        fits = (sa.false() if (name, amount) in impossible
                else conditions.has_capacity(
                    RP.c.id, narrowing.class_ids[name], amount))
        found.append(Condition(CAPACITY, name,
                               fits | ~has_inventory(name)))

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


def _has_inventory(class_id):
    return conditions.exists(_INV.c.resource_provider_id == RP.c.id,
                                  _INV.c.resource_class_id == class_id)


def _considered(narrowing, resources):
    """Condition: the provider is one a slot of ``resources`` looks at
    (a semi-join: MariaDB probes each provider for an EXISTS, at twice
    the cost over the whole cloud)."""
    if not resources:
        return sa.true()
    return RP.c.id.in_(sa.select(_INV.c.resource_provider_id).where(
        _INV.c.resource_class_id.in_(
            sorted(narrowing.class_ids[name] for name in resources))))


def _slot(conn, narrowing, group, resources, max_misses, impossible):
    """The :class:`Slot` and the misses (at most ``max_misses``) of one
    slot, from a flag per provider and condition: one statement counts
    the providers of each pattern of flags, and, when some fail one
    condition only, a second reads the first ``max_misses`` of them
    (in id order: it stops there).

    ``impossible``: as for :func:`slot_conditions`.
    """
    found = slot_conditions(narrowing, group, resources, impossible)
    flags = [sa.case((condition.clause, 1), else_=0).label(f'f{index}')
             for index, condition in enumerate(found)]
    considered = _considered(narrowing, resources)
    counted = (sa.select(*flags).select_from(RP).where(considered)
               .subquery('flags'))
    columns = list(counted.c)
    patterns = [(tuple(row[:-1]), row[-1]) for row in conn.execute(
        sa.select(*columns, sa.func.count()).group_by(*columns))]
    stages, ends = [], {}
    for index, condition in enumerate(found):
        if condition.stage not in ends:
            stages.append(condition.stage)
        ends[condition.stage] = index + 1
    slot = Slot(
        suffix=group.suffix, resources=dict(resources),
        considered=sum(providers for _, providers in patterns),
        funnel=tuple(Stage(stage, sum(
            providers for pattern, providers in patterns
            if all(pattern[:ends[stage]]))) for stage in stages))
    missed = []
    if max_misses and any(sum(pattern) == len(found) - 1
                          for pattern, _ in patterns):
        missed = conn.execute(
            sa.select(RP.c.id, RP.c.uuid, RP.c.name, *flags)
            .where(considered, sum((flag.element for flag in flags),
                                   sa.literal(0)) == len(found) - 1)
            .order_by(RP.c.id).limit(max_misses)).all()
    numbers = _inventories(conn, [row.id for row in missed])
    misses = []
    for row in missed:
        condition = found[list(row[3:]).index(0)]
        details = {'subject': condition.subject}
        if condition.stage == CAPACITY:
            details.update(numbers.get((row.id, condition.subject), {}),
                           asked=resources[condition.subject])
        misses.append(Miss(row.uuid, row.name, group.suffix,
                           condition.stage, details))
    return slot, misses


def _impossible(conn, narrowing, request):
    """The ``(class name, amount)`` asked that no inventory could hold
    even unallocated, from one statement of uncorrelated EXISTS (each
    stops at the first inventory that could hold it)."""
    asked = sorted({(name, amount) for group in request.groups
                    for name, amount in group.resources.items()})
    if not asked:
        return {}
    fits = conn.execute(sa.select(*(
        conditions.could_ever_fit(narrowing.class_ids[name], amount)
        for name, amount in asked))).one()
    return {pair for pair, fit in zip(asked, fits, strict=True) if not fit}


def _inventories(conn, provider_ids):
    """``{(provider id, class name): numbers}`` of the inventories of
    ``provider_ids``, with their usage, in one statement."""
    if not provider_ids:
        return {}
    used = (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
            .where(_ALLOC.c.resource_provider_id
                   == _INV.c.resource_provider_id,
                   _ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())
    rc = models.ResourceClass.__table__
    rows = conn.execute(
        sa.select(_INV.c.resource_provider_id, rc.c.name, _INV.c.total,
                  _INV.c.reserved, _INV.c.allocation_ratio,
                  _INV.c.min_unit, _INV.c.max_unit, _INV.c.step_size,
                  used.label('used'))
        .join(rc, rc.c.id == _INV.c.resource_class_id)
        .where(_INV.c.resource_provider_id.in_(sorted(set(provider_ids)))))
    found = {}
    for row in rows:
        capacity = int((row.total - row.reserved) * row.allocation_ratio)
        used = int(row.used)
        found[row.resource_provider_id, row.name] = {
            'capacity': capacity, 'used': used,
            # An inventory lowered under its usage has nothing free (as
            # the headroom report counts it), and is over by the rest.
            'free': max(capacity - used, 0),
            'over_capacity': max(used - capacity, 0),
            'min_unit': row.min_unit, 'max_unit': row.max_unit,
            'step_size': row.step_size}
    return found


class _TreeFunnel:
    """The request's funnel, from the candidate search over the whole
    cloud (:meth:`candidate_narrowing.Narrowing.narrow` of one window
    holding every root, then the assembly of each tree)."""

    def __init__(self, conn, narrowing, names, search=True):
        """``search`` False: no tree can pass the first stage (nor fail
        it alone); every stage is then empty without a statement."""
        self.conn = conn
        self.narrowing = narrowing
        self.names = names
        request = narrowing.request
        rules = candidate_loading.tree_rules(request)
        stages = [GROUPS]
        if narrowing.collective:
            stages.append(REQUIRED_TOGETHER)
        if request.root_required or request.root_forbidden:
            stages.append(ROOT_REQUIRED)
        stages.append(COMBINED)
        if request.same_subtree:
            stages.append(SAME_SUBTREE)
        if rules.isolate:
            stages.append(ISOLATE)
        self.stages = stages
        #: The roots each slot reaches.
        self.reach = []
        #: ``{stage: roots}`` of each stage's own condition, for the
        #: trees that fail only one.
        self.meeting = {}
        #: ``[(stage, roots passing it)]`` of the stages so far.
        self.passed = [(stage, set()) for stage in stages]
        self.via_sharing = self.with_candidates = self.candidates = 0
        if search:
            self._search(rules)

    def _search(self, rules):
        narrowing = self.narrowing
        final = narrowing.narrow(_WHOLE_CLOUD)
        reach = [narrowing.reachable_roots(slot)
                 for slot in narrowing.slots]
        own = [set(slot.roots.values()) for slot in narrowing.slots]
        reached = set.intersection(*reach) if reach else set()
        self.via_sharing = sum(
            1 for root in reached
            if any(root not in roots for roots in own))
        self.passed = [(GROUPS, reached)]
        if REQUIRED_TOGETHER in self.stages:
            self._stage(REQUIRED_TOGETHER,
                        narrowing.meeting_collective_traits())
        if ROOT_REQUIRED in self.stages:
            self._stage(ROOT_REQUIRED,
                        narrowing.roots_with_root_traits(_WHOLE_CLOUD))
        roots = sorted(final)
        self.trees = candidate_loading.Trees(self.conn, narrowing, self.names)
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
        self.reach = reach

    def _stage(self, stage, meeting):
        self.meeting[stage] = meeting
        self.passed.append((stage, self.passed[-1][1] & meeting))

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

    def misses(self, most):
        """Trees failing one stage only: reached by every slot but one
        (and meeting the stages of their own conditions), failing only
        one of those, or passing every stage up to an assembly rule."""
        failed = {}
        slots = self.narrowing.slots
        reached_by_some = set().union(*self.reach)
        for root in sorted(reached_by_some):
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
            if len(failed) >= most:
                break
        previous = self.passed[0][1]
        for stage, roots in self.passed[1:]:
            if stage not in self.meeting:
                for root in sorted(previous - roots)[:most - len(failed)]:
                    failed[root] = (stage, {'subject': None})
            previous = roots
        return self._named(dict(list(failed.items())[:most]))

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

