"""The audit report finds exactly what was planted in a cloud.

The clean cloud is that of the other reports (:mod:`tools.report_data`:
a nested tree, a sharing provider, usage beyond the raw capacity, three
kinds of consumers); :func:`plant` breaks it once per finding, through
the API where the API can and with direct writes where only a bug or an
old release could (:mod:`tools.audit_cloud`).
"""

import json
import threading

import pytest
import sqlalchemy as sa
import webob

from placement import operations
from placement.db import models
from placement.reports import audit
from tests.functional import commands
from tests.functional import report_cloud
from tools import audit_cloud
from tools import report_data

pytestmark = pytest.mark.db

ALLOC = models.Allocation.__table__
CONSUMER = models.Consumer.__table__
plant = audit_cloud.plant


@pytest.fixture
def application(db_url):
    with report_data.serving(db_url) as application:
        yield application


def _examples(document):
    return {name: found['examples']
            for name, found in document['audit']['findings'].items()}


def test_a_clean_cloud_has_no_finding(application, db):
    document = db.read(audit.report)
    assert document['audit']['clean'] is True
    assert _examples(document) == {finding.name: []
                                   for finding in audit.FINDINGS}
    assert {found['count'] for found
            in document['audit']['findings'].values()} == {0}


def test_each_planted_finding_is_found(application, db):
    planted = plant(application, db)
    document = report_cloud.get_json(application, '/reports/audit')
    assert document['audit']['clean'] is False
    assert _examples(document) == planted
    assert {name: found['count'] for name, found
            in document['audit']['findings'].items()} == {
        name: len(examples) for name, examples in planted.items()}


def test_examples_stop_at_twenty_but_the_count_does_not(application, db):
    with db.writer() as conn:
        cn1, memory = (audit_cloud.provider_id(conn, report_data.CN1),
                       audit_cloud.class_id(conn, 'MEMORY_MB'))
        conn.execute(sa.insert(ALLOC), [
            {'resource_provider_id': cn1, 'resource_class_id': memory,
             'consumer_id': f'00000000-0000-4000-8000-{index:012d}',
             'used': 1} for index in range(audit.EXAMPLES + 5)])
    first = [f'00000000-0000-4000-8000-{index:012d}'
             for index in range(audit.EXAMPLES)]
    findings = db.read(audit.report, set())['audit']['findings']
    found = findings['allocations_without_consumer']
    assert found['count'] == audit.EXAMPLES + 5
    assert [example['consumer_uuid'] for example in found['examples']] == (
        first)
    # No consumer is live: the 25, C1, C2 and C3 are orphans.
    orphans = findings['orphaned_allocations']
    assert orphans['count'] == audit.EXAMPLES + 8
    assert orphans['by_consumer_type'] == {
        'INSTANCE': 1, 'MIGRATION': 1, 'unknown': audit.EXAMPLES + 6}
    assert [example['consumer_uuid'] for example in orphans['examples']] == (
        first)


def test_orphans_are_the_consumers_not_listed(application, db):
    found = db.read(audit.report, {report_data.C1, report_data.C2})[
        'audit']['findings']['orphaned_allocations']
    assert found['count'] == 1
    assert found['by_consumer_type'] == {'unknown': 1}
    assert found['examples'] == [
        {'consumer_uuid': report_data.C3, 'consumer_type': 'unknown',
         'project_id': 'p2', 'allocations': 1}]


# The command line.

@pytest.fixture
def config(tmp_path, db_url):
    return str(commands.write_config(
        tmp_path / 'manage.conf', placement_database={'connection': db_url}))


def manage_audit(tmp_path, config, *args):
    return commands.run('placement-manage', '--config-file', config,
                        'audit', *args, config_dir=tmp_path)


def test_cli_exits_0_when_clean(tmp_path, application, config):
    result = manage_audit(tmp_path, config)
    assert result.returncode == 0, result.stderr
    assert '| over_capacity ' in result.stdout


def test_cli_json_is_the_http_document_and_exits_1(tmp_path, application,
                                                   db, config):
    plant(application, db)
    result = manage_audit(tmp_path, config, '--format', 'json')
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout) == report_cloud.get_json(
        application, '/reports/audit')


