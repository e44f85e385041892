"""The allocation candidates engine against a real database.

Providers, inventories, traits, aggregates and allocations are written
as rows; :func:`allocation_candidate.get_candidates` is called directly.
The models are those of "Modeling with Provider Trees" and of the
nested magic spec.
"""

import collections
import itertools
import types
import unittest.mock
import uuid

import pytest
import sqlalchemy as sa

from placement import exception
from placement.db import models
from placement.objects import allocation_candidate
from placement.objects import candidate_folding
from placement.objects import candidate_loading
from placement.objects import candidate_names
from placement.objects import candidate_narrowing
from placement.objects import candidate_request
from placement.objects import candidate_windows
from placement.objects import explain
from placement.objects import kept

pytestmark = pytest.mark.db

RP = models.ResourceProvider.__table__
RC = models.ResourceClass.__table__
TRAIT = models.Trait.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
AGG = models.PlacementAggregate.__table__
RP_AGG = models.ResourceProviderAggregate.__table__
RP_TRAIT = models.ResourceProviderTrait.__table__

SHARES = 'MISC_SHARES_VIA_AGGREGATE'
Group = candidate_request.RequestGroup
Request = candidate_request.CandidateRequest


def conf(randomize=False, maximum=-1, strategy='depth-first'):
    return types.SimpleNamespace(placement=types.SimpleNamespace(
        randomize_allocation_candidates=randomize,
        max_allocation_candidates=maximum,
        allocation_candidates_generation_strategy=strategy))


class World:
    """Writes a model as rows; providers are named, uuids are kept."""

    def __init__(self, db):
        self.db = db
        self.uuids = {}
        self.names = {}
        self.aggregates = {}

    def _id(self, conn, table, **values):
        found = conn.scalar(sa.select(table.c.id).where(
            *(table.c[key] == value for key, value in values.items())))
        if found is None:
            found = conn.execute(sa.insert(table).values(
                **values)).inserted_primary_key[0]
        return found

    def provider(self, name, parent=None, inventory=None, traits=(),
                 aggregates=()):
        rp_uuid = str(uuid.uuid4())
        with self.db.writer() as conn:
            parent_id = root_id = None
            if parent is not None:
                parent_id, root_id = conn.execute(
                    sa.select(RP.c.id, RP.c.root_provider_id)
                    .where(RP.c.uuid == self.uuids[parent])).one()
            rp_id = conn.execute(sa.insert(RP).values(
                uuid=rp_uuid, name=name, generation=0,
                parent_provider_id=parent_id)).inserted_primary_key[0]
            conn.execute(sa.update(RP).where(RP.c.id == rp_id).values(
                root_provider_id=root_id or rp_id))
            for class_name, total in (inventory or {}).items():
                options = total if isinstance(total, dict) else {
                    'total': total}
                conn.execute(sa.insert(INV).values(
                    resource_provider_id=rp_id,
                    resource_class_id=self._id(conn, RC,
                                               name=class_name),
                    **{'reserved': 0, 'min_unit': 1, 'step_size': 1,
                       'allocation_ratio': 1.0,
                       'max_unit': options['total'], **options}))
            for trait_name in traits:
                conn.execute(sa.insert(RP_TRAIT).values(
                    resource_provider_id=rp_id,
                    trait_id=self._id(conn, TRAIT, name=trait_name)))
            for aggregate in aggregates:
                agg_uuid = self.aggregates.setdefault(
                    aggregate, str(uuid.uuid4()))
                conn.execute(sa.insert(RP_AGG).values(
                    resource_provider_id=rp_id,
                    aggregate_id=self._id(conn, AGG, uuid=agg_uuid)))
        self.uuids[name] = rp_uuid
        self.names[rp_uuid] = name

    def allocate(self, name, class_name, used):
        with self.db.writer() as conn:
            conn.execute(sa.insert(ALLOC).values(
                resource_provider_id=conn.scalar(sa.select(RP.c.id).where(
                    RP.c.uuid == self.uuids[name])),
                resource_class_id=conn.scalar(sa.select(RC.c.id).where(
                    RC.c.name == class_name)),
                consumer_id=str(uuid.uuid4()), used=used))

    def search(self, *groups, config=None, **params):
        with self.db.reader() as conn:
            return allocation_candidate.get_candidates(
                conn, Request(groups=groups, **params), config or conf())

    def allocations(self, *groups, **params):
        """The candidates as a sorted list of ``{name: {class: n}}``
        rendered as sorted tuples, for exact comparison."""
        found = self.search(*groups, **params)
        return sorted(self.named(candidate) for candidate in found.candidates)

    def named(self, candidate):
        return tuple(sorted(
            (self.names[rp_uuid], tuple(sorted(amounts.items())))
            for rp_uuid, amounts in candidate.allocations.items()))


def named(*providers):
    """The expected form of one candidate: ``(name, {class: n})``..."""
    return tuple(sorted((name, tuple(sorted(amounts.items())))
                        for name, amounts in providers))


@pytest.fixture
def world(db):
    return World(db)


@pytest.fixture(autouse=True)
def _no_start_remembered(monkeypatch):
    """Each test's searches start where nothing was remembered of an
    earlier test's (:meth:`candidate_narrowing.Narrowing.remember_start`:
    its requests are built from the same ids)."""
    monkeypatch.setattr(candidate_narrowing, '_STARTS', kept.Recent(256))


@pytest.fixture
def sharing(world):
    """First example of "Sharing Resource Providers"."""
    world.provider('SS1', inventory={'DISK_GB': 1000},
                   traits=[SHARES], aggregates=['aggA'])
    world.provider('SS2', inventory={'DISK_GB': 1000}, traits=[SHARES])
    host = {'VCPU': 8, 'MEMORY_MB': 1024, 'DISK_GB': 1000}
    world.provider('CN1', inventory=host, aggregates=['aggA'])
    world.provider('CN2', inventory=host)
    return world


COMPUTE = {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 500}


def test_flat_providers_and_a_sharing_provider(sharing):
    assert sharing.allocations(Group(resources=COMPUTE)) == sorted([
        named(('CN1', COMPUTE)),
        named(('CN2', COMPUTE)),
        named(('CN1', {'VCPU': 1, 'MEMORY_MB': 512}),
              ('SS1', {'DISK_GB': 500})),
    ])


def test_sharing_provider_alone(sharing):
    assert sharing.allocations(Group(resources={'DISK_GB': 900})) == sorted([
        named((name, {'DISK_GB': 900}))
        for name in ('CN1', 'CN2', 'SS1', 'SS2')])


def test_sharing_providers_together_once(world):
    world.provider('SS1', inventory={'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA'])
    world.provider('SS2', inventory={'IPV4_ADDRESS': 8}, traits=[SHARES],
                   aggregates=['aggA'])
    found = world.search(Group(resources={'DISK_GB': 10,
                                          'IPV4_ADDRESS': 1}))
    assert [world.named(c) for c in found.candidates] == [
        named(('SS1', {'DISK_GB': 10}), ('SS2', {'IPV4_ADDRESS': 1}))]
    assert sorted(world.names[u] for u in found.summaries) == ['SS1', 'SS2']


@pytest.mark.parametrize('limit', [None, 10])
def test_a_tree_is_shared_with_through_a_provider_serving_nothing(
        world, limit):
    """The narrowing (by SQL: a trait is required) reads which
    aggregates a tree is in beside the providers it finds: here the root
    serves the VCPU, and only its child, which the request's forbidden
    trait leaves out, is in the sharing provider's aggregate."""
    world.provider('SS1', inventory={'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA'])
    for name, aggregates in (('CN1', []), ('CN2', []), ('CN3', ['aggB'])):
        world.provider(name, inventory={'VCPU': 4},
                       traits=['HW_CPU_X86_AVX2'], aggregates=aggregates)
    world.provider('PF1', 'CN1', {'SRIOV_NET_VF': 4}, traits=['CUSTOM_X'],
                   aggregates=['aggA'])
    assert world.allocations(
        Group(resources={'VCPU': 1, 'DISK_GB': 10},
              required_traits=({'HW_CPU_X86_AVX2'},),
              forbidden_traits=frozenset({'CUSTOM_X'})),
        limit=limit) == [
            named(('CN1', {'VCPU': 1}), ('SS1', {'DISK_GB': 10}))]


def test_root_traits_are_those_of_the_non_sharing_root(sharing):
    assert sharing.allocations(
        Group(resources=COMPUTE), root_forbidden=frozenset({SHARES})
    ) == sharing.allocations(Group(resources=COMPUTE))
    assert sharing.allocations(Group(resources={'DISK_GB': 900}),
                               root_forbidden=frozenset({SHARES})) == [
        named(('CN1', {'DISK_GB': 900})), named(('CN2', {'DISK_GB': 900}))]


def test_required_trait_met_by_a_sharing_provider(world):
    world.provider('SS1', inventory={'DISK_GB': 1000},
                   traits=[SHARES, 'STORAGE_DISK_SSD'], aggregates=['aggA'])
    host = {'VCPU': 8, 'MEMORY_MB': 1024, 'DISK_GB': 1000}
    world.provider('CN1', inventory=host, aggregates=['aggA'])
    world.provider('CN2', inventory=host)
    assert world.allocations(Group(
        resources=COMPUTE, required_traits=({'STORAGE_DISK_SSD'},))) == [
            named(('CN1', {'VCPU': 1, 'MEMORY_MB': 512}),
                  ('SS1', {'DISK_GB': 500}))]


