"""Assembly of allocation candidates, without a database."""

import itertools

from placement.objects import allocation_candidate
from placement.objects import candidate_folding
from placement.objects import candidate_loading
from placement.objects import candidate_tree

Provider = candidate_tree.Provider
Rules = candidate_tree.Rules


def tree(*children, capacity=4, root_id=1, sharing=()):
    """A root (``root_id``) and its descendants; ``children`` are
    ``(id, parent id)``; every provider has ``capacity`` VF; providers
    in ``sharing`` are roots of their own."""
    parents = {root_id: None, **dict(children)}
    for shared in sharing:
        parents[shared] = None
    providers = {}
    for provider_id, parent_id in parents.items():
        root = provider_id if provider_id in sharing else root_id
        providers[provider_id] = Provider(
            id=provider_id, uuid=f'p{provider_id}', parent_id=parent_id,
            root_id=root, parent_uuid=parent_id and f'p{parent_id}',
            root_uuid=f'p{root}',
            inventories={'VF': (capacity, 0, float(capacity), capacity),
                         'DISK': (capacity, 0, float(capacity), capacity)},
            traits=(f'T{provider_id}',))
    return providers


def allocations(found):
    return [{uuid: dict(amounts) for uuid, amounts in c.allocations.items()}
            for c in found]


def slot(suffix, resources, options):
    """A slot and its options in the tree searched."""
    return candidate_tree.Slot(suffix, resources), options


def candidates(root_id, slots, rules, providers, memo=None):
    """The candidates of the tree of ``root_id``: a :class:`Search` of
    ``slots`` (:func:`slot` pairs) alone."""
    shapes = [shape for shape, _ in slots]
    options = [choices for _, choices in slots]
    return candidate_tree.Search(shapes, rules, providers, memo).candidates(
        root_id, options)


def run(providers, slots, root_id=1, **rules):
    return list(candidates(root_id, slots, Rules(**rules), providers))


PFS = tree((2, 1), (3, 1))
VF1 = slot('1', {'VF': 1}, (2, 3))
VF2 = slot('2', {'VF': 1}, (2, 3))


def test_isolate_gives_each_group_its_own_provider():
    """The same allocations with the groups swapped are two candidates."""
    found = run(PFS, [VF1, VF2], isolate=True)
    assert allocations(found) == [{'p2': {'VF': 1}, 'p3': {'VF': 1}}] * 2
    assert [c.mappings for c in found] == [{'1': ['p2'], '2': ['p3']},
                                           {'1': ['p3'], '2': ['p2']}]


def test_without_isolation_amounts_on_one_provider_are_summed():
    """Each way of assigning the groups is a candidate, also where two
    allocate alike (upstream, at every microversion: before 1.34 the
    mappings that tell them apart are not shown)."""
    assert allocations(run(PFS, [VF1, VF2])) == [
        {'p2': {'VF': 2}}, {'p2': {'VF': 1}, 'p3': {'VF': 1}},
        {'p2': {'VF': 1}, 'p3': {'VF': 1}}, {'p3': {'VF': 2}}]
    assert [c.mappings for c in run(PFS, [VF1, VF2])] == [
        {'1': ['p2'], '2': ['p2']}, {'1': ['p2'], '2': ['p3']},
        {'1': ['p3'], '2': ['p2']}, {'1': ['p3'], '2': ['p3']}]


def test_summed_amounts_must_fit():
    providers = tree((2, 1), capacity=1)
    assert run(providers, [slot('1', {'VF': 1}, (2,)),
                           slot('2', {'VF': 1}, (2,))]) == []


def test_summed_amounts_must_fit_max_unit():
    providers = tree((2, 1), capacity=4)
    providers[2] = providers[2]._replace(inventories={'VF': (4, 0, 4.0, 1)})
    assert run(providers, [slot('1', {'VF': 1}, (2,)),
                           slot('2', {'VF': 1}, (2,))]) == []


def test_not_nested_takes_from_one_provider_of_a_sharing_tree():
    """Before 1.29 two sharing providers of one tree do not combine."""
    providers = tree(sharing=(8,))
    providers[9] = providers[8]._replace(id=9, uuid='p9', parent_id=8,
                                         parent_uuid='p8')
    slots = [slot('', {'VF': 1}, (1,)), slot('', {'DISK': 1}, (8,)),
             slot('1', {'VF': 1}, (9,))]
    assert allocations(run(providers, slots, nested=False)) == []
    assert len(run(providers, slots)) == 1


def test_unsuffixed_traits_are_checked_on_its_providers_together():
    slots = [slot('', {'VF': 1}, (2, 3)), slot('', {'DISK': 1}, (1, 2))]
    found = run(PFS, slots, unsuffixed_required=({'T1'}, {'T3'}))
    assert allocations(found) == [{'p3': {'VF': 1}, 'p1': {'DISK': 1}}]
    assert found[0].mappings == {'': ['p1', 'p3']}