def test_cli_table_shows_counts_and_examples(tmp_path, application, db,
                                             config):
    plant(application, db)
    result = manage_audit(tmp_path, config)
    assert result.returncode == 1, result.stderr
    rows = [[cell.strip() for cell in line.strip('|').split('|')]
            for line in result.stdout.splitlines() if line.startswith('|')]
    assert ['providers_with_broken_parent_chain', '2', 'providers'] in rows
    assert [audit_cloud.CYCLE_H, 'cycle-h', audit_cloud.CYCLE_G] in rows


def test_cli_live_consumers(tmp_path, application, config):
    listing = tmp_path / 'servers'
    # As "openstack server list -f value -c ID" prints them, and a blank.
    listing.write_text(f'{report_data.C1}\n\n{report_data.C2.upper()}\n')
    result = manage_audit(tmp_path, config, '--live-consumers',
                          str(listing), '--format', 'json')
    assert result.returncode == 1, result.stderr
    found = json.loads(result.stdout)['audit']['findings'][
        'orphaned_allocations']
    assert (found['count'], found['by_consumer_type']) == (1, {'unknown': 1})
    listing.write_text('\n'.join(
        [report_data.C1, report_data.C2, report_data.C3]))
    result = manage_audit(tmp_path, config, '--live-consumers',
                          str(listing))
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize('content, message', [
    (None, 'No such file'),
    (f'{report_data.C1}\nnot-a-uuid\n', "line 2: 'not-a-uuid' is not a uuid"),
])
def test_cli_bad_live_consumers_exit_2(tmp_path, application, config,
                                       content, message):
    listing = tmp_path / 'servers'
    if content is not None:
        listing.write_text(content)
    result = manage_audit(tmp_path, config, '--live-consumers', str(listing))
    assert result.returncode == 2
    assert message in result.stderr
    assert result.stdout == ''


def test_cli_exits_2_without_a_database(tmp_path):
    config = commands.write_config(
        tmp_path / 'manage.conf', placement_database={
            'connection': 'mysql+pymysql://nobody@127.0.0.1:1/placement',
            'max_retries': 0})
    result = manage_audit(tmp_path, str(config))
    assert result.returncode == 2
    assert 'The audit failed' in result.stderr


def test_cli_fix_empty_consumers(tmp_path, application, db, config):
    planted = plant(application, db)
    result = manage_audit(tmp_path, config, '--fix-empty-consumers',
                          '--format', 'json')
    assert result.returncode == 1, result.stderr
    assert result.stderr.split() == [
        'Removed', '1', 'consumer', 'record(s)', 'with', 'no',
        'allocations', audit_cloud.C6]
    document = json.loads(result.stdout)
    assert _examples(document) == {
        **planted, 'consumers_without_allocations': []}
    with db.reader() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(
            CONSUMER)) == 5


def test_the_repair_keeps_a_consumer_given_allocations_meanwhile(
        application, db):
    """A writer gives the empty consumer C6 an allocation (swapping its
    generation, as every allocation write does) while the repair runs:
    whichever locks first, C6 is kept and not said to be removed."""
    audit_cloud.plant(application, db)
    removed = []
    repair = threading.Thread(target=lambda: removed.append(db.write(
        audit.remove_empty_consumers, read_committed=True)))
    with db.writer() as conn:
        conn.execute(sa.update(CONSUMER).where(
            CONSUMER.c.uuid == audit_cloud.C6).values(generation=1))
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=audit_cloud.provider_id(
                conn, report_data.CN1),
            resource_class_id=audit_cloud.class_id(conn, 'MEMORY_MB'),
            consumer_id=audit_cloud.C6, used=1))
        repair.start()
        # A moment for the repair to reach C6's lock (not needed for
        # the outcome, which is the same either way).
        repair.join(1)
    repair.join(60)
    assert removed == [[]]
    with db.reader() as conn:
        assert conn.scalar(sa.select(CONSUMER.c.generation).where(
            CONSUMER.c.uuid == audit_cloud.C6)) == 1


#: The providers of broken trees the audit finds: rootless (its root id
#: NULL), a child whose parent is in another tree, two parents of each
#: other.
BROKEN = (audit_cloud.ROOTLESS, audit_cloud.WRONG_CHILD,
          audit_cloud.CYCLE_G, audit_cloud.CYCLE_H)


