"""A database upstream left at any of its revisions, synced and used.

For each upstream revision: its schema from upstream's dump, stamped with
the revision, filled with a deployment (tests/functional/upstream_data.py);
``placement-manage db sync`` refuses at the data-check revisions until
``placement-manage db online_data_migrations`` has run, then upgrades to
head; everything is then read and written through the API.
"""

import pytest

from placement.db import migration
from tests import database
from tests.functional import app
from tests.functional import commands
from tests.functional import schema
from tests.functional import upstream_data
from tests.functional import upstream_schema

pytestmark = pytest.mark.db

HEAD = upstream_schema.REVISIONS[-1]
# What a database at each revision may still hold, and the refusal of the
# first data check ahead of it: upstream's own checks let nothing else by.
UNMIGRATED = {
    'b4ed3a175331': (
        {'rootless_provider': True, 'consumerless_allocation': True},
        '1 resource providers have no root_provider_id'),
    '611cd6dffd7b': (
        {'consumerless_allocation': True},
        '1 consumers of allocations have no consumers record'),
}
ADVICE = 'Run "placement-manage db online_data_migrations"'
NEW_CONSUMER = '9b2e8a47-0d8f-4c5e-a6f1-3c7d2e9b8a10'


@pytest.fixture(params=upstream_schema.REVISIONS)
def upstream_db(request):
    """``(url, revision, Deployment)``: an upstream database, filled."""
    revision = request.param
    url = database.new_empty_database_url()
    unmigrated, _refusal = UNMIGRATED.get(revision, ({}, None))
    with schema.opened(url) as db:
        upstream_schema.load(db.engine, revision)
        deployment = upstream_data.fill(db.engine, **unmigrated)
    return url, revision, deployment


def test_sync_then_use(tmp_path, config_dir, upstream_db):
    url, revision, deployment = upstream_db
    conf = commands.manage_config(tmp_path, url)
    assert _version(url) == revision

    _unmigrated, refusal = UNMIGRATED.get(revision, ({}, None))
    if refusal:
        refused = commands.placement_manage(
            config_dir, '--config-file', conf, 'db', 'sync')
        assert refused.returncode == 1
        assert refusal in refused.stderr
        assert ADVICE in refused.stderr
        assert 'Traceback' not in refused.stderr
        assert _version(url) == revision
        migrated = commands.online_migrations(config_dir, conf)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr

    commands.db_command(config_dir, conf, 'sync')
    assert _version(url) == HEAD

    api = app.API(*app.build_stack(url))
    try:
        _read_everything(api, revision, deployment)
        _write_everything(api, deployment)
    finally:
        api.db.dispose()


def _version(url):
    with schema.opened(url) as db:
        return migration.current_version(db.engine)


def _get(api, path, version='latest'):
    response = api.request('GET', path, version)
    assert response.status_int == 200, response.text
    return response.json


def _send(api, method, path, body=None, version='latest', status=200):
    response = api.request(method, path, version, body)
    assert response.status_int == status, response.text
    return response.json if response.body else None