def test_unsuffixed_group_is_not_isolated():
    slots = [slot('', {'VF': 1}, (2,)), slot('1', {'VF': 1}, (2,))]
    assert allocations(run(PFS, slots, isolate=True)) == [{'p2': {'VF': 2}}]


def test_same_subtree_needs_an_ancestor_of_the_others():
    # 1 -> 2 -> (4, 5); 1 -> 3
    providers = tree((2, 1), (3, 1), (4, 2), (5, 2))
    slots = [slot('_NUMA', {}, (2, 3)), slot('_A', {'VF': 1}, (3, 4, 5)),
             slot('_B', {'VF': 1}, (3, 4, 5))]
    found = run(providers, slots, isolate=True,
                same_subtree=(frozenset({'_NUMA', '_A', '_B'}),))
    assert allocations(found) == [{'p4': {'VF': 1}, 'p5': {'VF': 1}}] * 2
    assert [c.mappings for c in found] == [
        {'_NUMA': ['p2'], '_A': ['p4'], '_B': ['p5']},
        {'_NUMA': ['p2'], '_A': ['p5'], '_B': ['p4']}]


def test_resourceless_group_mapped_elsewhere_is_another_candidate():
    """The same allocation with the resourceless group on either child
    of its provider."""
    providers = tree((2, 1), (3, 1))
    slots = [slot('_CN', {'VF': 1}, (1,)), slot('_NUMA', {}, (2, 3))]
    found = run(providers, slots,
                same_subtree=(frozenset({'_CN', '_NUMA'}),))
    assert allocations(found) == [{'p1': {'VF': 1}}] * 2
    assert [c.mappings['_NUMA'] for c in found] == [['p2'], ['p3']]


def test_same_subtree_may_be_one_provider_without_isolation():
    slots = [slot('_A', {'VF': 1}, (2, 3)), slot('_B', {'VF': 1}, (2, 3))]
    assert allocations(run(PFS, slots,
                           same_subtree=(frozenset({'_A', '_B'}),))) == [
        {'p2': {'VF': 2}}, {'p3': {'VF': 2}}]


def test_not_nested_allows_one_provider_of_the_tree_and_sharing_ones():
    providers = tree((2, 1), sharing=(9,))
    slots = [slot('', {'VF': 1}, (1, 2)), slot('', {'DISK': 1}, (1, 2, 9))]
    assert allocations(run(providers, slots, nested=False)) == [
        {'p1': {'VF': 1, 'DISK': 1}}, {'p1': {'VF': 1}, 'p9': {'DISK': 1}},
        {'p2': {'VF': 1, 'DISK': 1}}, {'p2': {'VF': 1}, 'p9': {'DISK': 1}}]


def test_a_candidate_uses_its_own_tree():
    providers = tree((2, 1), sharing=(9,))
    slots = [slot('', {'DISK': 1}, (2, 9))]
    assert allocations(run(providers, slots)) == [{'p2': {'DISK': 1}}]
    assert allocations(run(providers, slots, root_id=9)) == [
        {'p9': {'DISK': 1}}]


def test_seen_candidates_are_not_repeated_across_trees():
    providers = tree(sharing=(8, 9))
    slots = [slot('', {'DISK': 1}, (8,)), slot('', {'VF': 1}, (9,))]
    memo = candidate_tree.Memo(sharing={8, 9})
    first = list(candidates(8, slots, Rules(), providers,
                                           memo))
    again = list(candidates(9, slots, Rules(), providers,
                                           memo))
    assert len(first) == 1
    assert again == []


def test_only_candidates_with_sharing_providers_are_remembered():
    """A candidate of its own tree alone can equal none of another tree:
    its key is not kept (the keys of a large answer set its peak memory)."""
    providers = tree((2, 1), (3, 1), sharing=(9,))
    memo = candidate_tree.Memo(sharing={9})
    single = [slot('', {'VF': 1}, (2,))]
    assert len(list(candidates(
        1, single, Rules(), providers, memo))) == 1
    swapped = [slot('_A', {'VF': 1}, (2, 3)), slot('_B', {'VF': 1}, (2, 3))]
    assert allocations(candidates(
        1, swapped, Rules(), providers, memo)) == [
            {'p2': {'VF': 2}}, {'p2': {'VF': 1}, 'p3': {'VF': 1}},
            {'p2': {'VF': 1}, 'p3': {'VF': 1}}, {'p3': {'VF': 2}}]
    assert memo.seen == set()
    shared = [slot('', {'VF': 1}, (2,)), slot('', {'DISK': 1}, (9,))]
    assert len(list(candidates(
        1, shared, Rules(), providers, memo))) == 1
    assert len(memo.seen) == 1


