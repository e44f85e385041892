"""Assembly of the allocation candidates of one provider tree.

SQL has already narrowed, per request group and resource class, the
providers that can serve it on their own (capacity, min/max/step, the
group's traits and aggregates). What is left is combinatorial and done
here, in plain Python, lazily: :meth:`Search.candidates` is a generator
that makes one choice per :class:`Slot` (depth first, pruning as soon
as a partial choice breaks a rule), so asking for ten candidates of a
wide tree costs about ten candidates of work, not every combination.

The rules checked here are those that involve several providers at
once: capacity and max_unit summed over groups that take the same class
from the same provider, ``group_policy=isolate``, the unsuffixed
group's required traits (satisfied by the providers of that group
together),
``same_subtree``, one allocated provider per tree (sharing ones too)
before 1.29 (``nested=False``),
and that a candidate uses the tree it is built for.
"""

import collections
import dataclasses
import itertools
import typing

from placement.objects import candidate_request
from placement.objects import capacity


class Provider(typing.NamedTuple):
    """What assembly and summaries need to know of one provider (the
    provider summaries show it as it is)."""

    id: int
    uuid: str
    parent_id: int | None
    root_id: int
    parent_uuid: str | None
    root_uuid: str
    #: ``{class name: Inventory}``.
    inventories: dict
    #: Trait names, in the order the traits were created.
    traits: tuple


class Inventory(typing.NamedTuple):
    """What assembly, narrowing by capacity (:func:`serves`) and the
    summaries need to know of one inventory of a provider."""

    #: :func:`placement.objects.capacity.capacity`.
    capacity: int
    used: int
    #: The capacity less what is used.
    free: int
    max_unit: int
    min_unit: int
    step_size: int


def meets_traits(traits, required, forbidden=frozenset()):
    """Whether the trait names ``traits`` (a set) hold one of each set
    of ``required`` and none of ``forbidden``: what
    :func:`placement.objects.conditions.trait_conditions` ask the
    database."""
    return (all(not traits.isdisjoint(names) for names in required)
            and traits.isdisjoint(forbidden))


def serves(inventories, resources):
    """Whether a provider of ``inventories`` (those of a
    :class:`Provider`) can serve ``resources`` (``{class name: amount}``)
    on its own now: what the narrowing's capacity conditions
    (:func:`placement.objects.conditions.has_capacity`) ask the
    database, of a provider loaded."""
    for name, amount in resources.items():
        inventory = inventories.get(name)
        if (inventory is None or amount > inventory.free
                or not capacity.allows(inventory, amount)):
            return False
    return True


class Slot(typing.NamedTuple):
    """One choice: the provider of one class of the unsuffixed group, or
    the provider of a whole suffixed group (resourceless or not). The
    providers it may choose are given per tree (:meth:`Search.candidates`)."""

    suffix: str
    #: ``{class name: amount}``; empty for a resourceless group.
    resources: dict


@dataclasses.dataclass(frozen=True)
class Rules:
    """The request-wide rules, as assembly needs them."""

    isolate: bool = False
    #: Sets of trait names the unsuffixed group's providers together have
    #: one of each of.
    unsuffixed_required: tuple = ()
    #: Sets of suffixes (frozensets) whose providers share a subtree.
    same_subtree: tuple = ()
    nested: bool = True


class _Choice:
    """The partial choice being built; undone slot by slot on backtrack.

    Counters rather than sets, because with ``group_policy=none`` one
    provider may serve several slots.
    """

    def __init__(self, providers):
        self.providers = providers
        self.chosen = []                        # provider id per slot
        self.amounts = collections.Counter()    # (provider id, class)
        self.suffixed = collections.Counter()   # by suffixed slots
        self.allocating = collections.Counter()  # allocated from

    def fits(self, slot, provider_id, rules):
        provider = self.providers[provider_id]
        if rules.isolate and slot.suffix and self.suffixed[provider_id]:
            return False
        if (not rules.nested and slot.resources
                and self._shares_tree(provider)):
            return False
        return all(
            self.amounts[provider_id, name] + amount
            <= min(provider.inventories[name][2:4])
            for name, amount in slot.resources.items())

    def _shares_tree(self, provider):
        """Another provider of the tree of ``provider`` is allocated
        from (before 1.29 a candidate takes from one per tree)."""
        return any(other != provider.id
                   and self.providers[other].root_id == provider.root_id
                   for other in self.allocating)

    def push(self, slot, provider_id):
        self._count(slot, provider_id, 1)
        self.chosen.append(provider_id)

    def pop(self, slot):
        self._count(slot, self.chosen.pop(), -1)

    def _count(self, slot, provider_id, sign):
        for name, amount in slot.resources.items():
            self.amounts[provider_id, name] += sign * amount
        if slot.suffix:
            _add(self.suffixed, provider_id, sign)
        if slot.resources:
            _add(self.allocating, provider_id, sign)