def _read_everything(api, revision, d):
    tree = {rp['uuid']: rp for rp in _get(
        api, f'/resource_providers?in_tree={d.compute}')[
            'resource_providers']}
    assert {uuid: (rp['name'], rp['generation'], rp['parent_provider_uuid'],
                   rp['root_provider_uuid'])
            for uuid, rp in tree.items()} == {
        d.compute: ('compute-1', 3, None, d.compute),
        d.numa: ('compute-1-numa0', 1, d.compute, d.compute),
        d.device: ('compute-1-numa0-pf0', 1, d.numa, d.compute)}
    if d.legacy_provider:
        legacy = _get(api, f'/resource_providers/{d.legacy_provider}')
        assert legacy['root_provider_uuid'] == d.legacy_provider

    inventory = _get(api, f'/resource_providers/{d.numa}/inventories')
    assert inventory['inventories']['VCPU']['total'] == 8
    assert inventory['inventories']['VCPU']['allocation_ratio'] == 4.0
    legacy_on_numa = 1 if d.legacy_consumer and not d.legacy_provider else 0
    assert _get(api, f'/resource_providers/{d.numa}/usages')['usages'] == {
        'VCPU': 3 + legacy_on_numa}
    assert _get(api, f'/resource_providers/{d.device}/inventories')[
        'inventories']['CUSTOM_GOLD']['max_unit'] == 2
    _get(api, '/resource_classes/CUSTOM_GOLD')
    assert _get(api, f'/resource_providers/{d.compute}/traits')[
        'traits'] == [upstream_data.AVX]
    for rp_uuid in (d.compute, d.shared):
        assert _get(api, f'/resource_providers/{rp_uuid}/aggregates')[
            'aggregates'] == [d.aggregate]

    plain = _get(api, f'/allocations/{d.plain_consumer}')
    assert plain == {
        'allocations': {
            d.numa: {'generation': 1, 'resources': {'VCPU': 2}},
            d.compute: {'generation': 3, 'resources': {'MEMORY_MB': 512}},
            d.shared: {'generation': 1, 'resources': {'DISK_GB': 10}}},
        'consumer_generation': 1, 'consumer_type': 'unknown',
        'project_id': upstream_data.PROJECT,
        'user_id': upstream_data.USER}
    had_types = revision in ('422ece571366', HEAD)
    typed = _get(api, f'/allocations/{d.typed_consumer}')
    assert typed['consumer_type'] == (
        upstream_data.CONSUMER_TYPE if had_types else 'unknown')
    if d.legacy_consumer:
        incomplete = database.make_conf('sqlite://').placement
        legacy = _get(api, f'/allocations/{d.legacy_consumer}')
        assert legacy['project_id'] == (
            incomplete.incomplete_consumer_project_id)
        assert legacy['user_id'] == incomplete.incomplete_consumer_user_id

    usages = _get(api, f'/usages?project_id={upstream_data.PROJECT}'
                       f'&consumer_type=all')
    assert usages['usages']['all'] == {
        'consumer_count': 2, 'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 10,
        'CUSTOM_GOLD': 1}

    candidates = _get(
        api, '/allocation_candidates?resources=MEMORY_MB:128,DISK_GB:5')
    assert [request['allocations'] for request in
            candidates['allocation_requests']] == [{
                d.compute: {'resources': {'MEMORY_MB': 128}},
                d.shared: {'resources': {'DISK_GB': 5}}}]


def _write_everything(api, d):
    _send(api, 'PUT', '/resource_classes/CUSTOM_SILVER', status=201)
    _send(api, 'PUT', '/traits/CUSTOM_NEW', status=201)
    numa1 = _send(api, 'POST', '/resource_providers', {
        'name': 'compute-1-numa1', 'parent_provider_uuid': d.compute})
    assert numa1['root_provider_uuid'] == d.compute
    numa1 = numa1['uuid']
    _send(api, 'PUT', f'/resource_providers/{numa1}/inventories', {
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8}, 'CUSTOM_SILVER': {'total': 2}}})
    _send(api, 'PUT', f'/resource_providers/{numa1}/traits', {
        'resource_provider_generation': 1,
        'traits': ['CUSTOM_NEW', upstream_data.AVX]})
    _send(api, 'PUT', f'/resource_providers/{numa1}/aggregates', {
        'resource_provider_generation': 2, 'aggregates': [d.aggregate]})

    owner = {'project_id': upstream_data.PROJECT,
             'user_id': upstream_data.USER}
    _send(api, 'PUT', f'/allocations/{NEW_CONSUMER}', {
        'allocations': {numa1: {'resources': {'VCPU': 2,
                                              'CUSTOM_SILVER': 1}}},
        'consumer_generation': None, 'consumer_type': 'MIGRATION', **owner},
        status=204)
    typed = _get(api, f'/allocations/{d.typed_consumer}')
    _send(api, 'PUT', f'/allocations/{d.typed_consumer}', {
        'allocations': {d.device: {'resources': {'CUSTOM_GOLD': 2}}},
        'consumer_generation': typed['consumer_generation'],
        'consumer_type': upstream_data.CONSUMER_TYPE, **owner}, status=204)
    _send(api, 'DELETE', f'/allocations/{d.plain_consumer}', status=204)
    _send(api, 'DELETE', f'/resource_providers/{d.shared}', status=204)
    _send(api, 'DELETE', '/resource_classes/CUSTOM_SILVER', status=409)

    usages = _get(api, f'/usages?project_id={upstream_data.PROJECT}')
    assert usages['usages'] == {
        'INSTANCE': {'consumer_count': 1, 'CUSTOM_GOLD': 2},
        'MIGRATION': {'consumer_count': 1, 'VCPU': 2, 'CUSTOM_SILVER': 1}}
    tree = _get(api, f'/resource_providers?in_tree={d.compute}')
    assert {rp['uuid'] for rp in tree['resource_providers']} == {
        d.compute, d.numa, d.device, numa1}
    assert _get(api, f'/resource_providers/{numa1}/traits')['traits'] == (
        sorted(['CUSTOM_NEW', upstream_data.AVX]))