def test_distinct_choices_in_a_tree_are_distinct_candidates():
    """Why a tree's own candidates are yielded without keeping their
    keys: the unsuffixed group's slots take distinct classes, and each
    suffixed group (with the same classes, or none) has one slot."""
    providers = tree((2, 1), (3, 2), (4, 1), capacity=8)
    ids = (1, 2, 3, 4)
    slots = [slot('', {'VF': 1}, ids), slot('', {'DISK': 1}, ids),
             slot('1', {'VF': 1}, ids), slot('2', {'VF': 1, 'DISK': 1}, ids),
             slot('3', {}, ids)]
    for rules in (Rules(), Rules(isolate=True), Rules(nested=False)):
        found = list(candidates(1, slots, rules, providers))
        assert found
        assert len({candidate_tree._key(c) for c in found}) == len(found)


def test_equal_amounts_are_one_dict():
    providers = tree((2, 1), (3, 1))
    slots = [slot('', {'VF': 1}, (2, 3)), slot('', {'DISK': 1}, (2, 3))]
    found = run(providers, slots)
    assert allocations(found) == [
        {'p2': {'VF': 1, 'DISK': 1}}, {'p2': {'VF': 1}, 'p3': {'DISK': 1}},
        {'p3': {'VF': 1}, 'p2': {'DISK': 1}}, {'p3': {'VF': 1, 'DISK': 1}}]
    assert found[0].allocations['p2'] is found[3].allocations['p3']
    assert found[1].allocations['p2'] is found[2].allocations['p3']


class CountingProviders(dict):
    """Counts look-ups: a measure of the work done, not of time."""

    lookups = 0

    def __getitem__(self, key):
        self.lookups += 1
        return super().__getitem__(key)


def test_wide_symmetric_tree_stops_at_the_limit():
    children = [(child, 1) for child in range(2, 202)]
    providers = CountingProviders(tree(*children))
    options = tuple(range(2, 202))
    slots = [slot(str(group), {'VF': 1}, options) for group in range(4)]
    found = list(itertools.islice(candidates(
        1, slots, Rules(isolate=True), providers), 10))
    assert len({frozenset(c.allocations) for c in found}) == 10
    # 200**4 combinations exist; ten candidates cost a few hundred looks.
    assert providers.lookups < 2000


def generators(*counts):
    """``(root, generator)`` pairs; root ``r`` yields ``r0, r1, ...``."""
    return [(root, iter([f'{root}{i}' for i in range(count)]))
            for root, count in zip('abc', counts, strict=False)]


def test_depth_first_exhausts_each_root_in_turn():
    assert [c for _, c in allocation_candidate.depth_first(
        generators(2, 0, 3))] == ['a0', 'a1', 'c0', 'c1', 'c2']


def test_breadth_first_takes_one_of_each_root_in_turn():
    assert [c for _, c in allocation_candidate.breadth_first(
        generators(3, 1, 2))] == ['a0', 'b0', 'c0', 'a1', 'c1', 'a2']


def test_breadth_first_first_round_is_lazy():
    def roots():
        yield 'a', iter(['a0', 'a1'])
        raise AssertionError('a second root was asked for')
    assert next(allocation_candidate.breadth_first(roots())) == ('a', 'a0')


def test_batches_grow():
    assert [len(batch) for batch in candidate_loading.batches(
        list(range(100)), 10)] == [10, 20, 40, 30]


def test_one_search_serves_every_tree_of_a_window():
    """A window's :class:`Search` (checks and layouts worked out once)
    gives each tree what a search of that tree alone gives."""
    providers = {**tree((2, 1)), **tree((12, 11), root_id=11)}
    shape = [candidate_tree.Slot('', {'VF': 1}),
             candidate_tree.Slot('', {'DISK': 1})]
    search = candidate_tree.Search(shape, Rules(), providers)
    for root_id, options in ((1, [(1, 2), (2,)]), (11, [(12,), (11, 12)])):
        alone = run(providers, list(zip(shape, options, strict=True)),
                    root_id=root_id)
        assert list(search.candidates(root_id, options)) == alone
        assert len(alone) == 2


def test_roots_dense_in_their_ids_are_a_range_others_a_list():
    """A range spans fewer than MOST_SPAN_PER_ROOT ids a root; the
    roots outside it (sharing ones) are a list; sparse roots are a list
    and no range."""
    dense = candidate_folding.TreeRoots.of([3, 4, 6, 7], [1, 5, 40])
    assert (dense.low, dense.high, dense.others) == (3, 7, [1, 40])
    assert dense.ranged and dense.asked == {1, 3, 4, 5, 6, 7, 40}
    sparse = candidate_folding.TreeRoots.of([10, 20, 30], [1])
    assert not sparse.ranged and sparse.others == [1, 10, 20, 30]
    assert not candidate_folding.TreeRoots.of([], [1, 2]).ranged
