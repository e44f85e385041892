"""Query strings too big to write into a gabbit; each found by
tools/fuzz_api.py as a 500 on some backend."""

import pytest
import sqlalchemy as sa

from placement.db import models

pytestmark = pytest.mark.db

AVX2 = 'HW_CPU_X86_AVX2'
AGGREGATE = '6f1c0d53-3a43-4f5e-b0a4-07e5cfc2f4b3'
# One filter 1,500 times: more conditions than SQLite nests in one
# expression (1,000) and PostgreSQL selects (1,664 columns), were each a
# condition.
REPEATED = {
    f'required={AVX2}': 'required=' + ','.join([AVX2] * 1500),
    f'required=!{AVX2}': 'required=' + ','.join(['!' + AVX2] * 1500),
    f'required={AVX2} (repeated)': '&'.join([f'required={AVX2}'] * 1500),
    f'member_of={AGGREGATE}': '&'.join([f'member_of={AGGREGATE}'] * 1500),
}


def test_traits_startswith_a_huge_prefix_finds_none(api):
    """SQLite refuses LIKE patterns of more than 50,000 bytes."""
    response = api.request('GET', '/traits?name=startswith:' + 'A' * 60000)
    assert response.status_int == 200, response.text
    assert response.json == {'traits': []}


def _put(api, rp_uuid, rel, body):
    generation = api.request(
        'GET', f'/resource_providers/{rp_uuid}').json['generation']
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/{rel}',
        body={**body, 'resource_provider_generation': generation})
    assert response.status_int == 200, response.text


@pytest.fixture
def provider(api):
    """A provider with inventory, trait AVX2 and AGGREGATE."""
    rp_uuid = api.provider()
    _put(api, rp_uuid, 'traits', {'traits': [AVX2]})
    _put(api, rp_uuid, 'aggregates', {'aggregates': [AGGREGATE]})
    return rp_uuid


@pytest.mark.parametrize('path', ['/resource_providers',
                                  '/allocation_candidates?resources=VCPU:1'])
@pytest.mark.parametrize('once', sorted(REPEATED))
def test_a_filter_repeated_is_the_filter_once(api, provider, path, once):
    separator = '&' if '?' in path else '?'
    expected = api.request('GET', f'{path}{separator}{once.split()[0]}')
    response = api.request('GET', f'{path}{separator}{REPEATED[once]}')
    assert response.status_int == 200, response.text
    assert response.json == expected.json


def _distinct_uuids(count):
    return [f'00000000-0000-4000-8000-{index:012d}' for index in range(count)]


@pytest.mark.parametrize('count, found', [(0, True), (1500, False)])
def test_many_aggregates_to_be_in(api, provider, count, found):
    """1,500 member_of, one aggregate each: one condition, not 1,500."""
    query = '&'.join(f'member_of={uuid}'
                     for uuid in [AGGREGATE, *_distinct_uuids(count)])
    response = api.request('GET', f'/resource_providers?{query}')
    assert response.status_int == 200, response.text
    uuids = [rp['uuid'] for rp in response.json['resource_providers']]
    assert uuids == ([provider] if found else [])


@pytest.mark.parametrize('path', [
    '/resource_providers?', '/allocation_candidates?resources=VCPU:1&',
    '/allocation_candidates?resources=VCPU:1&limit=5&'])
def test_many_groups_of_a_real_aggregate_and_an_unknown_one(
        api, provider, path):
    """1,100 ``member_of=in:AGGREGATE,<unknown>`` are one group once the
    unknown ones are left out: a condition each kept the planners of
    MariaDB and PostgreSQL busy for minutes, and SQLite refused them."""
    query = '&'.join(f'member_of=in:{AGGREGATE},{uuid}'
                     for uuid in _distinct_uuids(1100))
    response = api.request('GET', path + query)
    assert response.status_int == 200, response.text
    if path.startswith('/resource_providers'):
        found = [rp['uuid'] for rp in response.json['resource_providers']]
    else:
        found = [uuid for candidate in response.json['allocation_requests']
                 for uuid in candidate['allocations']]
    assert found == [provider]


#: More filters than SQLite nests conditions (1,000) and PostgreSQL
#: selects columns (1,664), had each been one.
MANY = 1700
MANY_TRAITS = [f'CUSTOM_MANY_{index}' for index in range(MANY)]
MANY_AGGREGATES = _distinct_uuids(MANY)
UNKNOWN = '00000000-0000-4000-9000-000000000001'


