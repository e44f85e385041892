"""GET /allocation_candidates: query string parsing and response rendering.

The parser is driven with bare webob requests carrying a microversion;
each rule is checked just before and at the microversion that brings it.
The renderer gets hand-made :class:`Candidates`.
"""

import sys

import orjson
import pytest
import webob
import webob.exc

from placement import errors
from placement import exception
from placement import microversion
from placement import operations
from placement import provider_query
from placement import query
from placement import util
from placement.handlers import allocation_candidate as handler
from placement.objects import allocation_candidate as candidate_obj
from placement.objects import candidate_request as cr
from placement.objects import candidate_tree
from placement.objects import candidate_windows

#: The newest microversion.
LATEST = microversion.MAX_VERSION_STRING

UUID1 = 'ffffffff-0000-4000-8000-000000000001'
UUID2 = 'ffffffff-0000-4000-8000-000000000002'
AGG1 = 'ffffffff-aaaa-4000-8000-000000000001'
AGG2 = 'ffffffff-aaaa-4000-8000-000000000002'


def _req(query, version):
    req = webob.Request.blank(f'/allocation_candidates?{query}')
    req.environ[microversion.MICROVERSION_ENVIRON] = (
        microversion.parse(version))
    return req


_OPERATION = next(operation for operation in operations.OPERATIONS
                  if operation.path == '/allocation_candidates')


def parse(query_string, version=LATEST):
    """The CandidateRequest of ``query_string``: validated as the router
    does, then parsed."""
    req = _req(query_string, version)
    return provider_query.candidate_request(
        microversion.of(req), query.parse(_OPERATION, req))


def error_code(query, version=LATEST):
    """The code of the 400 that parsing ``query`` raises (the query
    string's checks and what the values mean raise the same exception).
    """
    with pytest.raises(exception.InvalidQuery) as info:
        parse(query, version)
    return info.value.code


def group(request, suffix=''):
    (found,) = [g for g in request.groups if g.suffix == suffix]
    return found


# resources (1.10) and the request without any resources.

def test_resources():
    request = parse('resources=VCPU:1,MEMORY_MB:512', '1.10')
    assert request == cr.CandidateRequest(
        groups=(cr.RequestGroup(resources={'VCPU': 1, 'MEMORY_MB': 512}),),
        nested=False)


@pytest.mark.parametrize('query', [
    'resources=', 'resources=VCPU', 'resources=VCPU:0', 'resources=VCPU:x',
    'resources=VCPU:1,VCPU:2', 'resources=VCPU:1,'])
def test_bad_resources(query):
    assert error_code(query) == errors.DEFAULT


@pytest.mark.parametrize('version', ['1.10', LATEST])
def test_resources_given_twice_the_last_counts(version):
    found = group(parse('resources=VCPU:1&resources=DISK_GB:2', version))
    assert found.resources == {'DISK_GB': 2}


def test_resources_given_twice_each_is_validated():
    assert error_code('resources=VCPU:x&resources=VCPU:2') == errors.DEFAULT


def test_whitespace_around_amounts_is_ignored():
    assert group(parse('resources=VCPU: 1 ,DISK_GB:\t2')).resources == {
        'VCPU': 1, 'DISK_GB': 2}


@pytest.mark.parametrize('version, code', [
    ('1.10', errors.DEFAULT),
    ('1.35', errors.DEFAULT),
    ('1.36', errors.QUERYPARAM_MISSING_VALUE),
])
def test_no_resources(version, code):
    assert error_code('limit=1', version) == code


@pytest.mark.parametrize('name, values', [
    ('limit', ['0', '-1', 'x', '01', '1.5', '', ' 1']),
    ('required', ['', 'A,,B', '!', 'in:', 'in:A,!B']),
    ('member_of', ['', 'nope', 'in:', f'in:{AGG1},', f'in:{AGG1},!{AGG2}']),
    ('in_tree', ['', 'nope']),
    ('group_policy', ['', 'None', 'all']),
    ('root_required', ['', 'A,', '!']),
])
def test_bad_values(name, values):
    for value in values:
        assert error_code(f'resources=VCPU:1&{name}={value}') == (
            errors.DEFAULT), value


def test_unknown_parameter():
    assert error_code('resources=VCPU:1&foo=bar') == errors.DEFAULT


def test_nested_from_1_29():
    assert not parse('resources=VCPU:1', '1.28').nested
    assert parse('resources=VCPU:1', '1.29').nested


# limit (1.16).