def test_required_traits_met_by_providers_of_the_tree_together(world):
    world.provider('CN1', inventory={'DISK_GB': 100},
                   traits=['STORAGE_DISK_SSD'])
    world.provider('NUMA1', 'CN1', {'VCPU': 4}, traits=['HW_CPU_X86_AVX2'])
    world.provider('CN2', inventory={'DISK_GB': 100},
                   traits=['STORAGE_DISK_SSD'])
    world.provider('NUMA2', 'CN2', {'VCPU': 4})
    assert world.allocations(Group(
        resources={'VCPU': 1, 'DISK_GB': 1},
        required_traits=({'STORAGE_DISK_SSD'}, {'HW_CPU_X86_AVX2'}))) == [
            named(('CN1', {'DISK_GB': 1}), ('NUMA1', {'VCPU': 1}))]


def test_summaries_of_flat_providers(sharing):
    sharing.allocate('CN1', 'VCPU', 3)
    found = sharing.search(Group(resources={'VCPU': 1}), limit=1)
    (summary,) = found.summaries.values()
    assert sharing.names[summary.uuid] == 'CN1'
    # (capacity, used, free, max_unit, min_unit, step_size)
    assert summary.inventories == {'VCPU': (8, 3, 5, 8, 1, 1),
                                   'MEMORY_MB': (1024, 0, 1024, 1024, 1, 1),
                                   'DISK_GB': (1000, 0, 1000, 1000, 1, 1)}
    assert summary.root_uuid == summary.uuid
    assert summary.parent_uuid is None


def test_unknown_class_or_trait_is_bad_request(sharing):
    with pytest.raises(exception.BadRequest):
        sharing.search(Group(resources={'CUSTOM_NOPE': 1}))
    with pytest.raises(exception.BadRequest):
        sharing.search(Group(resources={'VCPU': 1},
                             required_traits=({'CUSTOM_NOPE'},)))


@pytest.fixture
def numa(world):
    """Second example of "Sharing Resource Providers"."""
    world.provider('SS1', inventory={'DISK_GB': 1000},
                   traits=[SHARES], aggregates=['aggA'])
    world.provider('CN1', inventory={'MEMORY_MB': 1024, 'DISK_GB': 1000},
                   aggregates=['aggA', 'aggB'])
    world.provider('CN2', inventory={'MEMORY_MB': 1024, 'DISK_GB': 1000},
                   aggregates=['aggA'])
    world.provider('NUMA1_1', 'CN1', {'VCPU': 8})
    world.provider('NUMA1_2', 'CN1', {'VCPU': 8})
    world.provider('NUMA2_1', 'CN2', {'VCPU': 8}, aggregates=['aggB'])
    world.provider('NUMA2_2', 'CN2', {'VCPU': 8})
    return world


def numa_candidates(*numas, shared=True, local=True):
    found = []
    for numa_name in numas:
        host = 'CN' + numa_name[4]
        if local:
            found.append(named((numa_name, {'VCPU': 1}),
                               (host, {'MEMORY_MB': 512, 'DISK_GB': 500})))
        if shared:
            found.append(named((numa_name, {'VCPU': 1}),
                               (host, {'MEMORY_MB': 512}),
                               ('SS1', {'DISK_GB': 500})))
    return sorted(found)


ALL_NUMA = ('NUMA1_1', 'NUMA1_2', 'NUMA2_1', 'NUMA2_2')


def test_nested_trees_with_a_sharing_provider(numa):
    assert numa.allocations(Group(resources=COMPUTE)) == numa_candidates(
        *ALL_NUMA)


def test_aggregate_on_a_root_spans_its_tree(numa):
    aggregate = numa.aggregates['aggA']
    assert numa.allocations(Group(
        resources=COMPUTE, member_of=({aggregate},))) == numa_candidates(
            *ALL_NUMA)


def test_aggregate_on_a_child_does_not_span_its_tree(numa):
    aggregate = numa.aggregates['aggB']
    assert numa.allocations(Group(
        resources=COMPUTE, member_of=({aggregate},))) == numa_candidates(
            'NUMA1_1', 'NUMA1_2', shared=False)


def test_forbidden_aggregate(numa):
    aggregate = numa.aggregates['aggB']
    assert numa.allocations(Group(
        resources=COMPUTE, forbidden_aggregates=frozenset({aggregate}))
    ) == numa_candidates('NUMA2_2')


def test_in_tree_of_a_child_keeps_the_tree_without_sharing(numa):
    for name in ('CN1', 'NUMA1_1'):
        assert numa.allocations(Group(
            resources={'VCPU': 1, 'DISK_GB': 50},
            in_tree=numa.uuids[name])) == sorted(
                named((numa_name, {'VCPU': 1}), ('CN1', {'DISK_GB': 50}))
                for numa_name in ('NUMA1_1', 'NUMA1_2'))


def test_in_tree_of_a_missing_provider_matches_nothing(numa):
    assert numa.allocations(Group(resources={'VCPU': 1},
                                  in_tree=str(uuid.uuid4()))) == []


def test_suffixed_group_in_a_sharing_tree(numa):
    assert numa.allocations(
        Group(resources={'VCPU': 1}),
        Group('1', {'DISK_GB': 10}, in_tree=numa.uuids['SS1']),
        group_policy='none') == sorted(
            named((numa_name, {'VCPU': 1}), ('SS1', {'DISK_GB': 10}))
            for numa_name in ALL_NUMA)


def test_before_nested_one_provider_per_tree(numa):
    numa.provider('CN3', inventory=COMPUTE)
    assert numa.allocations(Group(resources=COMPUTE), nested=False) == [
        named(('CN3', COMPUTE))]


def test_summaries_hold_the_whole_tree(numa):
    found = numa.search(Group(resources={'VCPU': 1},
                              in_tree=numa.uuids['CN1']), limit=1)
    assert sorted(numa.names[uuid] for uuid in found.summaries) == [
        'CN1', 'NUMA1_1', 'NUMA1_2']
    child = found.summaries[numa.uuids['NUMA1_2']]
    assert child.parent_uuid == numa.uuids['CN1']
    assert child.root_uuid == numa.uuids['CN1']
    assert child.inventories == {'VCPU': (8, 0, 8, 8, 1, 1)}


@pytest.fixture
def nics(world):
    """The environment of "Filtering by Traits"."""
    world.provider('CN1', inventory={'VCPU': 8, 'MEMORY_MB': 1024,
                                     'DISK_GB': 1000})
    world.provider('NIC1_1', 'CN1', {'SRIOV_NET_VF': 8},
                   traits=['HW_NIC_ACCEL_SSL'])
    world.provider('NIC1_2', 'CN1', {'SRIOV_NET_VF': 8})
    return world


HOST = ('CN1', COMPUTE)


@pytest.mark.parametrize('traits, nics_found', [
    ({}, ['NIC1_1', 'NIC1_2']),
    ({'required_traits': ({'HW_NIC_ACCEL_SSL'},)}, ['NIC1_1']),
    ({'forbidden_traits': frozenset({'HW_NIC_ACCEL_SSL'})}, ['NIC1_2']),
])
def test_traits_of_the_unsuffixed_group(nics, traits, nics_found):
    assert nics.allocations(Group(
        resources={**COMPUTE, 'SRIOV_NET_VF': 2}, **traits)) == sorted(
            named(HOST, (nic, {'SRIOV_NET_VF': 2})) for nic in nics_found)


def test_required_trait_on_a_provider_that_gives_nothing(nics):
    assert nics.allocations(Group(
        resources=COMPUTE, required_traits=({'HW_NIC_ACCEL_SSL'},))) == []


GRANULAR = (Group(resources=COMPUTE),
            Group('1', {'SRIOV_NET_VF': 1},
                  required_traits=({'HW_NIC_ACCEL_SSL'},)),
            Group('2', {'SRIOV_NET_VF': 1}))


def test_granular_isolate(nics):
    found = nics.search(*GRANULAR, group_policy='isolate')
    assert [nics.named(c) for c in found.candidates] == [
        named(HOST, ('NIC1_1', {'SRIOV_NET_VF': 1}),
              ('NIC1_2', {'SRIOV_NET_VF': 1}))]
    assert found.candidates[0].mappings == {
        '': [nics.uuids['CN1']], '1': [nics.uuids['NIC1_1']],
        '2': [nics.uuids['NIC1_2']]}


def test_granular_none_sums_one_provider(nics):
    assert nics.allocations(*GRANULAR, group_policy='none') == sorted([
        named(HOST, ('NIC1_1', {'SRIOV_NET_VF': 1}),
              ('NIC1_2', {'SRIOV_NET_VF': 1})),
        named(HOST, ('NIC1_1', {'SRIOV_NET_VF': 2}))])


def test_summed_amounts_must_fit_the_capacity(nics):
    nics.allocate('NIC1_1', 'SRIOV_NET_VF', 7)
    nics.allocate('NIC1_2', 'SRIOV_NET_VF', 8)
    assert nics.allocations(
        Group('1', {'SRIOV_NET_VF': 1}), Group('2', {'SRIOV_NET_VF': 1}),
        group_policy='none') == []


@pytest.fixture
def roots(world):
    """The environment of "Filtering by Root Provider Traits"."""
    world.provider('NON_NUMA_CN', inventory={
        'VCPU': 8, 'MEMORY_MB': 1024, 'DISK_GB': 1000}, traits=[
            'HW_CPU_X86_AVX2', 'STORAGE_DISK_SSD',
            'COMPUTE_VOLUME_MULTI_ATTACH', 'CUSTOM_WINDOWS_LICENSE_POOL'])
    world.provider('NUMA_CN', inventory={'DISK_GB': 1000}, traits=[
        'STORAGE_DISK_SSD', 'COMPUTE_VOLUME_MULTI_ATTACH'])
    world.provider('NUMA1', 'NUMA_CN', {'VCPU': 4, 'MEMORY_MB': 2048})
    world.provider('NUMA2', 'NUMA_CN', {'VCPU': 4, 'MEMORY_MB': 2048},
                   traits=['HW_CPU_X86_AVX2'])
    return world


CPU = {'VCPU': 1, 'MEMORY_MB': 512}


