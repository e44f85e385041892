"""Inventory changes against allocations and each other; provider usages.

Removing an allocated class is refused; lowering a capacity below usage
is allowed with a warning, as upstream does.

The allocation API is not needed: allocation rows are inserted directly,
and the inventory and usage API is driven through the whole WSGI stack.
"""

import concurrent.futures
import logging

import pytest

from placement.db import models
from tests.functional.app import INVENTORIES
from tests.functional.app import assert_error

pytestmark = pytest.mark.db

INUSE = 'placement.inventory.inuse'
RP = models.ResourceProvider.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__

INVENTORY_DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': 2147483647,
                      'step_size': 1, 'allocation_ratio': 1.0}
CONFLICT_VERSIONS = [('1.0', None), ('1.22', None), ('1.23', INUSE),
                     ('latest', INUSE)]


@pytest.mark.parametrize('version, code', CONFLICT_VERSIONS)
def test_put_inventories_without_an_allocated_class(api, version, code):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 2)
    before = api.inventories(rp_uuid)
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories', version,
        {'inventories': {'MEMORY_MB': {'total': 1024}},
         'resource_provider_generation': before[
             'resource_provider_generation']})
    assert_error(response, 409, code)
    assert (f"update conflict: Inventory for 'VCPU' on resource provider "
            f"'{rp_uuid}' in use.") in response.json['errors'][0]['detail']
    assert api.inventories(rp_uuid) == before


def test_put_inventories_keeping_allocated_class(api):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 2)
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories',
        body={'inventories': {'VCPU': {'total': 4}},
              'resource_provider_generation': 1})
    assert response.status_int == 200, response.text
    assert set(response.json['inventories']) == {'VCPU'}
    assert response.json['resource_provider_generation'] == 2


@pytest.mark.parametrize('version', ['1.0', '1.22', '1.23', 'latest'])
def test_put_inventories_below_usage(api, version, caplog):
    """Shrinking a capacity below what is allocated is logged, not refused."""
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'DISK_GB', 60)
    with caplog.at_level(logging.WARNING, logger='placement'):
        response = api.request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories', version,
            {'inventories': {**INVENTORIES, 'DISK_GB': {'total': 59}},
             'resource_provider_generation': 1})
    assert response.status_int == 200, response.text
    assert response.json['inventories']['DISK_GB']['total'] == 59
    assert response.json['resource_provider_generation'] == 2
    assert [record.getMessage() for record in caplog.records
            if record.levelno == logging.WARNING] == [
        f'Resource provider {rp_uuid} is now over capacity for DISK_GB: '
        f'60 allocated, capacity 59.']


@pytest.mark.parametrize('change', [
    {'total': 60}, {'total': 70, 'reserved': 10},
    {'total': 100, 'allocation_ratio': 0.6}])
def test_put_inventories_down_to_usage(api, change):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'DISK_GB', 60)
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories',
        body={'inventories': {**INVENTORIES, 'DISK_GB': change},
              'resource_provider_generation': 1})
    assert response.status_int == 200, response.text
    assert response.json['resource_provider_generation'] == 2
    assert response.json['inventories']['DISK_GB'] == {
        **INVENTORY_DEFAULTS, **change}


@pytest.mark.parametrize('version, status, code', [
    ('1.4', 405, None), ('1.5', 409, None), ('1.22', 409, None),
    ('1.23', 409, INUSE), ('latest', 409, INUSE)])
def test_delete_all_inventories_in_use(api, version, status, code):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'MEMORY_MB', 512)
    before = api.inventories(rp_uuid)
    response = api.request(
        'DELETE', f'/resource_providers/{rp_uuid}/inventories', version)
    assert_error(response, status, code)
    if status == 409:
        assert response.json['errors'][0]['detail'].endswith(
            f"\n\n Inventory for 'MEMORY_MB' on resource provider "
            f"'{rp_uuid}' in use.")
    assert api.inventories(rp_uuid) == before


@pytest.mark.parametrize('version', ['1.5', 'latest'])
def test_delete_all_inventories_unused(api, version):
    """Allocations against another provider do not get in the way."""
    rp_uuid = api.provider()
    api.allocate(api.provider(), 'VCPU', 1)
    response = api.request(
        'DELETE', f'/resource_providers/{rp_uuid}/inventories', version)
    assert response.status_int == 204, response.text
    assert api.inventories(rp_uuid) == {
        'inventories': {}, 'resource_provider_generation': 2}