@pytest.mark.parametrize('path', [
    '/allocation_candidates?resources=VCPU:1',
    '/allocation_candidates?resources=VCPU:1&limit=2',
    '/allocation_candidates?resources=VCPU:1&in_tree=' + report_data.CN2,
    '/reports/explain?resources=VCPU:1',
])
@pytest.mark.parametrize('broken', BROKEN)
def test_the_broken_trees_are_left_out_of_searches(application, db, path,
                                                   broken):
    """A provider of a broken tree, with inventory, serves no candidate,
    and the search and its explanation answer (they answered 500 on the
    audit's cloud: the rootless provider, then the child whose parent
    is in another tree)."""
    plant(application, db)
    with db.writer() as conn:
        conn.execute(sa.insert(models.Inventory.__table__).values(
            resource_provider_id=audit_cloud.provider_id(conn, broken),
            resource_class_id=audit_cloud.class_id(conn, 'VCPU'),
            total=8, reserved=0, min_unit=1, max_unit=8, step_size=1,
            allocation_ratio=1.0))
    response = report_data.call(application, 'GET', path, None)
    assert response.json and broken not in response.text


#: Path variables of the planted cloud's rows, for every GET operation.
_PATH_VALUES = {'uuid': report_data.CN1, 'consumer_uuid': report_data.C3,
                'resource_class': 'VCPU', 'project_id': 'p1'}
#: GET operations that need more than their path, with it.
_READS = {
    '/allocation_candidates':
        '/allocation_candidates?resources=VCPU:1,MEMORY_MB:1&member_of='
        + report_data.AZ1,
    '/reports/explain': '/reports/explain?resources=VCPU:1,MEMORY_MB:1',
    '/reports/headroom': '/reports/headroom?resources=VCPU:1,MEMORY_MB:1',
    '/resource_classes/{name}': '/resource_classes/VCPU',
    '/traits/{name}': '/traits/MISC_SHARES_VIA_AGGREGATE',
    '/usages': '/usages?project_id=p1',
    '/reports/static/{name}': None,
}
_QUERIES = [
    '/resource_providers?resources=VCPU:1&member_of=' + report_data.AZ1,
    '/resource_providers?member_of=' + report_data.AZ1,
    '/reports/capacity?detail',
    '/reports/usage/p1?detail',
]


def test_every_read_answers_on_the_planted_cloud(application, db):
    """Rows the audit finds (an inventory of a deleted class, links to a
    missing provider or aggregate, broken trees) break no read: each
    GET of the API and the reports on them answers, never 500."""
    plant(application, db)
    paths = {_READS[operation.path] if operation.path in _READS
             else operation.path.format_map(_PATH_VALUES)
             for operation in operations.OPERATIONS + operations.REPORTS
             if operation.method == 'GET'} - {None}
    for path in sorted(paths) + _QUERIES:
        response = webob.Request.blank(path, headers={
            'X-Auth-Token': 'admin',
            'OpenStack-API-Version': 'placement latest'}).get_response(
                application)
        assert response.status_int < 400, (path, response.text)


def _send(application, method, path, body=None):
    request = webob.Request.blank(path, method=method, headers={
        'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
        'OpenStack-API-Version': 'placement latest'})
    if body is not None:
        request.body = json.dumps(body).encode()
    return request.get_response(application)


def test_writes_on_the_planted_provider(application, db):
    """cn1 holds an inventory of a deleted class and a link to a missing
    aggregate: its allocations, inventories, aggregates and traits are
    written as any provider's."""
    plant(application, db)
    cn1 = f'/resource_providers/{report_data.CN1}'
    new = 'e0000000-0000-4000-8000-0000000000aa'
    claim = {'allocations': {report_data.CN1: {'resources': {'VCPU': 1}}},
             'project_id': 'p1', 'user_id': 'u1',
             'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    assert _send(application, 'PUT', f'/allocations/{new}',
                 claim).status_int == 204
    inventories = _send(application, 'GET', f'{cn1}/inventories').json
    assert set(inventories['inventories']) == {'VCPU', 'MEMORY_MB'}
    response = _send(application, 'PUT', f'{cn1}/inventories', inventories)
    assert response.status_int == 200, response.text
    generation = response.json['resource_provider_generation']
    response = _send(application, 'PUT', f'{cn1}/aggregates', {
        'aggregates': [report_data.AZ2],
        'resource_provider_generation': generation})
    assert response.status_int == 200, response.text
    assert response.json['aggregates'] == [report_data.AZ2]
    response = _send(application, 'PUT', f'{cn1}/traits', {
        'traits': ['HW_CPU_X86_AVX2'],
        'resource_provider_generation': response.json[
            'resource_provider_generation']})
    assert response.status_int == 200, response.text
    assert _send(application, 'DELETE',
                 f'/allocations/{new}').status_int == 204
