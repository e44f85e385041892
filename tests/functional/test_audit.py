"""The audit report finds exactly what was planted in a cloud.

The clean cloud is that of the other reports (:mod:`tests.report_data`:
a nested tree, a sharing provider, usage beyond the raw capacity, three
kinds of consumers); :func:`plant` breaks it once per finding, through
the API where the API can and with direct writes where only a bug or an
old release could.
"""

import json

import pytest
import sqlalchemy as sa

from placement.db import models
from placement.reports import audit
from tests import report_data
from tests.functional import commands
from tests.functional import report_cloud

pytestmark = pytest.mark.db

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
CONSUMER = models.Consumer.__table__
PROJECT = models.Project.__table__
USER = models.User.__table__

C4 = 'e0000000-0000-4000-8000-000000000004'
C5 = 'e0000000-0000-4000-8000-000000000005'
C6 = 'e0000000-0000-4000-8000-000000000006'
C7 = 'e0000000-0000-4000-8000-000000000007'
ROOTLESS = 'f0000000-0000-4000-8000-000000000001'
WRONG = 'f0000000-0000-4000-8000-000000000002'
WRONG_CHILD = 'f0000000-0000-4000-8000-000000000003'
CYCLE_G = 'f0000000-0000-4000-8000-000000000004'
CYCLE_H = 'f0000000-0000-4000-8000-000000000005'
MISSING = 999999


@pytest.fixture
def application(db_url):
    with report_cloud.serving(db_url) as application:
        yield application


def _call(application, method, path, body=None):
    report_data._call(application, method, path, body)


def _id(conn, uuid):
    return conn.scalar(sa.select(RP.c.id).where(RP.c.uuid == uuid))


def _class_id(conn, name):
    return conn.scalar(sa.select(RC.c.id).where(RC.c.name == name))


def _update_provider(conn, uuid, **values):
    conn.execute(sa.update(RP).where(RP.c.uuid == uuid).values(**values))


def plant(application, db):
    """Break the report cloud once for each finding of the audit."""
    # Through the API: a consumer on cn2 (over capacity once its
    # inventory shrinks below) and a migration holding two trees.
    report_data._allocate(application, C4, 'p1', 'INSTANCE',
                          {report_data.CN2: {'VCPU': 6}})
    report_data._allocate(application, C5, 'p2', 'MIGRATION',
                          {report_data.CN1: {'VCPU': 1},
                           report_data.CN2: {'VCPU': 1}})
    for name, uuid, parent in [('rootless', ROOTLESS, None),
                               ('wrong', WRONG, None),
                               ('wrong-child', WRONG_CHILD, WRONG),
                               ('cycle-g', CYCLE_G, None),
                               ('cycle-h', CYCLE_H, None)]:
        _call(application, 'POST', '/resource_providers',
              {'name': name, 'uuid': uuid, 'parent_provider_uuid': parent})
    with db.writer() as conn:
        cn2, vcpu = _id(conn, report_data.CN2), _class_id(conn, 'VCPU')
        conn.execute(sa.update(INV).where(
            INV.c.resource_provider_id == cn2,
            INV.c.resource_class_id == vcpu).values(total=4))
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=_id(conn, report_data.NUMA0),
            resource_class_id=_class_id(conn, 'DISK_GB'),
            consumer_id=report_data.C3, used=5))
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=_id(conn, report_data.CN1),
            resource_class_id=_class_id(conn, 'MEMORY_MB'),
            consumer_id=C7, used=128))
        conn.execute(sa.insert(CONSUMER).values(
            uuid=C6, generation=0,
            project_id=conn.scalar(sa.select(PROJECT.c.id).where(
                PROJECT.c.external_id == 'p1')),
            user_id=conn.scalar(sa.select(USER.c.id).where(
                USER.c.external_id == 'u1'))))
        conn.execute(sa.update(CONSUMER).where(
            CONSUMER.c.uuid == report_data.C1).values(project_id=MISSING))
        conn.execute(sa.update(CONSUMER).where(
            CONSUMER.c.uuid == report_data.C2).values(user_id=MISSING))
        _update_provider(conn, ROOTLESS, root_provider_id=None)
        _update_provider(conn, WRONG_CHILD, root_provider_id=cn2)
        cycle_g, cycle_h = _id(conn, CYCLE_G), _id(conn, CYCLE_H)
        _update_provider(conn, CYCLE_G, parent_provider_id=cycle_h)
        _update_provider(conn, CYCLE_H, parent_provider_id=cycle_g,
                         root_provider_id=cycle_g)