def test_limit():
    assert error_code('resources=VCPU:1&limit=5', '1.15') == errors.DEFAULT
    assert parse('resources=VCPU:1&limit=5', '1.16').limit == 5
    assert parse('resources=VCPU:1', '1.16').limit is None


def test_huge_limit():
    assert parse('resources=VCPU:1&limit=' + '9' * 30).limit == sys.maxsize


@pytest.mark.parametrize('version', ['1.16', LATEST])
def test_limit_given_twice_the_first_counts(version):
    assert parse('resources=VCPU:1&limit=3&limit=2', version).limit == 3


def test_limit_given_twice_each_is_validated():
    assert error_code('resources=VCPU:1&limit=3&limit=x') == errors.DEFAULT


# required (1.17; forbidden 1.22; repeated and in: 1.39).

def test_required():
    query = 'resources=VCPU:1&required=HW_CPU_X86_AVX,!HW_CPU_X86_SSE'
    assert error_code(query, '1.16') == errors.DEFAULT
    # Upstream's form of the value, before forbidden traits.
    assert error_code(query, '1.21') == errors.DEFAULT
    after = group(parse(query, '1.22'))
    assert after.required_traits == (frozenset({'HW_CPU_X86_AVX'}),)
    assert after.forbidden_traits == {'HW_CPU_X86_SSE'}


def test_required_repeated_and_any_of():
    query = 'resources=VCPU:1&required=in:A,B&required=C,!D'
    # "only supported since microversion 1.39", as upstream.
    assert error_code(query, '1.38') == errors.DEFAULT
    found = group(parse(query, LATEST))
    assert set(found.required_traits) == {
        frozenset({'A', 'B'}), frozenset({'C'})}
    assert found.forbidden_traits == {'D'}


@pytest.mark.parametrize('version', ['1.17', '1.38'])
def test_required_repeated_before_1_39_the_last_counts(version):
    found = group(parse('resources=VCPU:1&required=A&required=B,C', version))
    assert found.required_traits == (frozenset({'B'}), frozenset({'C'}))
    assert error_code('resources=VCPU:1&required=A,&required=B',
                      version) == errors.DEFAULT


def test_whitespace_around_traits_is_ignored():
    found = group(parse('resources=VCPU:1&required= A , !B&required=in: C, D'))
    assert set(found.required_traits) == {
        frozenset({'A'}), frozenset({'C', 'D'})}
    assert found.forbidden_traits == {'B'}
    request = parse('resources=VCPU:1&root_required= A , !B ')
    assert request.root_required == (frozenset({'A'}),)
    assert request.root_forbidden == {'B'}


@pytest.mark.parametrize('query, code', [
    ('required=A,!A', errors.DEFAULT),
    ('required=A&required=!A', errors.DEFAULT),
    ('required=in:A,B&required=A&required=!A', errors.DEFAULT),
    ('root_required=A,!A', errors.QUERYPARAM_BAD_VALUE),
])
def test_trait_required_and_forbidden(query, code):
    assert error_code(f'resources=VCPU:1&{query}') == code


@pytest.mark.parametrize('suffix', ['', '1'])
def test_trait_of_an_in_list_also_forbidden_is_as_written(suffix):
    """Upstream accepts it: B without A."""
    found = group(parse(f'resources{suffix}=VCPU:1&required{suffix}=in:A,B'
                        f'&required{suffix}=!A'), suffix)
    assert found.required_traits == (frozenset({'A', 'B'}),)
    assert found.forbidden_traits == {'A'}


def test_trait_required_and_forbidden_in_two_groups_is_fine():
    request = parse('resources1=VCPU:1&required1=A&resources2=VCPU:1'
                    '&required2=!A&group_policy=none')
    assert group(request, '2').forbidden_traits == {'A'}


# member_of (1.21; repeated 1.24; forbidden 1.32).

def test_member_of():
    query = f'resources=VCPU:1&member_of=in:{AGG1},{AGG2}'
    assert error_code(query, '1.20') == errors.DEFAULT
    assert group(parse(query, '1.21')).member_of == (
        frozenset({AGG1, AGG2}),)


def test_member_of_repeated():
    query = f'resources=VCPU:1&member_of={AGG1}&member_of={AGG2}'
    assert error_code(query, '1.23') == errors.DEFAULT
    assert set(group(parse(query, '1.24')).member_of) == {
        frozenset({AGG1}), frozenset({AGG2})}