@pytest.mark.parametrize('version, code', [
    (version, code and 'placement.concurrent_update')
    for version, code in CONFLICT_VERSIONS])
def test_delete_one_inventory_in_use(api, version, code):
    """Upstream's code for this one operation: concurrent_update."""
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 1)
    before = api.inventories(rp_uuid)
    response = api.request(
        'DELETE', f'/resource_providers/{rp_uuid}/inventories/VCPU',
        version)
    assert_error(response, 409, code)
    assert api.inventories(rp_uuid) == before
    other = api.request(
        'DELETE', f'/resource_providers/{rp_uuid}/inventories/DISK_GB',
        version)
    assert other.status_int == 204, other.text
    assert set(api.inventories(rp_uuid)['inventories']) == {
        'VCPU', 'MEMORY_MB'}


@pytest.mark.parametrize('version', ['1.0', '1.22', '1.23', 'latest'])
@pytest.mark.parametrize('change', [
    {'total': 4}, {'total': 8, 'reserved': 4},
    {'total': 8, 'allocation_ratio': 1.0}])
def test_update_one_inventory_below_usage(api, version, change):
    """VCPU 8 at ratio 2.0 has capacity 16; 10 are allocated."""
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 10)
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories/VCPU', version,
        {**change, 'resource_provider_generation': 1})
    assert response.status_int == 200, response.text
    assert api.inventories(rp_uuid)['inventories']['VCPU'] == {
        **INVENTORY_DEFAULTS, **change}
    usages = api.request('GET', f'/resource_providers/{rp_uuid}/usages')
    assert usages.json['usages']['VCPU'] == 10


@pytest.mark.parametrize('version', ['1.26', 'latest'])
def test_reserve_everything_while_in_use(api, version):
    """reserved == total is allowed from 1.26, also over usage."""
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 3)
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories/VCPU', version,
        {'total': 8, 'reserved': 8, 'resource_provider_generation': 1})
    assert response.status_int == 200, response.text
    assert response.json['reserved'] == 8


def test_usages_sum_allocations_per_class_with_inventory(api):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 2)
    api.allocate(rp_uuid, 'VCPU', 3)
    api.allocate(rp_uuid, 'MEMORY_MB', 512)
    # No inventory of this class: not part of the usage report.
    api.allocate(rp_uuid, 'IPV4_ADDRESS', 1)
    api.allocate(api.provider(), 'DISK_GB', 7)
    response = api.request(
        'GET', f'/resource_providers/{rp_uuid}/usages', '1.0')
    assert response.status_int == 200, response.text
    assert response.json == {
        'resource_provider_generation': 1,
        'usages': {'VCPU': 5, 'MEMORY_MB': 512, 'DISK_GB': 0}}


@pytest.mark.parametrize('version, cached', [('1.14', False),
                                             ('1.15', True),
                                             ('latest', True)])
def test_usages_last_modified(api, version, cached):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 1)
    response = api.request(
        'GET', f'/resource_providers/{rp_uuid}/usages', version)
    assert response.status_int == 200, response.text
    assert response.json['usages']['VCPU'] == 1
    assert ('last-modified' in response.headers) is cached
    assert response.headers.get('cache-control') == (
        'no-cache' if cached else None)


def test_concurrent_replacements_with_one_generation(api):
    """Of writers that read the same generation, exactly one wins."""
    rp_uuid = api.provider()

    def replace(total):
        return api.request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories',
            body={'inventories': {'VCPU': {'total': total}},
                  'resource_provider_generation': 1})

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(replace, range(1, 9)))
    winners = [r for r in responses if r.status_int == 200]
    assert len(winners) == 1, [r.text for r in responses]
    for response in responses:
        if response is not winners[0]:
            assert_error(response, 409, 'placement.concurrent_update')
    assert api.inventories(rp_uuid) == {
        'inventories': {'VCPU': winners[0].json['inventories']['VCPU']},
        'resource_provider_generation': 2}