def _add(counter, key, sign):
    """Count ``key`` up or down; a key counted down to zero is dropped,
    so that membership means "in use now"."""
    counter[key] += sign
    if not counter[key]:
        del counter[key]


def _is_ancestor_or_self(providers, ancestor_id, provider_id):
    while provider_id is not None:
        if provider_id == ancestor_id:
            return True
        provider_id = providers[provider_id].parent_id
    return False


def _same_subtree(providers, chosen):
    """One of ``chosen`` is an ancestor-or-self of all of them."""
    return any(all(_is_ancestor_or_self(providers, top, other)
                   for other in chosen)
               for top in chosen)


class _Checks:
    """The rules that hold once some slots are all chosen: after slot
    ``i``, ``after[i]`` lists the checks that became decidable."""

    def __init__(self, slots, rules, providers):
        self.providers = providers
        self.after = [[] for _ in slots]
        unsuffixed = [i for i, slot in enumerate(slots) if not slot.suffix]
        if unsuffixed and rules.unsuffixed_required:
            self.after[unsuffixed[-1]].append(
                self._traits_check(unsuffixed, rules.unsuffixed_required))
        for suffixes in rules.same_subtree:
            members = [i for i, slot in enumerate(slots)
                       if slot.suffix in suffixes]
            if members:
                self.after[members[-1]].append(self._subtree_check(members))
        #: Whether there is no check at all (resources alone).
        self.none = not any(self.after)

    def _traits_check(self, indexes, required):
        def check(chosen):
            return meets_traits(
                set().union(*(self.providers[chosen[i]].traits
                              for i in indexes)), required)
        return check

    def _subtree_check(self, indexes):
        def check(chosen):
            return _same_subtree(self.providers,
                                 {chosen[i] for i in indexes})
        return check

    def hold(self, index, chosen):
        return all(check(chosen) for check in self.after[index])

    def hold_all(self, chosen):
        return all(check(chosen) for checks in self.after
                   for check in checks)


class Memo:
    """What the candidate generators of the trees of one request share.

    A large answer's candidates are most of its memory: what can be
    shared between them is, and only what must be remembered is.
    """

    def __init__(self, sharing=()):
        #: Ids of the sharing providers.
        self.sharing = frozenset(sharing)
        #: Keys of the candidates yielded that use a sharing provider.
        self.seen = set()
        self._amounts = {}

    def amounts(self, amounts):
        """One ``{class: amount}`` dict (read only) for equal ones."""
        return self._amounts.setdefault(tuple(amounts.items()), amounts)


