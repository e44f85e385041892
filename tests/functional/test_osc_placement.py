"""osc-placement (the `openstack resource ...` commands) against a server.

The real CLI talks HTTP to a real placement-api (gunicorn) serving the test
database, authenticating with the admin_token plugin as operators do with
noauth2.
"""

import json
import subprocess
import uuid

import pytest

from tests.functional import server

pytestmark = pytest.mark.db


@pytest.fixture(scope='module')
def endpoint(tmp_path_factory):
    with server.running_server(tmp_path_factory.mktemp('osc')) as url:
        yield url


@pytest.fixture
def osc(endpoint):
    """Run an `openstack` command; its parsed JSON output (or None)."""

    def run(*args, version='1.39', fmt=True):
        command = [
            server.venv_command('openstack'),
            '--os-auth-type', 'admin_token', '--os-token', 'admin',
            '--os-endpoint', endpoint,
            '--os-placement-api-version', version, *args]
        if fmt:
            command += ['-f', 'json']
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if fmt and done.stdout else None
    return run


def test_resource_provider_commands(osc):
    created = osc('resource', 'provider', 'create', 'osc-rp1')
    assert created['name'] == 'osc-rp1'
    assert created['generation'] == 0
    rp_uuid = created['uuid']

    child = osc('resource', 'provider', 'create', 'osc-child',
                '--parent-provider', rp_uuid)
    assert child['parent_provider_uuid'] == rp_uuid
    assert child['root_provider_uuid'] == rp_uuid

    listed = osc('resource', 'provider', 'list', '--in-tree', rp_uuid)
    assert {rp['name'] for rp in listed} == {'osc-rp1', 'osc-child'}

    osc('resource', 'provider', 'set', rp_uuid, '--name', 'osc-renamed')
    shown = osc('resource', 'provider', 'show', rp_uuid)
    assert shown['name'] == 'osc-renamed'

    osc('resource', 'provider', 'delete', child['uuid'], fmt=False)
    listed = osc('resource', 'provider', 'list', '--name', 'osc-child')
    assert listed == []


def test_resource_class_commands(osc):
    osc('resource', 'class', 'create', 'CUSTOM_OSC_GPU', fmt=False)
    names = {rc['name'] for rc in osc('resource', 'class', 'list')}
    assert {'CUSTOM_OSC_GPU', 'VCPU', 'MEMORY_MB'} <= names
    assert osc('resource', 'class', 'show',
               'CUSTOM_OSC_GPU')['name'] == 'CUSTOM_OSC_GPU'
    osc('resource', 'class', 'delete', 'CUSTOM_OSC_GPU', fmt=False)
    names = {rc['name'] for rc in osc('resource', 'class', 'list')}
    assert 'CUSTOM_OSC_GPU' not in names


def test_trait_commands(osc):
    osc('trait', 'create', 'CUSTOM_OSC_FAST', fmt=False)
    names = {t['name'] for t in osc('trait', 'list')}
    assert {'CUSTOM_OSC_FAST', 'HW_CPU_X86_AVX2'} <= names
    assert osc('trait', 'show', 'CUSTOM_OSC_FAST')['name'] == (
        'CUSTOM_OSC_FAST')

    rp_uuid = osc('resource', 'provider', 'create', 'osc-traits')['uuid']
    traits = osc('resource', 'provider', 'trait', 'set', rp_uuid,
                 '--trait', 'CUSTOM_OSC_FAST', '--trait', 'HW_CPU_X86_AVX2')
    assert {t['name'] for t in traits} == {'CUSTOM_OSC_FAST',
                                            'HW_CPU_X86_AVX2'}
    listed = osc('resource', 'provider', 'trait', 'list', rp_uuid)
    assert {t['name'] for t in listed} == {'CUSTOM_OSC_FAST',
                                            'HW_CPU_X86_AVX2'}
    associated = osc('trait', 'list', '--associated')
    assert 'CUSTOM_OSC_FAST' in {t['name'] for t in associated}
    osc('resource', 'provider', 'trait', 'delete', rp_uuid, fmt=False)
    assert osc('resource', 'provider', 'trait', 'list', rp_uuid) == []
    osc('trait', 'delete', 'CUSTOM_OSC_FAST', fmt=False)
    names = {t['name'] for t in osc('trait', 'list')}
    assert 'CUSTOM_OSC_FAST' not in names