def test_root_required(roots):
    assert roots.allocations(
        Group('1', CPU, required_traits=({'HW_CPU_X86_AVX2'},)),
        Group('2', {'DISK_GB': 100}), group_policy='none',
        root_required=({'COMPUTE_VOLUME_MULTI_ATTACH'},)) == sorted([
            named(('NON_NUMA_CN', {**CPU, 'DISK_GB': 100})),
            named(('NUMA_CN', {'DISK_GB': 100}), ('NUMA2', CPU))])


def test_root_forbidden(roots):
    assert roots.allocations(
        Group('1', CPU), Group('2', {'DISK_GB': 100}), group_policy='none',
        root_forbidden=frozenset({'CUSTOM_WINDOWS_LICENSE_POOL'})
    ) == sorted([named(('NUMA_CN', {'DISK_GB': 100}), (numa_name, CPU))
                 for numa_name in ('NUMA1', 'NUMA2')])


@pytest.fixture
def fpgas(world):
    """The model of "Filtering by Same Subtree"."""
    world.provider('CN', inventory={'DISK_GB': 100})
    for numa_index, fpgas in ((0, 1), (1, 2)):
        numa_name = f'NUMA{numa_index}'
        world.provider(numa_name, 'CN', {'VCPU': 4, 'MEMORY_MB': 2048},
                       traits=['HW_NUMA_ROOT'])
        for fpga in range(fpgas):
            world.provider(f'FPGA{numa_index}_{fpga}', numa_name,
                           {'FPGA': 1}, traits=[f'CUSTOM_TYPE{fpga + 1}'])
    return world


def test_same_subtree(fpgas):
    assert fpgas.allocations(
        Group('_COMPUTE', {'VCPU': 1, 'MEMORY_MB': 256}),
        Group('_ACCEL', {'FPGA': 1}), group_policy='none',
        same_subtree=(('_COMPUTE', '_ACCEL'),)) == sorted(
            named((numa_name, {'VCPU': 1, 'MEMORY_MB': 256}),
                  (fpga, {'FPGA': 1}))
            for numa_name, fpga in (('NUMA0', 'FPGA0_0'),
                                    ('NUMA1', 'FPGA1_0'),
                                    ('NUMA1', 'FPGA1_1')))


def test_same_subtree_with_a_resourceless_group(fpgas):
    found = fpgas.search(
        Group('_NUMA', required_traits=({'HW_NUMA_ROOT'},)),
        Group('_ACCEL1', {'FPGA': 1}, required_traits=({'CUSTOM_TYPE1'},)),
        Group('_ACCEL2', {'FPGA': 1}, required_traits=({'CUSTOM_TYPE2'},)),
        group_policy='none', same_subtree=(('_NUMA', '_ACCEL1', '_ACCEL2'),))
    (candidate,) = found.candidates
    assert fpgas.named(candidate) == named(
        ('FPGA1_0', {'FPGA': 1}), ('FPGA1_1', {'FPGA': 1}))
    assert candidate.mappings['_NUMA'] == [fpgas.uuids['NUMA1']]


@pytest.fixture
def nic_tree(world):
    """One NIC with two PFs: "group_policy + same_subtree"."""
    world.provider('CN', inventory={'VCPU': 4})
    world.provider('NIC1', 'CN', traits=['HW_NIC_ROOT'])
    world.provider('PF1_1', 'NIC1', {'SRIOV_NET_VF': 4})
    world.provider('PF1_2', 'NIC1', {'SRIOV_NET_VF': 4})
    return world


VIFS = (Group('_VIF1', {'SRIOV_NET_VF': 1}),
        Group('_VIF2', {'SRIOV_NET_VF': 1}),
        Group('_NIC_AFFINITY', required_traits=({'HW_NIC_ROOT'},)))
VIF_SUBTREE = (('_VIF1', '_VIF2', '_NIC_AFFINITY'),)


def test_same_subtree_isolated(nic_tree):
    """One allocation, mapped both ways round (1.34)."""
    found = nic_tree.search(*VIFS, group_policy='isolate',
                            same_subtree=VIF_SUBTREE)
    assert [nic_tree.named(c) for c in found.candidates] == [
        named(('PF1_1', {'SRIOV_NET_VF': 1}),
              ('PF1_2', {'SRIOV_NET_VF': 1}))] * 2
    assert sorted((nic_tree.names[c.mappings['_VIF1'][0]],
                   nic_tree.names[c.mappings['_VIF2'][0]])
                  for c in found.candidates) == [('PF1_1', 'PF1_2'),
                                                 ('PF1_2', 'PF1_1')]


def test_same_subtree_not_isolated(nic_tree):
    """Both ways of putting one VIF on each PF are candidates."""
    assert nic_tree.allocations(
        *VIFS, group_policy='none', same_subtree=VIF_SUBTREE) == sorted([
            named(('PF1_1', {'SRIOV_NET_VF': 1}),
                  ('PF1_2', {'SRIOV_NET_VF': 1})),
            named(('PF1_1', {'SRIOV_NET_VF': 1}),
                  ('PF1_2', {'SRIOV_NET_VF': 1})),
            named(('PF1_1', {'SRIOV_NET_VF': 2})),
            named(('PF1_2', {'SRIOV_NET_VF': 2}))])


@pytest.fixture
def hosts(world):
    for index in range(4):
        world.provider(f'CN{index}', inventory={'VCPU': 4})
        for child in range(3):
            world.provider(f'CN{index}_{child}', f'CN{index}',
                           {'SRIOV_NET_VF': 2})
    return world


def roots_of(world, found):
    return [world.names[next(iter(candidate.mappings['']))][:3]
            for candidate in found.candidates]


GRANULAR_VFS = (Group(resources={'VCPU': 1}),
                Group('1', {'SRIOV_NET_VF': 1}))


def test_depth_first_exhausts_a_tree_first(hosts):
    found = hosts.search(*GRANULAR_VFS, group_policy='none', limit=4)
    assert roots_of(hosts, found) == ['CN0', 'CN0', 'CN0', 'CN1']
    assert sorted(hosts.names[u] for u in found.summaries) == sorted(
        ['CN0', 'CN0_0', 'CN0_1', 'CN0_2', 'CN1', 'CN1_0', 'CN1_1',
         'CN1_2'])


def test_breadth_first_takes_one_per_tree_in_turn(hosts):
    found = hosts.search(*GRANULAR_VFS, group_policy='none', limit=6,
                         config=conf(strategy='breadth-first'))
    assert roots_of(hosts, found) == ['CN0', 'CN1', 'CN2', 'CN3', 'CN0',
                                      'CN1']


@pytest.mark.parametrize('limit, maximum, count', [
    (None, -1, 12), (5, -1, 5), (None, 7, 7), (5, 3, 3), (3, 5, 3)])
def test_limit_and_max_allocation_candidates(hosts, limit, maximum, count):
    found = hosts.search(*GRANULAR_VFS, group_policy='none', limit=limit,
                         config=conf(maximum=maximum))
    assert len(found.candidates) == count


def test_randomized_candidates_are_candidates(hosts):
    everything = hosts.allocations(*GRANULAR_VFS, group_policy='none')
    found = hosts.search(*GRANULAR_VFS, group_policy='none', limit=5,
                         config=conf(randomize=True))
    assert {hosts.named(c) for c in found.candidates} <= set(everything)
    assert len(found.candidates) == 5


def test_wide_symmetric_tree_with_a_limit(world):
    world.provider('CN', inventory={'VCPU': 4})
    for child in range(32):
        world.provider(f'VF{child}', 'CN', {'SRIOV_NET_VF': 4})
    groups = [Group(str(index), {'SRIOV_NET_VF': 1}) for index in range(3)]
    found = world.search(*groups, group_policy='isolate', limit=10)
    assert len({world.named(c) for c in found.candidates}) == 10


def test_one_narrowing_query_per_distinct_group(world, monkeypatch):
    """A window costs one narrowing query per distinct group (all of
    them one statement): the classes of the unsuffixed group share one,
    and so do suffixed groups that ask the same; each group still gets
    its own providers. (The groups
    name their tree: groups of resources alone make no query, see the
    next test.)"""
    world.provider('CN', inventory={'VCPU': 4, 'MEMORY_MB': 1024})
    for child in range(3):
        world.provider(f'VF{child}', 'CN', {'SRIOV_NET_VF': 1})
    queried = _counted_narrowing_queries(monkeypatch)
    tree = world.uuids['CN']
    groups = [Group(resources={'VCPU': 1, 'MEMORY_MB': 256}, in_tree=tree)] + [
        Group(str(index), {'SRIOV_NET_VF': 1}, in_tree=tree)
        for index in range(3)]
    found = world.search(*groups, group_policy='isolate')
    assert queried == [('',), ('0',)]
    assert len(found.candidates) == 6    # the VFs in every order
    assert {world.named(candidate) for candidate in found.candidates} == {
        named(('CN', {'VCPU': 1, 'MEMORY_MB': 256}),
              *((f'VF{child}', {'SRIOV_NET_VF': 1}) for child in range(3)))}
    assert {tuple(candidate.mappings[str(index)][0] for index in range(3))
            for candidate in found.candidates} == {
        tuple(world.uuids[f'VF{child}'] for child in order)
        for order in itertools.permutations(range(3))}