class Search:
    """The candidates of the trees of one window of roots.

    What does not depend on the tree is worked out once: the checks the
    rules make, whether the slots are independent, and the layout of a
    candidate (which slots take from one provider, what it gives).
    ``slots`` are ordered with the unsuffixed group's first, so that its
    trait rule prunes early (their options are given per tree);
    ``providers`` maps id to :class:`Provider` for every option.

    A candidate must use a provider of the tree itself (one using only
    sharing providers of other trees is produced for the tree of those
    providers). Two ways of choosing that allocate the same amounts on
    the same providers and map the groups to the same providers are one
    candidate (at every microversion, as upstream: before 1.34 the
    mappings are not shown, and such candidates look alike).

    Within a tree two different choices never are: a suffixed group has
    one slot, which its mapping names, and the slots of the unsuffixed
    group take distinct classes, so that what is left of a class once
    the suffixed groups' amounts are taken names the provider of its
    slot (and the walk makes each choice once). The searches of one
    request share a :class:`Memo`: only a candidate that uses one of its
    sharing providers can equal one of another tree (the options of a
    tree are its own providers and sharing ones), and only the keys of
    those are kept. Keys cost more than their candidates: keeping every
    one of a large answer set its peak memory (2.4 GB for 1,000,000).
    """

    def __init__(self, slots, rules, providers, memo=None):
        self.slots = slots
        self.rules = rules
        self.providers = providers
        self.memo = Memo() if memo is None else memo
        self.checks = _Checks(slots, rules, providers)
        self.independent = _independent(slots, rules)
        #: ``{pattern: layout}`` (:meth:`_layout`).
        self._layouts = {}

    def candidates(self, root_id, options):
        """Yield the distinct candidates of the tree of ``root_id``,
        ``options`` giving the ids each slot may choose, in preference
        order."""
        providers = self.providers
        sharing = self.memo.sharing
        seen = self.memo.seen
        if self.independent:
            found = _combinations(options, self.checks)
        else:
            found = _choices(self.slots, options, self.rules, providers,
                             self.checks)
        for chosen in found:
            if not any(providers[p].root_id == root_id for p in chosen):
                continue
            candidate = self._candidate(chosen)
            if not sharing.isdisjoint(chosen):
                key = _key(candidate)
                if key in seen:
                    continue
                seen.add(key)
            yield candidate

    def _candidate(self, chosen):
        # Which slots chose the same provider: each slot's first slot of
        # its provider.
        pattern = tuple(map(chosen.index, chosen))
        layout = self._layouts.get(pattern)
        if layout is None:
            layout = self._layouts[pattern] = self._layout(pattern)
        providers = self.providers
        return candidate_request.Candidate(
            uuids=tuple([providers[provider_id].uuid
                         for provider_id in chosen]),
            layout=layout)

    def _layout(self, pattern):
        """``(allocating, mapped)`` of candidates whose slots chose the
        same providers as ``pattern`` says: ``(first slot, {class:
        amount})`` of each provider allocated from, in the order of the
        slots; ``(suffix, (first slot, ...))`` of each group, a first
        slot for each provider that satisfies it."""
        allocating = {}
        mapped = {}
        for slot, first in zip(self.slots, pattern, strict=True):
            firsts = mapped.setdefault(slot.suffix, [])
            if first not in firsts:
                firsts.append(first)
            if slot.resources:
                amounts = allocating.setdefault(first, {})
                for name, amount in slot.resources.items():
                    amounts[name] = amounts.get(name, 0) + amount
        return (tuple((first, self.memo.amounts(amounts))
                      for first, amounts in allocating.items()),
                tuple((suffix, tuple(firsts))
                      for suffix, firsts in mapped.items()))


def _key(candidate):
    """Equal for candidates of the same allocations and mappings; as
    upstream, at every microversion, also where mappings are not shown
    (before 1.34): two ways of assigning the groups that allocate alike
    are two candidates."""
    allocations = frozenset((uuid, name, amount)
                            for uuid, amounts in candidate.allocations.items()
                            for name, amount in amounts.items())
    return allocations, frozenset((suffix, tuple(uuids)) for suffix, uuids
                                  in candidate.mappings.items())


def _independent(slots, rules):
    """No choice for one slot changes what another may take: no class is
    asked for by two slots (no amounts add up on a provider), providers
    need not be distinct (no isolation) and a tree may give from several
    of its providers (1.29)."""
    if rules.isolate or not rules.nested:
        return False
    names = [name for slot in slots for name in slot.resources]
    return len(names) == len(set(names))


def _combinations(options, checks):
    """:func:`_choices` for :func:`_independent` slots (the unsuffixed
    group alone, the common case): every combination of the options (each
    of which SQL found able to serve its slot alone) that passes the
    checks, in the walk's order, without the walk's bookkeeping."""
    if not options:
        return
    if checks.none:
        yield from itertools.product(*options)
        return
    for chosen in itertools.product(*options):
        if checks.hold_all(chosen):
            yield chosen


def _choices(slots, options, rules, providers, checks):
    """Yield every valid choice (a list of provider ids, one per slot,
    from its ``options``)."""
    choice = _Choice(providers)
    iterators = [iter(options[0])] if slots else []
    while iterators:
        index = len(iterators) - 1
        slot = slots[index]
        if len(choice.chosen) > index:
            choice.pop(slot)
        provider_id = next(
            (option for option in iterators[-1]
             if choice.fits(slot, option, rules)), None)
        if provider_id is None:
            iterators.pop()
            continue
        choice.push(slot, provider_id)
        if not checks.hold(index, choice.chosen):
            continue
        if index + 1 == len(slots):
            yield list(choice.chosen)
        else:
            iterators.append(iter(options[index + 1]))