#: What the audit of the planted cloud finds: ``{finding: examples}``.
PLANTED = {
    'over_capacity': [
        {'provider_uuid': report_data.CN2, 'provider_name': 'cn2',
         'resource_class': 'VCPU', 'used': 7, 'capacity': 4}],
    'allocations_without_inventory': [
        {'consumer_uuid': report_data.C3, 'provider_uuid': report_data.NUMA0,
         'resource_class': 'DISK_GB', 'used': 5}],
    'consumers_in_several_trees': [
        {'consumer_uuid': C5, 'consumer_type': 'MIGRATION', 'trees': 2}],
    'consumers_without_allocations': [
        {'consumer_uuid': C6, 'consumer_type': 'unknown',
         'project_id': 'p1', 'user_id': 'u1'}],
    'allocations_without_consumer': [
        {'consumer_uuid': C7, 'allocations': 1}],
    'consumers_without_project': [
        {'consumer_uuid': report_data.C1, 'consumer_type': 'INSTANCE'}],
    'consumers_without_user': [
        {'consumer_uuid': report_data.C2, 'consumer_type': 'MIGRATION'}],
    'providers_without_root': [
        {'provider_uuid': ROOTLESS, 'provider_name': 'rootless'}],
    'providers_with_wrong_root': [
        {'provider_uuid': WRONG_CHILD, 'provider_name': 'wrong-child',
         'root_uuid': report_data.CN2, 'expected_root_uuid': WRONG}],
    'providers_with_parent_in_other_tree': [
        {'provider_uuid': WRONG_CHILD, 'provider_name': 'wrong-child',
         'root_uuid': report_data.CN2, 'parent_uuid': WRONG,
         'parent_root_uuid': WRONG}],
    'providers_with_broken_parent_chain': [
        {'provider_uuid': CYCLE_G, 'provider_name': 'cycle-g',
         'parent_uuid': CYCLE_H},
        {'provider_uuid': CYCLE_H, 'provider_name': 'cycle-h',
         'parent_uuid': CYCLE_G}],
}


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
    plant(application, db)
    document = report_cloud.get_json(application, '/reports/audit')
    assert document['audit']['clean'] is False
    assert _examples(document) == PLANTED
    assert {name: found['count'] for name, found
            in document['audit']['findings'].items()} == {
        name: len(examples) for name, examples in PLANTED.items()}


def test_examples_stop_at_twenty_but_the_count_does_not(application, db):
    with db.writer() as conn:
        cn1, memory = (_id(conn, report_data.CN1),
                       _class_id(conn, 'MEMORY_MB'))
        conn.execute(sa.insert(ALLOC), [
            {'resource_provider_id': cn1, 'resource_class_id': memory,
             'consumer_id': f'00000000-0000-4000-8000-{index:012d}',
             'used': 1} for index in range(audit.EXAMPLES + 5)])
    found = db.read(audit.report)['audit']['findings'][
        'allocations_without_consumer']
    assert found['count'] == audit.EXAMPLES + 5
    assert [example['consumer_uuid'] for example in found['examples']] == [
        f'00000000-0000-4000-8000-{index:012d}'
        for index in range(audit.EXAMPLES)]


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
    assert [CYCLE_H, 'cycle-h', CYCLE_G] in rows


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
    plant(application, db)
    result = manage_audit(tmp_path, config, '--fix-empty-consumers',
                          '--format', 'json')
    assert result.returncode == 1, result.stderr
    assert result.stderr.split() == [
        'Removed', '1', 'consumer', 'record(s)', 'with', 'no',
        'allocations', C6]
    document = json.loads(result.stdout)
    assert _examples(document) == {
        **PLANTED, 'consumers_without_allocations': []}
    with db.reader() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(
            CONSUMER)) == 5
