"""osc-placement (the `openstack resource ...` commands) against a server.

The real CLI talks HTTP to a real placement-api (gunicorn) serving the test
database, authenticating with the admin_token plugin as operators do with
noauth2.
"""

import json
import subprocess
import uuid

import pytest

from placement import microversion
from tests.functional import server

#: The newest microversion.
LATEST = microversion.MAX_VERSION_STRING

pytestmark = pytest.mark.db


@pytest.fixture(scope='module')
def endpoint(tmp_path_factory):
    with server.running_server(tmp_path_factory.mktemp('osc')) as url:
        yield url


@pytest.fixture
def osc(endpoint):
    """Run an `openstack` command; its parsed JSON output (or None)."""

    def run(*args, version=LATEST, fmt=True):
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


def _compute_provider(osc, name):
    """A provider with VCPU and MEMORY_MB inventory (generation 1)."""
    rp_uuid = osc('resource', 'provider', 'create', name)['uuid']
    osc('resource', 'provider', 'inventory', 'set', rp_uuid,
        '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096')
    return rp_uuid


def _by_provider(rows):
    return {row['resource_provider']: row for row in rows}


def test_allocation_commands(osc):
    rp1 = _compute_provider(osc, 'osc-alloc1')
    rp2 = _compute_provider(osc, 'osc-alloc2')
    consumer, project, user = (str(uuid.uuid4()) for _ in range(3))
    owner = {'project_id': project, 'user_id': user,
             'consumer_type': 'INSTANCE'}

    allocations = osc('resource', 'provider', 'allocation', 'set', consumer,
                      '--allocation', f'rp={rp1},VCPU=2,MEMORY_MB=512',
                      '--allocation', f'rp={rp2},VCPU=1',
                      '--project-id', project, '--user-id', user,
                      '--consumer-type', 'INSTANCE')
    assert _by_provider(allocations) == {
        rp1: {'resource_provider': rp1, 'generation': 2,
              'resources': {'VCPU': 2, 'MEMORY_MB': 512}, **owner},
        rp2: {'resource_provider': rp2, 'generation': 2,
              'resources': {'VCPU': 1}, **owner}}
    shown = osc('resource', 'provider', 'allocation', 'show', consumer)
    assert _by_provider(shown) == _by_provider(allocations)
    usages = osc('resource', 'provider', 'usage', 'show', rp1)
    assert {u['resource_class']: u['usage'] for u in usages} == {
        'VCPU': 2, 'MEMORY_MB': 512}

    left = osc('resource', 'provider', 'allocation', 'unset', consumer,
               '--resource-class', 'MEMORY_MB')
    assert {rp: row['resources'] for rp, row in
            _by_provider(left).items()} == {rp1: {'VCPU': 2},
                                            rp2: {'VCPU': 1}}
    left = osc('resource', 'provider', 'allocation', 'unset', consumer,
               '--provider', rp1)
    assert [row['resource_provider'] for row in left] == [rp2]
    assert left[0]['consumer_type'] == 'INSTANCE'

    osc('resource', 'provider', 'allocation', 'delete', consumer, fmt=False)
    assert osc('resource', 'provider', 'allocation', 'show',
               consumer) == []
    usages = osc('resource', 'provider', 'usage', 'show', rp2)
    assert {u['resource_class']: u['usage'] for u in usages} == {
        'VCPU': 0, 'MEMORY_MB': 0}


def test_allocation_commands_before_consumer_types(osc):
    """At 1.12 no consumer type (shown as ``unknown`` from 1.38); unset of
    everything before 1.28 deletes."""
    rp_uuid = _compute_provider(osc, 'osc-alloc-1.12')
    consumer, project, user = (str(uuid.uuid4()) for _ in range(3))
    allocations = osc('resource', 'provider', 'allocation', 'set', consumer,
                      '--allocation', f'rp={rp_uuid},VCPU=1',
                      '--project-id', project, '--user-id', user,
                      version='1.12')
    assert allocations == [{
        'resource_provider': rp_uuid, 'generation': 2,
        'resources': {'VCPU': 1}, 'project_id': project, 'user_id': user}]
    shown = osc('resource', 'provider', 'allocation', 'show', consumer)
    assert shown[0]['consumer_type'] == 'unknown'
    assert osc('resource', 'provider', 'allocation', 'unset', consumer,
               version='1.12') == []
    assert osc('resource', 'provider', 'allocation', 'show',
               consumer) == []


def test_resource_usage_commands(osc):
    rp_uuid = _compute_provider(osc, 'osc-usage')
    project, user, other_user = (str(uuid.uuid4()) for _ in range(3))

    def claim(user_id, resources, *type_args, version=LATEST):
        osc('resource', 'provider', 'allocation', 'set', str(uuid.uuid4()),
            '--allocation', f'rp={rp_uuid},{resources}',
            '--project-id', project, '--user-id', user_id, *type_args,
            version=version)

    claim(user, 'VCPU=2,MEMORY_MB=512', '--consumer-type', 'INSTANCE')
    claim(user, 'VCPU=1', '--consumer-type', 'INSTANCE')
    claim(other_user, 'VCPU=4', '--consumer-type', 'MIGRATION')
    claim(user, 'MEMORY_MB=128', version='1.37')

    def usage(*args, version):
        rows = osc('resource', 'usage', 'show', project, *args,
                   version=version)
        return {row['resource_class']: row['usage'] for row in rows}

    for version in ('1.9', '1.37'):
        assert usage(version=version) == {'VCPU': 7, 'MEMORY_MB': 640}
        assert usage('--user-id', user, version=version) == {
            'VCPU': 3, 'MEMORY_MB': 640}
    # From 1.38 the client shows each consumer type as a "class".
    assert usage(version=LATEST) == {
        'INSTANCE': {'consumer_count': 2, 'VCPU': 3, 'MEMORY_MB': 512},
        'MIGRATION': {'consumer_count': 1, 'VCPU': 4},
        'unknown': {'consumer_count': 1, 'MEMORY_MB': 128}}
    assert usage('--user-id', other_user, version=LATEST) == {
        'MIGRATION': {'consumer_count': 1, 'VCPU': 4}}