@pytest.fixture
def well_marked(api):
    """A provider with every one of MANY_TRAITS and MANY_AGGREGATES; and
    another, with CUSTOM_OTHER and in OTHER only."""
    with api.db.writer() as conn:     # 1,701 PUT /traits take seconds
        conn.execute(sa.insert(models.Trait.__table__), [
            {'name': name} for name in [*MANY_TRAITS, 'CUSTOM_OTHER']])
    marked, other = api.provider(), api.provider()
    _put(api, marked, 'traits', {'traits': MANY_TRAITS})
    _put(api, marked, 'aggregates', {'aggregates': MANY_AGGREGATES})
    _put(api, other, 'traits', {'traits': ['CUSTOM_OTHER']})
    _put(api, other, 'aggregates', {'aggregates': [AGGREGATE]})
    return marked


def _each(name, values):
    return '&'.join(f'{name}={value}' for value in values)


#: Filters each given one value at a time, all of which must hold, for
#: the values given.
EVERY_ONE = {
    'required': lambda traits, _: _each('required', traits),
    'root_required': lambda traits, _: 'root_required=' + ','.join(traits),
    'required1': lambda traits, _: (
        'resources1=VCPU:1&' + _each('required1', traits)),
    'member_of': lambda _, aggregates: _each('member_of', aggregates),
    'member_of1': lambda _, aggregates: (
        'resources1=VCPU:1&' + _each('member_of1', aggregates)),
}


@pytest.mark.parametrize('limit', ['', '&limit=5'])
@pytest.mark.parametrize('name', sorted(EVERY_ONE))
def test_a_candidate_meeting_every_one_of_many_filters(
        api, well_marked, name, limit):
    """The provider with them all is found; with one more that only the
    other provider meets, nothing is."""
    def candidates(traits, aggregates):
        query = EVERY_ONE[name](traits, aggregates)
        response = api.request(
            'GET', f'/allocation_candidates?resources=VCPU:1&{query}{limit}')
        assert response.status_int == 200, response.text
        return [list(candidate['allocations'])
                for candidate in response.json['allocation_requests']]

    assert candidates(MANY_TRAITS, MANY_AGGREGATES) == [[well_marked]]
    assert candidates([*MANY_TRAITS, 'CUSTOM_OTHER'],
                      [*MANY_AGGREGATES, AGGREGATE]) == []


def _pairs(values, count=150):
    """``count`` groups ``in:a,b`` of two of ``values`` each, all
    distinct: more than are joined (conditions.MOST_JOINED)."""
    return [f'in:{first},{second}' for first, second
            in zip(values[:count], values[count:2 * count], strict=True)]


#: Filters each given as many groups of two values, one of each group
#: to hold, and one more group that only the other provider meets.
ANY_OF_EACH = {
    'required': (_each('required', _pairs(MANY_TRAITS)),
                 'required=in:CUSTOM_OTHER,HW_CPU_X86_AVX2'),
    'member_of': (_each('member_of', _pairs(MANY_AGGREGATES)),
                  f'member_of=in:{AGGREGATE},{UNKNOWN}'),
}


@pytest.mark.parametrize('path', [
    '/resource_providers?', '/allocation_candidates?resources=VCPU:1&',
    '/allocation_candidates?resources=VCPU:1&limit=5&',
    '/allocation_candidates?resources=VCPU:1&resources1=VCPU:1&SUFFIX'])
@pytest.mark.parametrize('name', sorted(ANY_OF_EACH))
def test_a_provider_meeting_one_of_each_of_many_groups(
        api, well_marked, path, name):
    """150 distinct groups: looked up per provider rather than joined,
    as PostgreSQL took 5.7 s to plan 150 joins of one provider."""
    def found(*filters):
        query = '&'.join(filters)
        if path.endswith('SUFFIX'):
            query = query.replace(f'{name}=', f'{name}1=')
        response = api.request('GET', path.replace('SUFFIX', '') + query)
        assert response.status_int == 200, response.text
        if path.startswith('/resource_providers'):
            return [rp['uuid']
                    for rp in response.json['resource_providers']]
        return [uuid for candidate in response.json['allocation_requests']
                for uuid in candidate['allocations']]

    groups, only_other = ANY_OF_EACH[name]
    assert set(found(groups)) == {well_marked}
    assert found(groups, only_other) == []
