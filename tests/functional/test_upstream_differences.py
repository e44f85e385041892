"""Each case side-by-side comparison found against upstream 16.0.0,
replayed (:mod:`tests.functional.upstream_differences`): upstream's
answer where upstream is right; where it is not, what shows why.

Allocation requests are compared as multisets (their order is not part
of the answer), each one as ``{provider uuid: resources}``.
"""

import collections
import json

import pytest

from tests.functional import upstream_differences

pytestmark = pytest.mark.db


def _replay(api, number):
    return upstream_differences.replay(api, number)


def _requests(response):
    """The allocation requests of a 200 answer, as a multiset."""
    assert response.status_int == 200, response.text
    return collections.Counter(
        json.dumps({uuid: allocation['resources'] for uuid, allocation
                    in request['allocations'].items()}, sort_keys=True)
        for request in response.json['allocation_requests'])


def _expected(*requests):
    return collections.Counter(json.dumps(request, sort_keys=True)
                               for request in requests)


def test_case_1_delete_of_an_inventory_in_use_is_a_concurrent_update(api):
    response = _replay(api, 1)
    assert response.status_int == 409, response.text
    error = response.json['errors'][0]
    assert error['code'] == 'placement.concurrent_update'
    assert error['detail'].endswith(
        "Unable to delete inventory of class MEMORY_MB: Inventory for "
        "'MEMORY_MB' on resource provider "
        "'a7e14b71-01f0-49d2-823f-abd210223439' in use.")


def test_case_4_no_inventory_has_no_last_modified(api):
    response = _replay(api, 4)
    assert response.status_int == 200, response.text
    assert response.json == {'inventories': {},
                             'resource_provider_generation': 1}
    assert 'last-modified' not in response.headers
    assert response.headers['cache-control'] == 'no-cache'


def test_case_5_emptied_inventory_has_no_last_modified(api):
    given = upstream_differences.CASES[5]['differing_request_body']
    response = _replay(api, 5)
    assert response.status_int == 200, response.text
    assert response.json['inventories'] == {}
    # Upstream's answer: generation 2 after 1, one more than sent.
    assert response.json['resource_provider_generation'] >= (
        given['resource_provider_generation'] + 1)
    assert 'last-modified' not in response.headers


def test_case_6_the_group_policy_used_is_validated(api):
    """Upstream validates the last ``group_policy`` (isolate) and uses
    the first (bogus, taken as none): its first candidate maps groups
    ``1`` and ``ACCEL`` to one provider, which isolate forbids. Acting
    on a value never validated is upstream's bug; here the value that
    counts (the first, as upstream) is validated: 400."""
    response = _replay(api, 6)
    assert response.status_int == 400, response.text
    assert "'bogus' is not one of ['none', 'isolate']" in (
        response.json['errors'][0]['detail'])


def test_case_11_capacity_rounded_to_zero_before_1_26(api):
    response = _replay(api, 11)
    assert response.status_int == 400, response.text
    assert response.json['errors'][0]['detail'].endswith(
        "Unable to update inventory for resource provider "
        "2bbd8cdb-722c-44b4-8720-9e37ec94342d: Invalid inventory for "
        "'DISK_GB' on resource provider "
        "'2bbd8cdb-722c-44b4-8720-9e37ec94342d'. The reserved value is "
        "greater than or equal to total.")


def test_case_12_no_500_where_upstream_fails(api):
    """Upstream answers 500 (a KeyError) for required traits that no
    provider able to serve has: a 500 is always a bug. Nothing fits."""
    response = _replay(api, 12)
    assert response.status_int == 200, response.text
    assert response.json == {'allocation_requests': [],
                             'provider_summaries': {}}


def test_case_13_the_limit_used_is_validated(api):
    """Upstream validates the last ``limit`` (5) and uses the first
    (-1), slicing its candidates ``[:-1]``: it drops the last one. Here
    the first, which counts, is validated: 400."""
    response = _replay(api, 13)
    assert response.status_int == 400, response.text
    assert "'-1' does not match" in response.json['errors'][0]['detail']