def test_resources_alone_are_narrowed_on_the_trees_loaded(
        world, monkeypatch):
    """Groups of resources alone make no narrowing query: the providers
    of the trees loaded (and the sharing ones) are tested in Python,
    with the capacity rule and the unit rules of the SQL conditions."""
    world.provider('SS', inventory={'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA'])
    world.provider('MIN_UNIT', inventory={'VCPU': {'total': 4,
                                                   'min_unit': 2}},
                   aggregates=['aggA'])
    world.provider('TOO_BIG', inventory={'VCPU': {'total': 4,
                                                  'min_unit': 3}})
    world.provider('STEP', inventory={'VCPU': {'total': 4,
                                               'step_size': 3}})
    world.provider('MAX_UNIT', inventory={'VCPU': {'total': 4,
                                                   'max_unit': 1}})
    world.provider('USED', inventory={'VCPU': 4})
    world.allocate('USED', 'VCPU', 3)
    world.provider('RATIO', inventory={'VCPU': {
        'total': 8, 'reserved': 4, 'allocation_ratio': 0.5}},
        traits=['CUSTOM_GOLD'])
    world.provider('FULL_ROOT', inventory={'VCPU': 1})
    world.provider('NUMA', 'FULL_ROOT', {'VCPU': 2})
    queried = _counted_narrowing_queries(monkeypatch)
    assert world.allocations(Group(resources={'VCPU': 2}), limit=10) == [
        named(('MIN_UNIT', {'VCPU': 2})), named(('NUMA', {'VCPU': 2})),
        named(('RATIO', {'VCPU': 2}))]
    assert world.allocations(Group(resources={'VCPU': 2, 'DISK_GB': 10})) == [
        named(('MIN_UNIT', {'VCPU': 2}), ('SS', {'DISK_GB': 10}))]
    assert world.allocations(Group(resources={'VCPU': 2}),
                             root_required=({'CUSTOM_GOLD'},)) == [
        named(('RATIO', {'VCPU': 2}))]
    assert world.allocations(Group(resources={'VCPU': 2}),
                             root_forbidden=frozenset({'CUSTOM_GOLD'})) == [
        named(('MIN_UNIT', {'VCPU': 2})), named(('NUMA', {'VCPU': 2}))]
    assert queried == []


MIXED_REQUESTS = [
    dict(groups=(Group(resources={'VCPU': 2}),)),
    dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 5}),)),
    dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 5}),), nested=False),
    dict(groups=(Group(resources={'DISK_GB': 5}),
                 Group('1', {'VCPU': 2}), Group('2', {'VCPU': 2})),
         group_policy='isolate'),
    dict(groups=(Group('1', {'VCPU': 1}), Group('2', {'VCPU': 1})),
         group_policy='none'),
    dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 5}),),
         root_required=(frozenset({'HW_CPU_X86_AVX2', SHARES}),)),
    dict(groups=(Group(resources={'DISK_GB': 5}),),
         root_forbidden=frozenset({'HW_CPU_X86_AVX2'})),
    dict(groups=(Group(resources={'DISK_GB': 5}),),
         root_required=(frozenset({'HW_CPU_X86_AVX2'}),)),
    # Forbidden traits are a provider's own: the NUMA children of the
    # AVX2 roots lack it, the sharing disk too.
    dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 5},
                       forbidden_traits=frozenset({'HW_CPU_X86_AVX2'})),)),
    dict(groups=(Group(resources={'DISK_GB': 5},
                       forbidden_traits=frozenset({SHARES})),)),
    dict(groups=(Group('1', {'VCPU': 1},
                       forbidden_traits=frozenset({'HW_CPU_X86_AVX2'})),
                 Group('2', {'DISK_GB': 5})), group_policy='none'),
]


@pytest.mark.parametrize('params', MIXED_REQUESTS)
@pytest.mark.parametrize('strategy', ['depth-first', 'breadth-first'])
def test_resources_alone_answer_as_narrowed_by_queries(
        many_roots, monkeypatch, params, strategy):
    """Narrowed on the trees loaded, a request of resources alone has
    the answer the narrowing queries give it, with and without a limit
    (units, usage and overcommitted providers included)."""
    many_roots.provider('BIG', inventory={
        'VCPU': {'total': 16, 'min_unit': 2, 'step_size': 2,
                 'allocation_ratio': 1.5}, 'DISK_GB': 4})
    many_roots.provider('BIG_NUMA', 'BIG', {'VCPU': {'total': 4,
                                                     'max_unit': 1}})
    many_roots.allocate('H03', 'VCPU', 2)
    many_roots.allocate('H04_NUMA', 'VCPU', 5)      # overcommitted
    many_roots.allocate('SS', 'DISK_GB', 90)

    def answers():
        return _answers_by_limit(many_roots, [params], strategy)
    by_capacity = answers()
    monkeypatch.setattr(candidate_narrowing, 'by_capacity_alone',
                        lambda request: False)
    assert by_capacity == answers()
    assert by_capacity[0][0]


def _answers_by_limit(world, requests, strategy):
    """The candidates and summaries of each of ``requests`` (their
    parameters) without a limit and with limits 1, 4 and 100."""
    found = []
    for params in requests:
        for limit in (None, 1, 4, 100):
            with world.db.reader() as conn:
                answer = allocation_candidate.get_candidates(
                    conn, Request(limit=limit, **params),
                    conf(strategy=strategy))
            found.append((answer.candidates, answer.summaries))
    return found


def _counted_narrowing_queries(monkeypatch):
    """The suffixes of the groups of each narrowing query, as made."""
    queried = []
    group_slots = candidate_narrowing.Narrowing._group_slots

    def counted(narrowing, groups, window, **options):
        queried.append(tuple(group.suffix for group in groups))
        return group_slots(narrowing, groups, window, **options)

    monkeypatch.setattr(candidate_narrowing.Narrowing, '_group_slots',
                        counted)
    return queried


def test_suffixed_groups_differing_by_traits_share_a_query(
        world, monkeypatch):
    """Suffixed groups that ask the same but traits are one narrowing
    query (the capacity probed once a provider), and each group still
    gets the providers with its own traits."""
    world.provider('CN', inventory={'VCPU': 4})
    for physnet in ('A', 'B'):
        world.provider(f'NIC_{physnet}', 'CN', {'SRIOV_NET_VF': 2},
                       traits=[f'CUSTOM_PHYSNET_{physnet}'])
    world.provider('NIC_C', 'CN', {'SRIOV_NET_VF': 2},
                   traits=['CUSTOM_PHYSNET_C', 'CUSTOM_SLOW'])
    queried = _counted_narrowing_queries(monkeypatch)
    vf = {'SRIOV_NET_VF': 1}
    found = world.allocations(
        Group(resources={'VCPU': 1}),
        Group('A', vf, required_traits=({'CUSTOM_PHYSNET_A'},)),
        Group('B', vf, required_traits=({'CUSTOM_PHYSNET_B'},)),
        Group('ANY', vf, forbidden_traits=frozenset({'CUSTOM_SLOW'})),
        Group('SLOW', vf, required_traits=({'CUSTOM_SLOW'},),
              forbidden_traits=frozenset({'CUSTOM_PHYSNET_A'})),
        group_policy='none')
    assert queried == [('',), ('A', 'B', 'ANY', 'SLOW')]
    vcpu = ('CN', {'VCPU': 1})
    assert found == sorted([
        named(vcpu, ('NIC_A', {'SRIOV_NET_VF': 2}), ('NIC_B', vf),
              ('NIC_C', vf)),
        named(vcpu, ('NIC_A', vf), ('NIC_B', {'SRIOV_NET_VF': 2}),
              ('NIC_C', vf))])


def test_narrowing_statements_are_built_once_for_what_is_asked(
        sharing, monkeypatch):
    """A request asked again runs the narrowing statements (the
    look-up's, with may_match's tests, and the narrowing's) built the
    first time, reading the providers as they are now; one asking
    another amount builds its own. (Of the narrowing by statements: a
    request of resources alone is narrowed without, by_capacity_alone.)"""
    monkeypatch.setattr(candidate_narrowing, 'by_capacity_alone',
                        lambda request: False)
    monkeypatch.setattr(candidate_narrowing, '_KEPT', kept.Kept(8))
    built = []
    narrowing = candidate_narrowing.Narrowing
    group_query = narrowing._group_query
    look_up_statement = candidate_narrowing._look_up_statement

    def counted_group(narrowing, groups, *args):
        built.append(('narrowing', dict(groups[0].resources)))
        return group_query(narrowing, groups, *args)

    def counted_look_up(traits, uuids, tests, *args):
        found = look_up_statement(traits, uuids, tests, *args)
        built.append(('look up', found[1]))
        return found

    monkeypatch.setattr(narrowing, '_group_query', counted_group)
    monkeypatch.setattr(candidate_narrowing, '_look_up_statement',
                        counted_look_up)
    eight, four = {'VCPU': 8}, {'VCPU': 4}

    for _ in range(2):
        assert sharing.allocations(Group(resources=eight)) == [
            named(('CN1', eight)), named(('CN2', eight))]
    assert built == [('look up', 1), ('narrowing', eight)]
    assert sharing.allocations(Group(resources=four)) == [
        named(('CN1', four)), named(('CN2', four))]
    sharing.allocate('CN1', 'VCPU', 6)
    assert sharing.allocations(Group(resources=four)) == [
        named(('CN2', four))]
    assert built == [('look up', 1), ('narrowing', eight),
                     ('look up', 1), ('narrowing', four)]


def test_a_trait_made_again_is_asked_by_its_new_id(world):
    """The narrowing statement kept for a trait's old id is not the one
    of the trait made again (its id is another)."""
    world.provider('CN', inventory={'VCPU': 4}, traits=['CUSTOM_FAST'])
    fast = Group(resources={'VCPU': 1}, required_traits=({'CUSTOM_FAST'},))
    assert world.allocations(fast) == [named(('CN', {'VCPU': 1}))]
    with world.db.writer() as conn:
        conn.execute(sa.delete(RP_TRAIT))
        conn.execute(sa.delete(TRAIT).where(TRAIT.c.name == 'CUSTOM_FAST'))
        conn.execute(sa.insert(TRAIT).values(name='CUSTOM_OTHER'))
    world.provider('CN2', inventory={'VCPU': 4}, traits=['CUSTOM_FAST'])
    assert world.allocations(fast) == [named(('CN2', {'VCPU': 1}))]


