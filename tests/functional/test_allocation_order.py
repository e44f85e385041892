"""A consumer's allocations are answered in the order they were written.

Upstream answers them in the order of the request that wrote them (its
rows' order), and clients show them so: osc-placement's ``allocation
unset`` prints them in that order, and its functional tests compare the
lists.
"""

import pytest

from placement import microversion

#: The newest microversion.
LATEST = microversion.MAX_VERSION_STRING

pytestmark = pytest.mark.db

CONSUMER = '5c000000-0000-4000-8000-000000000001'


def _providers(api):
    """Two providers whose uuids sort the other way round than written."""
    first, second = ('5a000000-0000-4000-8000-00000000000b',
                     '5a000000-0000-4000-8000-00000000000a')
    for uuid in (first, second):
        assert api.request('POST', '/resource_providers', body={
            'name': uuid, 'uuid': uuid}).status_int == 200
        assert api.request(
            'PUT', f'/resource_providers/{uuid}/inventories', body={
                'resource_provider_generation': 0,
                'inventories': {'VCPU': {'total': 8},
                                'MEMORY_MB': {'total': 1024}}},
        ).status_int == 200
    return first, second


@pytest.mark.parametrize('version', ['1.12', '1.28', LATEST])
def test_allocations_are_answered_in_the_order_written(api, version):
    first, second = _providers(api)
    body = {'allocations': {
        first: {'resources': {'VCPU': 1, 'MEMORY_MB': 256}},
        second: {'resources': {'MEMORY_MB': 128, 'VCPU': 2}}},
        'project_id': 'p', 'user_id': 'u'}
    if version >= '1.28':
        body['consumer_generation'] = None
    if version >= '1.38':
        body['consumer_type'] = 'INSTANCE'
    response = api.request('PUT', f'/allocations/{CONSUMER}', version,
                           body)
    assert response.status_int == 204, response.text
    allocations = api.request('GET', f'/allocations/{CONSUMER}',
                              version).json['allocations']
    assert list(allocations) == [first, second]
    assert [list(allocations[uuid]['resources']) for uuid in allocations] == [
        ['VCPU', 'MEMORY_MB'], ['MEMORY_MB', 'VCPU']]