def test_case_14_a_value_that_does_not_count_is_not_validated(api):
    response = _replay(api, 14)
    assert response.status_int == 200, response.text
    assert response.json == {'resource_providers': []}


# Case 2's providers: cn8 (a root with DISK_GB), cn10_n0_pf0 and
# cn12_n1_pf0 (grandchildren of cn8 with SRIOV_NET_VF and bandwidth).
CN8 = 'b036d9dd-ddf1-479f-9eb2-80e62c273105'
CN10_PF = 'f3bd423e-67c6-4462-99bb-b436002b4b4c'
CN12_PF = '61394c10-b553-4d8e-b8f2-c9447ac56992'
BW = 'NET_BW_EGR_KILOBIT_PER_SEC'


def test_case_2_a_provider_gives_what_its_groups_ask_together(api):
    """``resources=BW:10532,DISK_GB:1,SRIOV_NET_VF:1&resources2=DISK_GB:1
    &resources3=SRIOV_NET_VF:1&group_policy=isolate`` (1.33).

    Rule: a candidate takes from each provider the sum of what the
    groups it serves ask of it: DISK_GB 1 (unsuffixed) + 1 (group 2) =
    2 on cn8, SRIOV_NET_VF 1 + 1 = 2 over the two PFs. Upstream answers
    the same eight assignments but with DISK_GB 9 and SRIOV_NET_VF 3:
    it adds each group's amount into an allocation object that earlier
    candidates share, so amounts grow with every candidate built before.
    An answer asking for more than was requested is upstream's bug: this
    service's answer is kept (each way of assigning the groups once,
    hence the two pairs of identical requests)."""
    both = {CN8: {'DISK_GB': 2}}
    assert _requests(_replay(api, 2)) == _expected(
        {**both, CN10_PF: {BW: 10532, 'SRIOV_NET_VF': 2}},
        {**both, CN10_PF: {BW: 10532, 'SRIOV_NET_VF': 1},
         CN12_PF: {'SRIOV_NET_VF': 1}},
        {**both, CN10_PF: {BW: 10532, 'SRIOV_NET_VF': 1},
         CN12_PF: {'SRIOV_NET_VF': 1}},
        {**both, CN10_PF: {BW: 10532}, CN12_PF: {'SRIOV_NET_VF': 2}},
        {**both, CN10_PF: {'SRIOV_NET_VF': 2}, CN12_PF: {BW: 10532}},
        {**both, CN10_PF: {'SRIOV_NET_VF': 1},
         CN12_PF: {BW: 10532, 'SRIOV_NET_VF': 1}},
        {**both, CN10_PF: {'SRIOV_NET_VF': 1},
         CN12_PF: {BW: 10532, 'SRIOV_NET_VF': 1}},
        {**both, CN12_PF: {BW: 10532, 'SRIOV_NET_VF': 2}})


def test_case_3_summaries_before_1_29_are_of_the_providers_returned(api):
    """``limit=2&member_of=in:...&resources=VCPU:2`` (1.21): the tree of
    cn0 has three providers with VCPU that fit (cn0, cn1_numa0,
    cn3_numa1), the limit keeps cn0 and cn1_numa0.

    Rule: before 1.29 the provider summaries are those of the providers
    in the allocation requests returned (the API reference: "keyed by
    resource provider UUID included in the allocation_requests"), with
    a limit as without. Upstream, cutting its list to the limit, keeps
    the summaries of every provider of its whole answer whose root is
    the root of a kept one: cn3_numa1, which no returned candidate
    uses, and which it would not show without the limit. That
    contradicts its own reference: this service's answer is kept."""
    response = _replay(api, 3)
    assert _requests(response) == _expected(
        {'b54705e4-6e15-436b-ac81-6103bbae4d5f': {'VCPU': 2}},
        {'4ffe307a-64a7-4371-b4eb-68202f3835fa': {'VCPU': 2}})
    assert set(response.json['provider_summaries']) == {
        'b54705e4-6e15-436b-ac81-6103bbae4d5f',
        '4ffe307a-64a7-4371-b4eb-68202f3835fa'}


