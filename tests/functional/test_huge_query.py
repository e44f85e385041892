"""Query strings too big to write into a gabbit; each found by
tools/fuzz_api.py as a 500 on some backend."""

import pytest

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


@pytest.fixture
def provider(api):
    """A provider with inventory, trait AVX2 and AGGREGATE."""
    rp_uuid = api.provider()
    for rel, body in (('traits', {'traits': [AVX2]}),
                      ('aggregates', {'aggregates': [AGGREGATE]})):
        generation = api.request(
            'GET', f'/resource_providers/{rp_uuid}').json['generation']
        response = api.request(
            'PUT', f'/resource_providers/{rp_uuid}/{rel}',
            body={**body, 'resource_provider_generation': generation})
        assert response.status_int == 200, response.text
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