def test_forbidden_member_of():
    query = f'resources=VCPU:1&member_of=!{AGG1}'
    assert error_code(query, '1.31') == errors.DEFAULT
    found = group(parse(query, '1.32'))
    assert found.member_of == ()
    assert found.forbidden_aggregates == {AGG1}


# in_tree (1.31).

def test_in_tree():
    query = f'resources=VCPU:1&in_tree={UUID1.upper()}'
    assert error_code(query, '1.30') == errors.DEFAULT
    assert group(parse(query, '1.31')).in_tree == UUID1


# Granular groups (1.25; string suffixes 1.33; in_treeN 1.31).

def test_granular_groups():
    query = ('resources=VCPU:1&resources2=SRIOV_NET_VF:1&required2=A'
             f'&member_of2={AGG1}&resources1=DISK_GB:5&group_policy=none')
    assert error_code(query, '1.24') == errors.DEFAULT
    request = parse(query, '1.25')
    assert [g.suffix for g in request.groups] == ['', '1', '2']
    assert request.groups[2] == cr.RequestGroup(
        suffix='2', resources={'SRIOV_NET_VF': 1},
        required_traits=(frozenset({'A'}),),
        member_of=(frozenset({AGG1}),))
    assert request.group_policy == 'none'


def test_only_granular_groups():
    request = parse('resources1=VCPU:1', '1.25')
    assert [g.suffix for g in request.groups] == ['1']


@pytest.mark.parametrize('suffix, version', [
    ('0', '1.25'), ('01', '1.25'), ('_A', '1.32'), ('x' * 65, '1.33'),
    ('a.b', '1.33'), ('a b', '1.33'), ('\n', '1.33')])
def test_bad_suffix(suffix, version):
    assert error_code(f'resources{suffix}=VCPU:1', version) == (
        errors.DEFAULT)


@pytest.mark.parametrize('suffix', ['_A', 'x' * 64, 'a-B_9', '0'])
def test_string_suffix(suffix):
    request = parse(f'resources{suffix}=VCPU:1', '1.33')
    assert [g.suffix for g in request.groups] == [suffix]


def test_in_tree_of_a_group():
    query = f'resources1=VCPU:1&in_tree1={UUID1}'
    assert error_code(query, '1.30') == errors.DEFAULT
    assert group(parse(query, '1.31'), '1').in_tree == UUID1


def test_granular_given_twice_the_last_counts():
    found = group(parse(f'resources1=VCPU:1&resources1=VCPU:2'
                        f'&in_tree1={UUID1}&in_tree1= {UUID2} '), '1')
    assert found.resources == {'VCPU': 2}
    assert found.in_tree == UUID2
    # As upstream, only the uuid used is checked.
    assert group(parse(f'resources1=VCPU:1&in_tree1=nope&in_tree1={UUID2}'),
                 '1').in_tree == UUID2
    assert error_code(
        f'resources1=VCPU:1&in_tree1={UUID2}&in_tree1=nope') == (
        errors.DEFAULT)


def test_granular_repeated_member_of_and_required():
    query = (f'resources1=VCPU:1&member_of1={AGG1}&member_of1={AGG2}'
             '&required1=A&required1=in:B,C')
    found = group(parse(query), '1')
    assert len(found.member_of) == 2
    assert set(found.required_traits) == {
        frozenset({'A'}), frozenset({'B', 'C'})}


# group_policy (1.25): required with more than one suffixed group.

@pytest.mark.parametrize('version', ['1.25', LATEST])
def test_group_policy_given_twice_the_first_counts(version):
    query = 'resources1=VCPU:1&group_policy=isolate&group_policy=none'
    assert parse(query, version).group_policy == 'isolate'
    assert error_code(f'{query}&group_policy=all', version) == errors.DEFAULT


def test_group_policy():
    assert error_code('resources=VCPU:1&group_policy=none', '1.24') == (
        errors.DEFAULT)
    assert parse('resources1=VCPU:1&group_policy=isolate',
                 '1.25').group_policy == 'isolate'
    assert parse('resources=VCPU:1&resources1=VCPU:1',
                 '1.25').group_policy is None


def test_group_policy_required():
    assert error_code('resources1=VCPU:1&resources2=VCPU:1', '1.25') == (
        errors.DEFAULT)


# Groups without resources: 400 before 1.36; from 1.36 only in
# same_subtree (suffixed) or anywhere (unsuffixed).

@pytest.mark.parametrize('query', [
    'resources1=VCPU:1&required2=A&group_policy=none',
    f'resources1=VCPU:1&member_of2={AGG1}&group_policy=none',
    'resources1=VCPU:1&required=A',
])
def test_resourceless_before_1_36(query):
    assert error_code(query, '1.35') == errors.DEFAULT