@pytest.fixture
def many_roots(world, monkeypatch):
    """Twelve trees searched one root window at a time: a sharing disk
    (SS, in aggA with every third host), hosts with VCPU, a NUMA child
    with more VCPU on even hosts, AVX2 on the roots of hosts 0-5."""
    monkeypatch.setattr(candidate_windows, 'FIRST_WINDOW', 1)
    world.provider('SS', inventory={'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA'])
    for index in range(12):
        world.provider(f'H{index:02}', inventory={'VCPU': 2, 'DISK_GB': 10},
                       traits=['HW_CPU_X86_AVX2'] if index < 6 else (),
                       aggregates=['aggA'] if index % 3 == 0 else ())
        if index % 2 == 0:
            world.provider(f'H{index:02}_NUMA', f'H{index:02}',
                           {'VCPU': 4})
    return world


def test_a_busy_cloud_is_narrowed_by_queries_after_a_window_of_few(
        many_roots, monkeypatch):
    """Once most trees of a window cannot serve (a busy cloud), the
    later windows are narrowed by the query, which loads only the trees
    that can; the answers are those of the queries alone."""
    for index in range(10):
        many_roots.allocate(f'H{index:02}', 'VCPU', 2)
        if index % 2 == 0:
            many_roots.allocate(f'H{index:02}_NUMA', 'VCPU', 4)
    two = Group(resources={'VCPU': 2})
    queried = _counted_narrowing_queries(monkeypatch)
    found = [many_roots.allocations(two, limit=limit)
             for limit in (1, 2, 4, None)]
    assert queried
    monkeypatch.setattr(candidate_narrowing, 'by_capacity_alone',
                        lambda request: False)
    assert found == [many_roots.allocations(two, limit=limit)
                     for limit in (1, 2, 4, None)]
    assert found[2] == sorted([
        named(('H10', {'VCPU': 2})), named(('H10_NUMA', {'VCPU': 2})),
        named(('H11', {'VCPU': 2}))])


def _capacity_probed(monkeypatch, test=candidate_narrowing.SERVES_NOW):
    """From now on, narrowings start testing capacity by ``test``: by
    default probing every provider's capacity by their windows'
    statements, as an explanation's do."""
    init = candidate_narrowing.Narrowing.__init__

    def probing(narrowing, *args, **kwargs):
        init(narrowing, *args, **kwargs)
        narrowing.capacity_test = test

    monkeypatch.setattr(candidate_narrowing.Narrowing, '__init__', probing)


def _capacity_tests(monkeypatch):
    """How each narrowing query (of a group that is not resources
    alone) tested the capacity of its window's providers
    (:data:`candidate_narrowing.ON_TREES`...), as built (none kept built
    before)."""
    monkeypatch.setattr(candidate_narrowing, '_KEPT', kept.Kept(256))
    tests = []
    group_query = candidate_narrowing.Narrowing._group_query

    def counted(narrowing, groups, tree_within,
                test=candidate_narrowing.SERVES_NOW):
        tests.append(test)
        return group_query(narrowing, groups, tree_within, test)

    monkeypatch.setattr(candidate_narrowing.Narrowing, '_group_query',
                        counted)
    return tests


def _narrowed_requests(world):
    """Requests narrowed by the windows' statements (not resources
    alone), with a sharing provider, several slots, traits met
    together, suffixed groups and root traits."""
    agg_a = frozenset({world.aggregates['aggA']})
    avx2 = (frozenset({'HW_CPU_X86_AVX2'}),)
    return [
        dict(groups=(Group(resources={'VCPU': 2, 'DISK_GB': 5},
                           required_traits=avx2),)),
        dict(groups=(Group(resources={'VCPU': 2, 'DISK_GB': 5},
                           member_of=(agg_a,)),)),
        dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 20},
                           member_of=(agg_a,)),)),
        dict(groups=(Group(resources={'DISK_GB': 5}),
                     Group('1', {'VCPU': 2}, required_traits=avx2),
                     Group('2', {'VCPU': 2})), group_policy='isolate'),
        dict(groups=(Group(resources={'VCPU': 1}),
                     Group('1', {'DISK_GB': 5}, member_of=(agg_a,))),
             group_policy='none'),
        dict(groups=(Group(resources={'VCPU': 2, 'DISK_GB': 5},
                           forbidden_traits=frozenset({SHARES}),
                           member_of=(agg_a,)),),
             root_required=avx2),
    ]


@pytest.mark.parametrize('strategy', ['depth-first', 'breadth-first'])
def test_capacity_tested_on_the_trees_loaded_answers_as_probed(
        many_roots, monkeypatch, strategy):
    """The capacity of a window's providers is tested once the trees
    that pass the other conditions are loaded, not probed by the
    window's statement (but that of the sharing providers): the answers
    are those of the probes, with and without a limit (units, usage and
    overcommitted providers included)."""
    many_roots.provider('BIG', inventory={
        'VCPU': {'total': 16, 'min_unit': 2, 'step_size': 2,
                 'allocation_ratio': 1.5}, 'DISK_GB': 40},
        traits=['HW_CPU_X86_AVX2'], aggregates=['aggA'])
    many_roots.provider('BIG_NUMA', 'BIG', {'VCPU': {'total': 4,
                                                     'max_unit': 1}})
    many_roots.allocate('H00', 'VCPU', 2)
    many_roots.allocate('H03', 'VCPU', 1)
    many_roots.allocate('H04_NUMA', 'VCPU', 5)      # overcommitted
    many_roots.allocate('SS', 'DISK_GB', 90)
    requests = _narrowed_requests(many_roots)

    def answers():
        return _answers_by_limit(many_roots, requests, strategy)
    tests = _capacity_tests(monkeypatch)
    tested = answers()
    # A later window may test more (after a window of few trees that
    # serve).
    assert tests[0] == candidate_narrowing.ON_TREES
    # Bounded by what could serve (a suffixed group's disk, which the
    # sharing provider has too, bounds no tree).
    _capacity_probed(monkeypatch, candidate_narrowing.COULD_SERVE)
    tests.clear()
    assert tested == answers()
    assert tests[0] == candidate_narrowing.COULD_SERVE
    _capacity_probed(monkeypatch)
    tests.clear()
    assert tested == answers()
    assert tests and set(tests) == {candidate_narrowing.SERVES_NOW}
    assert all(candidates for candidates, _ in tested[:4])


def _busy(many_roots):
    """Most hosts of ``many_roots`` made full for the request it returns
    (two VCPUs on an AVX2 host)."""
    for index in range(10):
        many_roots.allocate(f'H{index:02}', 'VCPU', 2)
        if index % 2 == 0:
            many_roots.allocate(f'H{index:02}_NUMA', 'VCPU', 4)
    return Group(resources={'VCPU': 2},
                 required_traits=(frozenset({'HW_CPU_X86_AVX2'}),))


def test_a_busy_cloud_probes_capacity_after_a_window_of_few(
        many_roots, monkeypatch):
    """Once most trees that pass a window's other conditions cannot
    serve (a busy cloud), the later windows' statements test more of the
    capacity, a step a window: what could serve were nothing allocated,
    then what can serve now (and load only the trees that can)."""
    two = _busy(many_roots)
    tests = _capacity_tests(monkeypatch)
    found = many_roots.allocations(two, limit=1)
    # A step a window (the first holds no tree that passes): windows of
    # SS; H00-H01; H02-H05; H06-H11.
    assert tests == [candidate_narrowing.ON_TREES,
                     candidate_narrowing.ON_TREES,
                     candidate_narrowing.COULD_SERVE,
                     candidate_narrowing.SERVES_NOW]
    _capacity_probed(monkeypatch)
    assert found == many_roots.allocations(two, limit=1) == []


def _pci_world(world):
    """nova's PCI request and the names of the roots with a device: one
    tree in four has one (H00's is taken), its trait (OWNER_NOVA) every
    root has too."""
    owner = 'OWNER_NOVA'
    with_device = set()
    for index in range(16):
        root = f'H{index:02}'
        world.provider(root, inventory={'VCPU': 4}, traits=[owner])
        if index % 4 == 0:
            world.provider(f'{root}_PCI', root, {'PCI_DEVICE': 1},
                           traits=[owner])
            with_device.add(root)
    world.allocate('H00_PCI', 'PCI_DEVICE', 1)
    return (Group(resources={'VCPU': 1}),
            Group('_PCI', {'PCI_DEVICE': 1},
                  required_traits=(frozenset({owner}),))), with_device


def test_a_device_few_trees_have_bounds_the_trees_loaded(
        world, monkeypatch):
    """nova's PCI group: a device one tree in four has, with a trait
    every root has too. The first windows load every tree the traits
    let through (few of which can serve); the later ones only the trees
    holding a device that could serve were nothing allocated; the
    answers are those of the probes, with and without a limit."""
    monkeypatch.setattr(candidate_windows, 'FIRST_WINDOW', 1)
    groups, with_device = _pci_world(world)
    loaded = _trees_loaded_by_test(monkeypatch, world)
    found = [world.allocations(*groups, limit=limit, group_policy='none')
             for limit in (None, 1, 2)]
    assert found[0] == sorted(
        named((f'H{index:02}', {'VCPU': 1}),
              (f'H{index:02}_PCI', {'PCI_DEVICE': 1}))
        for index in (4, 8, 12))
    assert any(roots - with_device
               for roots in loaded[candidate_narrowing.ON_TREES])
    assert loaded[candidate_narrowing.COULD_SERVE]
    assert all(roots <= with_device
               for roots in loaded[candidate_narrowing.COULD_SERVE])
    _capacity_probed(monkeypatch)
    assert found == [world.allocations(*groups, limit=limit,
                                       group_policy='none')
                     for limit in (None, 1, 2)]