def test_inventory_commands(osc):
    rp_uuid = osc('resource', 'provider', 'create', 'osc-inv')['uuid']
    inventories = osc('resource', 'provider', 'inventory', 'set', rp_uuid,
                      '--resource', 'VCPU=8',
                      '--resource', 'VCPU:allocation_ratio=16.0',
                      '--resource', 'MEMORY_MB=4096',
                      '--resource', 'MEMORY_MB:step_size=128')
    by_class = {inv['resource_class']: inv for inv in inventories}
    assert by_class['VCPU']['total'] == 8
    assert by_class['VCPU']['allocation_ratio'] == 16.0
    assert by_class['MEMORY_MB']['step_size'] == 128

    shown = osc('resource', 'provider', 'inventory', 'show', rp_uuid,
                'VCPU')
    assert shown['total'] == 8

    # `class set` replaces one existing record (PUT of a class the provider
    # has no inventory of is a 400); `set --amend` adds one.
    updated = osc('resource', 'provider', 'inventory', 'class', 'set',
                  rp_uuid, 'VCPU', '--total', '16', '--reserved', '2')
    assert (updated['total'], updated['reserved']) == (16, 2)
    osc('resource', 'provider', 'inventory', 'set', rp_uuid, '--amend',
        '--resource', 'DISK_GB=100', '--resource', 'DISK_GB:reserved=10')
    listed = osc('resource', 'provider', 'inventory', 'list', rp_uuid)
    assert {inv['resource_class']: inv['total'] for inv in listed} == {
        'VCPU': 16, 'MEMORY_MB': 4096, 'DISK_GB': 100}

    osc('resource', 'provider', 'inventory', 'delete', rp_uuid,
        '--resource-class', 'DISK_GB', fmt=False)
    listed = osc('resource', 'provider', 'inventory', 'list', rp_uuid)
    assert {inv['resource_class'] for inv in listed} == {'VCPU',
                                                         'MEMORY_MB'}

    usages = osc('resource', 'provider', 'usage', 'show', rp_uuid)
    assert {u['resource_class']: u['usage'] for u in usages} == {
        'VCPU': 0, 'MEMORY_MB': 0}

    osc('resource', 'provider', 'inventory', 'delete', rp_uuid, fmt=False)
    assert osc('resource', 'provider', 'inventory', 'list', rp_uuid) == []


def test_aggregate_commands(osc):
    rp = osc('resource', 'provider', 'create', 'osc-agg')
    agg1, agg2 = str(uuid.uuid4()), str(uuid.uuid4())
    aggregates = osc('resource', 'provider', 'aggregate', 'set', rp['uuid'],
                     '--aggregate', agg1, '--aggregate', agg2,
                     '--generation', str(rp['generation']))
    assert {a['uuid'] for a in aggregates} == {agg1, agg2}
    listed = osc('resource', 'provider', 'aggregate', 'list', rp['uuid'])
    assert {a['uuid'] for a in listed} == {agg1, agg2}
    members = osc('resource', 'provider', 'list', '--member-of', agg1)
    assert [m['uuid'] for m in members] == [rp['uuid']]
    # The pre-1.19 form, without generations.
    osc('resource', 'provider', 'aggregate', 'set', rp['uuid'],
        '--aggregate', agg2, version='1.1')
    listed = osc('resource', 'provider', 'aggregate', 'list', rp['uuid'])
    assert [a['uuid'] for a in listed] == [agg2]