def test_resourceless_in_tree_before_1_36():
    assert error_code(f'resources1=VCPU:1&in_tree={UUID1}', '1.35') == (
        errors.DEFAULT)


def test_resourceless_group_outside_same_subtree():
    assert error_code('resources1=VCPU:1&required2=A&group_policy=none',
                      '1.36') == errors.QUERYPARAM_BAD_VALUE


def test_resourceless_group_in_same_subtree():
    request = parse('resources_A=VCPU:1&required_B=HW_NUMA_ROOT'
                    '&group_policy=none&same_subtree=_A,_B', '1.36')
    assert group(request, '_B') == cr.RequestGroup(
        suffix='_B', required_traits=(frozenset({'HW_NUMA_ROOT'}),))
    assert request.same_subtree == (frozenset({'_A', '_B'}),)


def test_resourceless_unsuffixed_group():
    request = parse('resources1=VCPU:1&required=A', '1.36')
    assert group(request) == cr.RequestGroup(
        required_traits=(frozenset({'A'}),))


def test_only_resourceless_groups():
    assert error_code('required1=A&same_subtree=1', '1.36') == (
        errors.QUERYPARAM_MISSING_VALUE)


# root_required (1.35).

def test_root_required():
    query = 'resources=VCPU:1&root_required=A,!B'
    assert error_code(query, '1.34') == errors.DEFAULT
    request = parse(query, '1.35')
    assert request.root_required == (frozenset({'A'}),)
    assert request.root_forbidden == {'B'}


def test_root_required_given_twice():
    assert error_code('resources=VCPU:1&root_required=A&root_required=B'
                      ) == errors.ILLEGAL_DUPLICATE_QUERYPARAM


def test_root_required_any_of():
    assert error_code('resources=VCPU:1&root_required=in:A,B') == (
        errors.QUERYPARAM_BAD_VALUE)


# same_subtree (1.36).

def test_same_subtree():
    query = ('resources_A=VCPU:1&resources_B=FPGA:1&resources_C=FPGA:1'
             '&group_policy=none&same_subtree=_A,_B&same_subtree=_B,_C')
    assert error_code(query, '1.35') == errors.DEFAULT
    assert parse(query, '1.36').same_subtree == (
        frozenset({'_A', '_B'}), frozenset({'_B', '_C'}))


@pytest.mark.parametrize('value', ['', '_A,', '_A,_X', 'A', ','])
def test_bad_same_subtree(value):
    query = f'resources_A=VCPU:1&same_subtree={value}'
    assert error_code(query) == errors.QUERYPARAM_BAD_VALUE


def test_same_subtree_does_not_name_the_unsuffixed_group():
    assert error_code('resources=VCPU:1&resources_A=VCPU:1'
                      '&same_subtree=,_A') == errors.QUERYPARAM_BAD_VALUE


# Rendering. A root with a child, and a sharing provider; one candidate
# takes VCPU from the root and DISK_GB from the sharing provider.

Provider = candidate_tree.Provider
ROOT = 'ffffffff-0000-4000-8000-00000000000a'
CHILD = 'ffffffff-0000-4000-8000-00000000000b'
SHARING = 'ffffffff-0000-4000-8000-00000000000c'

SUMMARIES = {
    ROOT: Provider(
        1, ROOT, None, 1, None, ROOT,
        {'VCPU': (8, 1, 7.0, 8), 'MEMORY_MB': (1024, 0, 1024.0, 1024)},
        ('HW_CPU_X86_AVX',)),
    CHILD: Provider(
        2, CHILD, 1, 1, ROOT, ROOT, {'SRIOV_NET_VF': (4, 0, 4.0, 4)}, ()),
    SHARING: Provider(
        3, SHARING, None, 3, None, SHARING, {'DISK_GB': (100, 10, 90.0, 100)},
        ('MISC_SHARES_VIA_AGGREGATE',)),
}
# Slot 0 (VCPU) chose ROOT, slot 1 (DISK_GB) SHARING.
CANDIDATE = cr.Candidate(
    uuids=(ROOT, SHARING),
    layout=(((0, {'VCPU': 1}), (1, {'DISK_GB': 10})), (('', (0, 1)),)))
REQUEST = cr.CandidateRequest(groups=(
    cr.RequestGroup(resources={'VCPU': 1, 'DISK_GB': 10}),))