def test_a_request_starts_where_its_last_search_stepped_up(
        world, monkeypatch):
    """nova's PCI request, sent again: its search starts at the capacity
    test the last one stepped up to (its first window then loads only
    trees holding a device), with the same answers."""
    monkeypatch.setattr(candidate_windows, 'FIRST_WINDOW', 1)
    groups, _ = _pci_world(world)
    tests = _windows_tests(monkeypatch)
    first = world.allocations(*groups, limit=2, group_policy='none')
    assert tests[0] == candidate_narrowing.ON_TREES
    assert tests[-1] == candidate_narrowing.COULD_SERVE
    tests.clear()
    assert world.allocations(*groups, limit=2, group_policy='none') == first
    assert tests[0] == candidate_narrowing.COULD_SERVE
    # Another request starts low.
    tests.clear()
    world.allocations(Group(resources={'VCPU': 2}), *groups[1:], limit=2,
                      group_policy='none')
    assert tests[0] == candidate_narrowing.ON_TREES


def test_a_request_whose_roots_qualify_again_starts_low_again(
        many_roots, monkeypatch):
    """A busy cloud's request starts where its last search stepped up
    while its roots rarely qualify; once most do (the cloud freed), the
    search after the first that finds so starts at ON_TREES."""
    two = _busy(many_roots)
    tests = _windows_tests(monkeypatch)

    def first_test():
        tests.clear()
        many_roots.allocations(two, limit=1)
        return tests[0]
    assert first_test() == candidate_narrowing.ON_TREES
    assert first_test() == candidate_narrowing.SERVES_NOW
    with many_roots.db.writer() as conn:
        conn.execute(sa.delete(ALLOC))
    assert first_test() == candidate_narrowing.SERVES_NOW
    assert first_test() == candidate_narrowing.ON_TREES


@pytest.mark.parametrize('test', [candidate_narrowing.ON_TREES,
                                  candidate_narrowing.COULD_SERVE])
def test_a_group_a_sharing_provider_serves_bounds_no_tree(
        shared_disk, monkeypatch, test):
    """A suffixed group of disk, which the sharing provider has: the
    host without disk is a candidate, whatever the capacity test (a
    required trait: narrowed by the windows' statements)."""
    _capacity_probed(monkeypatch, test)
    tests = _capacity_tests(monkeypatch)
    assert shared_disk.allocations(
        Group(resources={'VCPU': 1},
              required_traits=(frozenset({'HW_CPU_X86_AVX2'}),)),
        Group('1', {'DISK_GB': 10}), group_policy='none') == [
            named(('CN', {'VCPU': 1}), ('SS', {'DISK_GB': 10}))]
    assert set(tests) == {test}


def _windows_tests(monkeypatch):
    """How the capacity of each window's providers is tested
    (:data:`candidate_narrowing.ON_TREES`...), as each is narrowed."""
    tests = []
    narrow = candidate_narrowing.Narrowing.narrow

    def narrowing(narrowing, window, trees=None):
        tests.append(narrowing.capacity_test)
        return narrow(narrowing, window, trees)
    monkeypatch.setattr(candidate_narrowing.Narrowing, 'narrow', narrowing)
    return tests


def _trees_loaded_by_test(monkeypatch, world):
    """``{capacity test: [names of the roots loaded by a window]}`` of
    the windows whose capacity is tested on their trees."""
    loaded = collections.defaultdict(list)
    narrow = candidate_narrowing.Narrowing.narrow
    load_roots = candidate_loading.Trees.load_roots
    testing = []

    def narrowing(narrowing, window, trees=None):
        testing.append(narrowing.capacity_test)
        return narrow(narrowing, window, trees)

    def loading(trees, roots, *args):
        providers = load_roots(trees, roots, *args)
        loaded[testing[-1]].append(
            {world.names[providers[root].uuid] for root in roots})
        return providers
    monkeypatch.setattr(candidate_narrowing.Narrowing, 'narrow', narrowing)
    monkeypatch.setattr(candidate_loading.Trees, 'load_roots', loading)
    return loaded


def test_a_busy_cloud_narrowed_by_queries_tests_sharing_on_their_trees(
        many_roots, monkeypatch):
    """A request of resources alone reads no sharing capacity with the
    names; once a busy window turns the later ones to queries, those
    test the sharing disk on its tree, loaded with the first window."""
    for index in range(9):
        many_roots.allocate(f'H{index:02}', 'VCPU', 2)
        if index % 2 == 0:
            many_roots.allocate(f'H{index:02}_NUMA', 'VCPU', 4)
    disk = Group(resources={'VCPU': 1, 'DISK_GB': 50})
    queried = _counted_narrowing_queries(monkeypatch)
    found = [many_roots.allocations(disk, limit=limit)
             for limit in (1, 2, None)]
    assert queried
    assert found == [[named(('H09', {'VCPU': 1}), ('SS', {'DISK_GB': 50}))]
                     ] * 3
    monkeypatch.setattr(candidate_narrowing, 'by_capacity_alone',
                        lambda request: False)
    assert found == [many_roots.allocations(disk, limit=limit)
                     for limit in (1, 2, None)]


@pytest.fixture
def shared_disk(world):
    """A host without disk, with AVX2, in aggA, and a sharing disk in
    aggA with a reserve, an allocation ratio and unit rules: capacity
    floor((100 - 10) x 1.5) = 135, 30 of it used."""
    world.provider('SS', inventory={'DISK_GB': {
        'total': 100, 'reserved': 10, 'allocation_ratio': 1.5,
        'min_unit': 10, 'max_unit': 60, 'step_size': 5}},
        traits=[SHARES], aggregates=['aggA'])
    world.provider('CN', inventory={'VCPU': 4},
                   traits=['HW_CPU_X86_AVX2'], aggregates=['aggA'])
    world.allocate('SS', 'DISK_GB', 30)
    return world


def _shared_disk_requests(world, disk):
    """Requests of ``disk`` GB that the window's statements narrow (not
    resources alone): the disk in the unsuffixed group (with a required
    trait met by the host, or not) or in a suffixed one."""
    agg_a = (frozenset({world.aggregates['aggA']}),)
    avx2 = (frozenset({'HW_CPU_X86_AVX2'}),)
    return [
        dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': disk},
                           member_of=agg_a),)),
        dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': disk},
                           required_traits=avx2),)),
        dict(groups=(Group(resources={'VCPU': 1}),
                     Group('1', {'DISK_GB': disk}, member_of=agg_a)),
             group_policy='none'),
    ]


@pytest.mark.parametrize('disk, served', [
    (5, False),         # below min_unit
    (10, True),
    (12, False),        # not a step of 5
    (60, True),
    (65, False),        # above max_unit
])
def test_a_sharing_provider_serves_by_its_units_and_capacity(
        shared_disk, disk, served):
    """A sharing provider serves a slot by the capacity rule (reserve,
    allocation ratio, usage) and its unit rules, with and without a
    limit; once what is left is less than asked, it serves no more
    (the statements kept built read its usage anew)."""
    expected = ([named(('CN', {'VCPU': 1}), ('SS', {'DISK_GB': disk}))]
                if served else [])
    requests = _shared_disk_requests(shared_disk, disk)
    for limit in (None, 1):
        for params in requests:
            assert _allocations(shared_disk, params, limit) == expected
    # 135 - 30 - 50: 55 left.
    shared_disk.allocate('SS', 'DISK_GB', 50)
    for params in requests:
        assert _allocations(shared_disk, params) == (
            expected if disk <= 55 else [])


def _allocations(world, params, limit=None):
    """:meth:`World.allocations` of a request's ``params``."""
    params = dict(params)
    return world.allocations(*params.pop('groups'), limit=limit, **params)


def test_the_narrowing_statement_probes_no_capacity(shared_disk,
                                                    monkeypatch):
    """The window's narrowing statement reads no inventory and no
    allocation, those of the sharing providers neither (their capacity
    is tested on what the look-up of the names read), and answers as
    when every capacity was probed (an explanation's statements)."""
    monkeypatch.setattr(candidate_narrowing, '_KEPT', kept.Kept(256))
    built = []
    window_statement = candidate_narrowing.Narrowing._window_statement

    def recorded(narrowing, *args):
        built.append(window_statement(narrowing, *args))
        return built[-1]
    monkeypatch.setattr(candidate_narrowing.Narrowing, '_window_statement',
                        recorded)
    requests = [*_shared_disk_requests(shared_disk, 20),
                *_shared_disk_requests(shared_disk, 110)]
    tested = _answers_by_limit(shared_disk, requests, 'depth-first')
    assert built
    with shared_disk.db.reader() as conn:
        for statement in built:
            sql = str(statement.compile(dialect=conn.dialect))
            assert 'allocations' not in sql and 'inventories' not in sql
    assert tested[0][0] and not tested[-1][0]
    _capacity_probed(monkeypatch)
    assert tested == _answers_by_limit(shared_disk, requests,
                                       'depth-first')


def test_an_explanation_counts_a_full_sharing_provider_out(shared_disk):
    """The explanation narrows as the search does: a sharing disk that
    cannot serve reaches no tree, one that can is counted as the trees
    it reaches."""
    for disk, trees in ((20, 1), (110, 0)):
        for params in _shared_disk_requests(shared_disk, disk)[:1]:
            with shared_disk.db.reader() as conn:
                explained = explain.explain(conn, Request(**params), 10)
            assert (explained.trees, explained.candidates) == (
                trees, trees)


WINDOW_REQUESTS = [
    dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 5}),)),
    dict(groups=(Group(resources={'VCPU': 1, 'DISK_GB': 50}),)),
    dict(groups=(Group(resources={'VCPU': 1}),),
         root_forbidden=frozenset({'HW_CPU_X86_AVX2'})),
    dict(groups=(Group(resources={'DISK_GB': 5}),
                 Group('1', {'VCPU': 3})), group_policy='none'),
]