def test_case_7_a_reshape_keeping_an_allocation_over_capacity(api):
    """The reshape re-states consumer bb4a5fe8's VCPU 3 on cn4, whose
    VCPU inventory was since cut to 2 (PUT inventory allows that).

    Rule: a write of allocations is refused for capacity only where it
    asks a provider for more of a class than the consumers it replaces
    held there; one that leaves the usage as it was is accepted even on
    a provider over its capacity. Upstream accepts (204): it is right,
    the reshape makes nothing worse, and refusing it would block moving
    the rest of the tree's inventory until the consumer moves."""
    response = _replay(api, 7)
    assert response.status_int == 204, response.text
    allocations = upstream_differences.send(
        api, 'GET', '/allocations/bb4a5fe8-56e3-4d0f-be63-b92041a2ca4c',
        '1.39').json['allocations']
    assert allocations['10035845-2ef7-427c-8ade-f1a1fe3aae2b'][
        'resources'] == {'VCPU': 3}


# Cases 8 and 9: cn0 (a root in aggregate 27837704, VCPU), ss1 (sharing,
# in 27837704, bandwidth), cn7_numa0 (in 27837704 itself, VCPU; its
# root cn6 is in no aggregate).
CN0 = '81187003-8bcd-4acb-a164-c2670b9f15ec'
SS1 = '415353fd-5380-46cc-b8e2-9ed0f0014aa3'
CN7_NUMA0 = '16f84ef0-1fbe-4f14-b385-ca820a658a6b'
CN6 = '2a9f638a-c2ff-40f5-b907-50df9529d683'


def _case_9_candidates():
    return ({SS1: {BW: 3}, CN0: {'VCPU': 3}},
            {SS1: {BW: 3}, CN7_NUMA0: {'VCPU': 3}})


def test_case_8_a_limit_above_the_answer_keeps_it_whole(api):
    """Case 9's request with ``limit=3``: both candidates (case 9 says
    why upstream has one)."""
    assert _requests(_replay(api, 8)) == _expected(*_case_9_candidates())


def test_case_9_a_tree_is_shared_with_through_any_of_its_providers(api):
    """``resources=BW:1&resources4=BW:2&resources5=VCPU:3
    &member_of5=27837704&group_policy=isolate`` (1.30).

    Rule: a sharing provider is shared with a whole tree when any
    provider of the tree is in one of its aggregates (the placement
    documentation, "Sharing providers": "sharing providers are shared by
    the whole tree if one of the resource providers from the tree is
    connected to the sharing provider via an aggregate"). cn7_numa0 is
    in ss1's aggregate, so ss1 serves cn6's tree: group 5 on cn7_numa0
    (in member_of5's aggregate itself), groups '' and 4 on ss1 (isolate
    only separates numbered groups). Upstream leaves that candidate
    out, and with it the summaries of cn6's tree, though every rule of
    the request holds: upstream is wrong, this service's answer is
    kept."""
    response = _replay(api, 9)
    assert _requests(response) == _expected(*_case_9_candidates())
    summaries = response.json['provider_summaries']
    assert {CN0, SS1, CN7_NUMA0, CN6} <= set(summaries)
    assert summaries[CN7_NUMA0]['root_provider_uuid'] == CN6


def test_case_10_a_provider_gives_what_its_groups_ask_together(api):
    """``resources=VCPU:26,MEMORY_MB:2,BW:1&resources5=DISK_GB:2,BW:1
    &required5=HW_CPU_X86_SSE&group_policy=isolate`` (1.28): one
    candidate, ss32 serving the bandwidth of both groups.

    Rule (case 2's): 1 + 1 = 2 on ss32. Upstream asks 3, the same
    accumulation bug as case 2: this service's answer is kept."""
    assert _requests(_replay(api, 10)) == _expected(
        {'2fb45f2a-42d9-4a2f-bab4-a3166b53bdc3': {'DISK_GB': 2, BW: 2},
         'dcae0822-4f20-4101-b434-02ede4be236b': {'VCPU': 26,
                                                  'MEMORY_MB': 2}})