class _Trees:
    """Trees whose summaries are ``summaries`` whatever the candidates."""

    def __init__(self, summaries):
        self._summaries = summaries

    def roots_of(self, root, candidate):
        return {root: None}

    def summaries(self, roots):
        return self._summaries


def render(version, candidates=(CANDIDATE,), summaries=SUMMARIES):
    """The body as a client reads it (its parts are made lazily)."""
    found = candidate_obj.Found(
        [(1, candidate) for candidate in candidates], _Trees(summaries),
        None, candidate_windows.Progress())
    return orjson.loads(b''.join(util.dump_json_chunks(handler.render(
        _req('', version), REQUEST, found))))


def test_render_list_form():
    assert render('1.11') == {
        'allocation_requests': [{'allocations': [
            {'resource_provider': {'uuid': ROOT},
             'resources': {'VCPU': 1}},
            {'resource_provider': {'uuid': SHARING},
             'resources': {'DISK_GB': 10}},
        ]}],
        'provider_summaries': {
            ROOT: {'resources': {'VCPU': {'capacity': 8, 'used': 1}}},
            SHARING: {'resources': {'DISK_GB': {'capacity': 100,
                                                'used': 10}}},
        },
    }


def test_render_1_12():
    body = render('1.12')
    assert body['allocation_requests'] == [{'allocations': {
        ROOT: {'resources': {'VCPU': 1}},
        SHARING: {'resources': {'DISK_GB': 10}},
    }}]
    assert body['provider_summaries'] == render('1.11')['provider_summaries']


def test_render_traits_1_17():
    assert 'traits' not in render('1.16')['provider_summaries'][ROOT]
    summaries = render('1.17')['provider_summaries']
    assert summaries[ROOT]['traits'] == ['HW_CPU_X86_AVX']
    assert summaries[SHARING]['traits'] == ['MISC_SHARES_VIA_AGGREGATE']


def test_render_all_inventories_1_27():
    assert render('1.26')['provider_summaries'][ROOT]['resources'] == {
        'VCPU': {'capacity': 8, 'used': 1}}
    assert render('1.27')['provider_summaries'][ROOT]['resources'] == {
        'VCPU': {'capacity': 8, 'used': 1},
        'MEMORY_MB': {'capacity': 1024, 'used': 0}}


def test_render_trees_1_29():
    before = render('1.28')['provider_summaries']
    assert set(before) == {ROOT, SHARING}
    assert 'root_provider_uuid' not in before[ROOT]
    after = render('1.29')['provider_summaries']
    assert set(after) == {ROOT, CHILD, SHARING}
    assert after[CHILD] == {
        'resources': {'SRIOV_NET_VF': {'capacity': 4, 'used': 0}},
        'traits': [],
        'parent_provider_uuid': ROOT,
        'root_provider_uuid': ROOT,
    }
    assert after[SHARING]['parent_provider_uuid'] is None
    assert after[SHARING]['root_provider_uuid'] == SHARING


def test_render_mappings_1_34():
    assert 'mappings' not in render('1.33')['allocation_requests'][0]
    assert render('1.34')['allocation_requests'][0]['mappings'] == {
        '': [ROOT, SHARING]}


def test_render_keeps_the_engine_order():
    other = cr.Candidate(uuids=(SHARING,),
                         layout=(((0, {'DISK_GB': 10}),), (('', (0,)),)))
    requests = render('1.12', [other, CANDIDATE])['allocation_requests']
    assert [list(r['allocations']) for r in requests] == [
        [SHARING], [ROOT, SHARING]]


def test_render_nothing():
    assert render('1.10', []) == {
        'allocation_requests': [], 'provider_summaries': {}}
    assert render(LATEST, [], {}) == {
        'allocation_requests': [], 'provider_summaries': {}}


def test_a_candidate_reads_its_slots_through_its_layout():
    # Slots 0 and 2 chose the same provider (the layout names slot 0 for
    # both); group '1' is satisfied by it, '' by both providers.
    candidate = cr.Candidate(
        uuids=(SHARING, ROOT, SHARING),
        layout=(((0, {'DISK_GB': 10}), (1, {'VCPU': 1})),
                (('', (1, 0)), ('1', (0,)))))
    assert candidate.allocations == {SHARING: {'DISK_GB': 10},
                                     ROOT: {'VCPU': 1}}
    assert list(candidate.allocations) == [SHARING, ROOT]
    assert candidate.mappings == {'': sorted([ROOT, SHARING]),
                                  '1': [SHARING]}