@pytest.mark.parametrize('params', WINDOW_REQUESTS)
@pytest.mark.parametrize('strategy', ['depth-first', 'breadth-first'])
def test_a_limit_searched_by_windows_finds_the_first_candidates(
        many_roots, params, strategy):
    """Window after window, the candidates are the first of the whole
    answer, in the same order, with the same summaries."""
    def search(limit):
        with many_roots.db.reader() as conn:
            return allocation_candidate.get_candidates(
                conn, Request(limit=limit, **params),
                conf(strategy=strategy))
    everything = search(None)
    assert len(everything.candidates) > 3
    for limit in (1, 3, len(everything.candidates),
                  len(everything.candidates) + 5):
        found = search(limit)
        assert found.candidates == everything.candidates[:limit]
        shown = {uuid for candidate in found.candidates
                 for uuid in candidate.allocations}
        assert shown <= set(found.summaries) <= set(everything.summaries)


def test_a_first_window_holds_as_many_more_roots_as_aggregates_are_rare(
        many_roots, monkeypatch):
    """5 of the 19 providers (all the ids the sample reaches) are in
    aggA: for 3 candidates of hosts in it the first window holds 11
    roots (3 x 19 / 5), which hold H00 and H06 (two candidates each: the
    root or its NUMA node), H03 and H09, rather than 3 (SS, H00 and H01:
    two candidates). (11 roots are more than the 5 members: the
    whole cloud is searched in one window, without bounds, unless the
    share of the members is made larger than it is: see the next test.)"""
    share = candidate_narrowing.Narrowing.members_share
    monkeypatch.setattr(
        candidate_narrowing.Narrowing, 'members_share',
        lambda *args: share(*args)._replace(ids=1000))
    everything, found, windows = _in_aggregate_a(many_roots, monkeypatch)
    assert len(everything.candidates) == 6
    assert found.candidates == everything.candidates[:3]
    assert len(windows) == 1
    with many_roots.db.reader() as conn:
        after, last = windows[0]
        assert conn.scalar(sa.select(sa.func.count()).where(
            RP.c.parent_provider_id.is_(None), RP.c.id > after,
            RP.c.id <= last)) == 11


def test_a_first_window_of_most_ids_is_the_whole_cloud(
        many_roots, monkeypatch):
    """The first window of the last test would probe 11 roots, more than
    the 5 providers in the aggregate: the search takes every root in one
    window without bounds, whose conditions are joined as without a
    limit."""
    everything, found, windows = _in_aggregate_a(many_roots, monkeypatch)
    assert found.candidates == everything.candidates[:3]
    assert windows == [(None, None)]


def _in_aggregate_a(many_roots, monkeypatch):
    """The candidates of hosts in aggA, all and ``limit=3``, and the
    windows the limited search narrowed."""
    windows = _narrowed_windows(monkeypatch)
    group = Group(resources={'VCPU': 1},
                  member_of=({many_roots.aggregates['aggA']},))
    with many_roots.db.reader() as conn:
        everything = allocation_candidate.get_candidates(
            conn, Request(groups=(group,)), conf())
        windows.clear()
        found = allocation_candidate.get_candidates(
            conn, Request(groups=(group,), limit=3), conf())
    return everything, found, windows


def _narrowed_windows(monkeypatch):
    """The windows the searches narrow from now on, in a list."""
    windows = []
    narrow = candidate_narrowing.Narrowing.narrow

    def counted(narrowing, window, trees=None):
        windows.append(window)
        return narrow(narrowing, window, trees)

    monkeypatch.setattr(candidate_narrowing.Narrowing, 'narrow', counted)
    return windows


NO_SUCH = frozenset({'HW_CPU_X86_SSE'})     # a trait no provider has
MATCHING_NOTHING = {
    'more than any inventory holds': dict(
        groups=(Group(resources={'VCPU': 5}),)),
    'a trait no provider has': dict(
        groups=(Group(resources={'VCPU': 1}, required_traits=(NO_SUCH,)),)),
    'a root trait no provider has': dict(
        groups=(Group(resources={'VCPU': 1}),), root_required=(NO_SUCH,)),
    'an aggregate that does not exist': dict(
        groups=(Group(resources={'VCPU': 1},
                      member_of=(frozenset({str(uuid.uuid4())}),)),)),
    'a suffixed group of a trait no provider has': dict(
        groups=(Group(resources={'VCPU': 1}),
                Group('1', required_traits=(NO_SUCH,)))),
}


@pytest.mark.parametrize('name', sorted(MATCHING_NOTHING))
def test_a_request_that_can_match_nothing_searches_no_window(
        many_roots, monkeypatch, name):
    """A condition that no row of the cloud meets answers at once, rather
    than after every window of roots was searched."""
    windows = _narrowed_windows(monkeypatch)
    with many_roots.db.reader() as conn:
        found = allocation_candidate.get_candidates(
            conn, Request(limit=3, **MATCHING_NOTHING[name]), conf())
    assert (found.candidates, found.summaries, windows) == ([], {}, [])


def test_conditions_met_apart_but_not_together_are_searched(
        many_roots, monkeypatch):
    """VCPU:3 fits the NUMA nodes, AVX2 is on hosts: each exists, no
    provider has both, and only the windows' search can tell."""
    windows = _narrowed_windows(monkeypatch)
    group = Group('1', {'VCPU': 3},
                  required_traits=(frozenset({'HW_CPU_X86_AVX2'}),))
    with many_roots.db.reader() as conn:
        found = allocation_candidate.get_candidates(
            conn, Request(groups=(group,), limit=3), conf())
    assert found.candidates == []
    assert len(windows) > 1


@pytest.mark.parametrize('params', WINDOW_REQUESTS)
def test_randomized_windows_find_distinct_candidates(many_roots, params):
    with many_roots.db.reader() as conn:
        everything = allocation_candidate.get_candidates(
            conn, Request(**params), conf())
        limit = len(everything.candidates) - 1
        found = allocation_candidate.get_candidates(
            conn, Request(limit=limit, **params), conf(randomize=True))
    keys = [many_roots.named(c) for c in found.candidates]
    assert len(set(keys)) == len(keys) == limit
    assert set(keys) <= {many_roots.named(c) for c in everything.candidates}


def test_a_dense_batch_of_roots_is_read_as_a_range_of_the_trees_asked(
        world):
    """The roots of flat hosts are a range (no list of ids to expand);
    the trees of the range that were not asked for are dropped, those
    of sharing roots outside it are read too."""
    for index in range(5):
        world.provider(f'H{index}', inventory={'VCPU': 2},
                       traits=['CUSTOM_X'] if index == 2 else ())
        if index == 0:
            world.provider('H0_NUMA', 'H0', {'VCPU': 4})
    world.provider('SS', inventory={'DISK_GB': 100}, traits=[SHARES])
    with world.db.reader() as conn:
        ids = dict(conn.execute(sa.select(RP.c.uuid, RP.c.id)).all())
        root = {name: ids[world.uuids[name]]
                for name in ('H0', 'H1', 'H3', 'H4', 'SS')}
        roots = candidate_folding.TreeRoots.of(
            [root['H0'], root['H1'], root['H3'], root['H4']], [root['SS']])
        assert roots.ranged and roots.others == [root['SS']]
        loaded = candidate_loading.load_providers(
            conn, roots, candidate_names.Names(conn))
    assert sorted(world.names[p.uuid] for p in loaded.values()) == [
        'H0', 'H0_NUMA', 'H1', 'H3', 'H4', 'SS']


@pytest.fixture
def sharing_kinds(world):
    """Sharing providers that a group's conditions tell apart: one in a
    tree whose root is in aggR, one with a trait, one also in aggF, one
    with a forbidden trait and in no aggregate."""
    world.provider('RT', inventory={'VCPU': 4}, aggregates=['aggR'])
    world.provider('SC', 'RT', {'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA'])
    world.provider('SA', inventory={'DISK_GB': 100},
                   traits=[SHARES, 'CUSTOM_GOLD'], aggregates=['aggA'])
    world.provider('SB', inventory={'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA', 'aggF'])
    world.provider('SD', inventory={'DISK_GB': 100},
                   traits=[SHARES, 'CUSTOM_BAD'])
    world.provider('CN', inventory={'VCPU': 4}, traits=['CUSTOM_GOLD'],
                   aggregates=['aggA', 'aggR'])
    # A uuid stored in upper case (written before uuids were made
    # canonical): MariaDB's collation matches the lower case one asked.
    world.provider('SU', inventory={'DISK_GB': 100}, traits=[SHARES])
    with world.db.writer() as conn:
        conn.execute(sa.update(RP).where(RP.c.uuid == world.uuids['SU'])
                     .values(uuid=world.uuids['SU'].upper()))
    return world


def _sharing_kinds_groups(world):
    """Groups (unsuffixed, or suffixed ``1``) of a disk whose conditions
    each sharing provider of :func:`sharing_kinds` meets or not."""
    agg = {name: world.aggregates[name] for name in ('aggA', 'aggR', 'aggF')}
    disk = {'DISK_GB': 10}
    found = []
    for suffix in ('', '1'):
        found += [
            Group(suffix, disk),
            Group(suffix, disk, member_of=({agg['aggA']},)),
            Group(suffix, disk, member_of=({agg['aggR']},)),
            Group(suffix, disk, member_of=({agg['aggA']}, {agg['aggF']})),
            Group(suffix, disk, member_of=({agg['aggF'], agg['aggR']},)),
            Group(suffix, disk, member_of=({str(uuid.uuid4())},)),
            Group(suffix, disk, forbidden_aggregates=frozenset(
                {agg['aggF']})),
            Group(suffix, disk, forbidden_aggregates=frozenset(
                {agg['aggR']})),
            Group(suffix, disk, forbidden_traits=frozenset({'CUSTOM_BAD'})),
            Group(suffix, disk, required_traits=({'CUSTOM_GOLD'},)),
            Group(suffix, disk, required_traits=(
                {'CUSTOM_GOLD', 'CUSTOM_BAD'},)),
            Group(suffix, disk, in_tree=world.uuids['RT']),
            Group(suffix, disk, in_tree=world.uuids['SA']),
            Group(suffix, disk, in_tree=str(uuid.uuid4())),
            Group(suffix, disk, in_tree=world.uuids['SU']),
        ]
    return found


def test_sharing_providers_are_tested_as_the_database_would(sharing_kinds):
    """The sharing providers a group's narrowing keeps, tested on what
    the look-up read of them (their aggregates and their root's, the
    request's traits they have, the roots of ``in_tree``), are those
    the group's conditions keep in SQL; the window's statement reads
    none of them (no second part for them: fails without)."""
    world = sharing_kinds
    for group in _sharing_kinds_groups(world):
        groups = ((group,) if not group.suffix
                  else (Group(resources={'VCPU': 1}), group))
        request = Request(groups=groups, group_policy='none')
        with world.db.reader() as conn:
            narrowing = candidate_narrowing.Narrowing(conn, request)
            tested = {int(row[0]) for row in narrowing._sharing_rows(
                [group])}
            conditions = narrowing._group_conditions(group)
            queried = set(conn.scalars(sa.select(RP.c.id).where(
                RP.c.id.in_(sorted(narrowing.sharing)), *conditions,
                *narrowing._group_traits(group, True))))
            assert tested == queried, group
            each = candidate_narrowing._one_query_each(request.groups)
            sql = str(narrowing._window_statement(
                each, (None, None), False).compile(dialect=conn.dialect))
            # A part per query, none for the sharing providers.
            assert sql.upper().count('UNION') == len(each) - 1, group


def test_suffixed_groups_of_one_query_flag_sharing_providers_by_traits(
        sharing_kinds):
    """Suffixed groups that differ only by traits share a query: each
    sharing provider's row flags the groups whose traits it meets, and
    is left out if it meets none."""
    world = sharing_kinds
    disk = {'DISK_GB': 10}
    groups = (Group('1', disk, required_traits=({'CUSTOM_GOLD'},)),
              Group('2', disk, forbidden_traits=frozenset({'CUSTOM_BAD'})))
    request = Request(groups=(Group(resources={'VCPU': 1}), *groups),
                      group_policy='none')
    with world.db.reader() as conn:
        narrowing = candidate_narrowing.Narrowing(conn, request)
        ids = {provider_id: world.names[uuid_.lower()]
               for uuid_, provider_id in conn.execute(
                   sa.select(RP.c.uuid, RP.c.id))}
        # The last fields: a flag per group.
        rows = {ids[int(row[0])]: row[-2:]
                for row in narrowing._sharing_rows(list(groups))}
    assert rows == {'SA': ['1', '1'], 'SB': ['0', '1'], 'SC': ['0', '1'],
                    'SU': ['0', '1']}


def test_a_tree_s_aggregates_are_each_named_once(world):
    """Two providers of a tree in one aggregate: the narrowing reads the
    tree's aggregates (:func:`candidate_folding.ids_among`) once each,
    as a text no longer than the aggregates asked for joined."""
    world.provider('CN', inventory={'VCPU': 4}, aggregates=['aggA', 'aggB'])
    world.provider('NUMA', 'CN', {'VCPU': 4}, aggregates=['aggA'])
    with world.db.reader() as conn:
        ids = sorted(conn.scalars(sa.select(AGG.c.id)))
        found = conn.execute(sa.select(
            RP.c.id, candidate_narrowing._tree_aggregates(ids))).all()
    assert len(found) == 2
    assert {tuple(sorted(map(int, text.split(',')))) for _, text in found} \
        == {tuple(ids)}


def test_the_narrowing_statement_makes_no_on_disk_table(sharing_kinds):
    """On MariaDB, a window's narrowing statement keeps its derived
    table and its folded rows in memory: the texts read beside each
    provider (its tree's aggregates, the traits it holds) are no BLOBs,
    which an on-disk temporary table would hold, made at each
    execution."""
    world = sharing_kinds
    request = Request(groups=(Group(
        resources={'VCPU': 1, 'DISK_GB': 10},
        member_of=({world.aggregates['aggA']},),
        required_traits=({'CUSTOM_GOLD'},)),), limit=10)
    with world.db.reader() as conn:
        if conn.dialect.name != 'mysql':
            pytest.skip('MariaDB/MySQL temporary tables')
        narrowing = candidate_narrowing.Narrowing(conn, request)
        statement = narrowing._window_statement(
            candidate_narrowing._one_query_each(request.groups),
            (0, conn.scalar(sa.select(sa.func.max(RP.c.id)))), True)

        def disk_tables():
            return int(conn.exec_driver_sql(
                "SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'"
            ).one()[1])
        before = disk_tables()
        rows = conn.execute(statement).all()
        assert disk_tables() == before
    assert rows


def test_the_trees_of_a_few_flat_roots_are_read_a_row_per_provider(world):
    """A load of a few roots listed, flat, reads a row per provider on
    MariaDB (their usage folded), loading what the same trees read
    folded load, and without an on-disk temporary table, which the folded rows,
    holding each provider's inventories and traits as BLOBs, make at
    each execution."""
    world.provider('H0', inventory={'VCPU': 8, 'MEMORY_MB': 4096},
                   traits=['CUSTOM_GOLD', 'HW_CPU_X86_AVX2'])
    world.provider('H0_NUMA', 'H0', {'VCPU': 4}, traits=['CUSTOM_GOLD'])
    world.provider('H1', inventory={'VCPU': 2, 'DISK_GB': {
        'total': 100, 'reserved': 10, 'allocation_ratio': 1.5,
        'step_size': 5, 'max_unit': 50}})
    world.provider('H2')
    world.provider('OTHER', inventory={'VCPU': 2})
    world.allocate('H1', 'VCPU', 1)
    world.allocate('H1', 'VCPU', 1)
    world.allocate('H1', 'DISK_GB', 20)
    world.allocate('OTHER', 'VCPU', 2)
    with world.db.reader() as conn:
        ids = dict(conn.execute(sa.select(RP.c.uuid, RP.c.id)).all())
        root = {name: ids[world.uuids[name]] for name in ('H0', 'H1', 'H2')}
        listed = candidate_folding.TreeRoots.of([], sorted(root.values()))
        assert not candidate_loading._folded(listed, True, 'mysql')
        assert candidate_loading._folded(listed, False, 'mysql')
        assert candidate_loading._folded(listed, True, 'postgresql')
        assert candidate_loading._folded(
            candidate_folding.TreeRoots.of_window(1, 1000, []), True,
            'mysql')
        rows = conn.execute(candidate_loading._LOAD_FEW_TREES.params(
            listed.params())).all()
        assert sorted(tag for _, tag in rows) == ['providers'] * 4 + [
            'usage']
        names = candidate_names.Names(conn)
        if conn.dialect.name == 'mysql':
            def disk_tables():
                return int(conn.exec_driver_sql(
                    "SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'"
                ).one()[1])
            before = disk_tables()
            few = candidate_loading.load_providers(
                conn, listed, names, flat=True)
            assert disk_tables() == before
        else:
            few = candidate_loading.load_providers(
                conn, listed, names, flat=True)
        folded = candidate_loading.load_providers(conn, listed, names)
    assert few == folded
    assert sorted(world.names[p.uuid] for p in few.values()) == [
        'H0', 'H0_NUMA', 'H1', 'H2']
    h1 = few[root['H1']]
    assert (h1.inventories['VCPU'].used, h1.inventories['DISK_GB'].used) \
        == (2, 20)
    assert few[ids[world.uuids['H0_NUMA']]].traits == ('CUSTOM_GOLD',)


def test_a_flat_member_of_search_makes_no_on_disk_table(world):
    """On MariaDB, the search of a member_of + required request in flat
    trees (its narrowing finds roots only) makes no on-disk temporary
    table: its trees are loaded a row per provider. A nested request's
    (and any on the other databases) are loaded folded, and answer
    alike."""
    world.provider('CN', inventory={'VCPU': 4}, traits=['CUSTOM_GOLD'],
                   aggregates=['aggA'])
    world.provider('CN2', inventory={'VCPU': 4}, aggregates=['aggA'])
    world.provider('SA', inventory={'DISK_GB': 100}, traits=[SHARES],
                   aggregates=['aggA'])
    world.provider('NESTED', inventory={'DISK_GB': 10})
    world.provider('NESTED_NUMA', 'NESTED', {'VCPU': 4},
                   traits=['CUSTOM_GOLD'], aggregates=['aggN'])
    flat = Group(resources={'VCPU': 1}, member_of=(
        {world.aggregates['aggA']},), required_traits=({'CUSTOM_GOLD'},))
    nested = Group(suffix='1', resources={'VCPU': 1}, member_of=(
        {world.aggregates['aggN']},), required_traits=({'CUSTOM_GOLD'},))
    loads = []
    original = candidate_loading.load_providers

    def load_providers(conn, roots, names, flat=False):
        loads.append(candidate_loading._folded(
            roots, flat, conn.dialect.name))
        return original(conn, roots, names, flat)
    with world.db.reader() as conn:
        def disk_tables():
            return int(conn.exec_driver_sql(
                "SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'"
            ).one()[1]) if conn.dialect.name == 'mysql' else 0
        before = disk_tables()
        with unittest.mock.patch.object(
                candidate_loading, 'load_providers', load_providers):
            found = allocation_candidate.get_candidates(
                conn, Request(groups=(flat,), limit=10), conf())
            assert disk_tables() == before
            assert loads == [conn.dialect.name != 'mysql']
            in_nested = allocation_candidate.get_candidates(
                conn, Request(groups=(nested,), limit=10), conf())
            assert loads[1:] == [True]
    assert [world.names[c.uuids[0]] for c in found.candidates] == ['CN']
    assert [world.names[c.uuids[0]] for c in in_nested.candidates] == [
        'NESTED_NUMA']
