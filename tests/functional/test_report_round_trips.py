"""What the summed reports read: the inventories once, their totals and
zones from the same GROUP BY (the cloud of tools/report_data.py, a
sharing provider in both zones; reports-capacity.yaml and
reports-headroom.yaml check the numbers)."""

import pytest
import sqlalchemy as sa

from placement import throwaway
from placement.db import api as db_api
from placement.reports import inventory
from tools import report_data

pytestmark = pytest.mark.db


@pytest.fixture
def application(db_url):
    with report_data.serving(db_url) as application:
        yield application


def _statements_reading_inventories(application, path):
    return [statement for statement in _statements_run(application, path)
            if 'inventories' in statement]


@pytest.mark.parametrize('path', [
    '/reports/capacity',
    '/reports/capacity?service=storage',
    '/reports/headroom?resources=VCPU:1',
])
def test_totals_and_zones_are_one_pass_over_the_inventories(application,
                                                            path):
    assert len(_statements_reading_inventories(application, path)) == 1


#: More zone aggregates than one BIGINT of bits holds (62 a column).
MANY_ZONES = {f'z{n:02}': f'{n:08x}-0000-4000-8000-000000000000'
              for n in range(64)}


@pytest.fixture
def many_zones(db_url):
    application, db = throwaway.build_stack(
        db_url, reports__availability_zones=MANY_ZONES)
    try:
        yield application
    finally:
        db.dispose()


def _node(application, name, vcpu, zones):
    uuid = f'{len(name):08x}-1111-4000-8000-{sum(map(ord, name)):012x}'
    generation = report_data.call(application, 'POST', '/resource_providers',
                                  {'name': name, 'uuid': uuid}
                                  ).json['generation']
    generation = report_data.call(
        application, 'PUT', f'/resource_providers/{uuid}/inventories',
        {'resource_provider_generation': generation,
         'inventories': {'VCPU': {'total': vcpu}}}).json[
             'resource_provider_generation']
    report_data.call(
        application, 'PUT', f'/resource_providers/{uuid}/aggregates',
        {'resource_provider_generation': generation,
         'aggregates': [MANY_ZONES[zone] for zone in zones]})


def test_zones_past_the_first_column_of_bits(many_zones):
    """z00 is the first bit of the first column, z62 and z63 the first
    and second of the next: a tree in z00 and z63 counts in both and
    once in the total."""
    _node(many_zones, 'cn1', 1, ['z00'])
    _node(many_zones, 'cn2', 2, ['z63'])
    _node(many_zones, 'cn3', 4, ['z00', 'z63'])
    _node(many_zones, 'cn4', 8, ['z62'])
    _node(many_zones, 'cn5', 16, [])
    resource, = report_data.call(
        many_zones, 'GET', '/reports/capacity?resource=VCPU', None
    ).json['cluster']['services'][0]['resources']
    assert resource['capacity'] == 31
    assert {zone['name']: zone['capacity']
            for zone in resource['per_availability_zone']} == {
        'z00': 5, 'z62': 8, 'z63': 6, 'unknown': 16}
    headroom = report_data.call(
        many_zones, 'GET', '/reports/headroom?resources=VCPU:2', None
    ).json['headroom']
    assert (headroom['count'], headroom['providers']) == (15, 4)
    assert {zone['name']: zone['count']
            for zone in headroom['per_availability_zone']} == {
        'z63': 3, 'z00': 2, 'z62': 4, 'unknown': 8}


def _is_mariadb(db_url):
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return conn.dialect.name == 'mysql' and conn.dialect.is_mariadb
    finally:
        engine.dispose()


def test_mariadb_settings_are_the_statements_alone(db_url):
    """``db_api.on_mariadb``: the statement runs with the settings, the
    next one without them; elsewhere it runs as it is."""
    _application, db = throwaway.build_stack(db_url)
    mariadb = _is_mariadb(db_url)
    heap = (sa.text('SELECT @@max_heap_table_size') if mariadb
            else sa.select(sa.literal(7)))

    def read(conn):
        return (conn.execute(db_api.on_mariadb(
                    heap, {'max_heap_table_size': 2 ** 25})).scalar(),
                conn.execute(heap).scalar())
    try:
        with_settings, without = db.read(read)
    finally:
        db.dispose()
    if mariadb:
        assert int(with_settings) == 2 ** 25 != int(without)
    else:
        assert (with_settings, without) == (7, 7)


def _statements_run(application, path):
    """The statements as the database got them (after every listener
    that rewrites them)."""
    statements = []

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    sa.event.listen(sa.engine.Engine, 'after_cursor_execute', record)
    try:
        report_data.call(application, 'GET', path, None)
    finally:
        sa.event.remove(sa.engine.Engine, 'after_cursor_execute', record)
    return statements


@pytest.mark.parametrize('path, settings', [
    ('/reports/capacity', inventory.MARIADB_SUMS),
    ('/reports/capacity?detail', inventory.MARIADB_SUMS_PER_TREE),
    ('/reports/headroom?resources=VCPU:1', inventory.MARIADB_SUMS),
])
def test_mariadb_reads_the_inventories_with_their_settings(
        db_url, application, path, settings):
    """On MariaDB the statement summing the inventories carries its
    settings (``SET STATEMENT ... FOR``), no other does; elsewhere none
    does."""
    statements = _statements_run(application, path)
    with_settings = [statement for statement in statements
                     if statement.startswith('SET STATEMENT')]
    if not _is_mariadb(db_url):
        assert with_settings == []
        return
    prefix = 'SET STATEMENT {} FOR SELECT '.format(', '.join(
        f'{name}={value}' for name, value in settings.items()))
    assert [statement[:len(prefix)] for statement in with_settings] == [
        prefix]
    assert 'inventories' in with_settings[0]


@pytest.mark.parametrize('path, straight', [
    ('/reports/usage', True),
    ('/reports/usage?sort=VCPU', True),
    ('/reports/usage/p1', False),
])
def test_every_projects_usage_reads_the_allocations_first(
        db_url, application, path, straight):
    """On MySQL every project's sums join each allocation to its consumer
    in that order (STRAIGHT_JOIN); one project's read its consumers
    first, as the database chooses; other databases get no hint."""
    summing, = [statement for statement in _statements_run(application,
                                                            path)
                if 'sum(allocations.used)' in statement]
    mysql = sa.engine.make_url(db_url).get_backend_name() == 'mysql'
    assert ('STRAIGHT_JOIN' in summing) == (straight and mysql)


@pytest.mark.parametrize('path, straight', [
    ('/reports/capacity', True),
    ('/reports/capacity?detail', True),
    ('/reports/capacity?service=compute', True),
    (f'/reports/capacity?member_of={report_data.AZ2}', False),
    (f'/reports/capacity?detail&in_tree={report_data.CN1}', False),
    ('/reports/headroom?resources=VCPU:1', False),
])
def test_capacity_of_every_provider_reads_the_inventories_first(
        db_url, application, path, straight):
    """On MySQL the capacity of every provider joins each inventory to
    its provider in that order (STRAIGHT_JOIN); a scope's conditions
    narrow the providers first, as the database chooses, and headroom
    groups per provider first; other databases get no hint."""
    summing, = _statements_reading_inventories(application, path)
    mysql = sa.engine.make_url(db_url).get_backend_name() == 'mysql'
    assert ('STRAIGHT_JOIN' in summing) == (straight and mysql)


def test_an_inventory_of_a_class_gone_counts_nowhere(db_url, application):
    """The classes' ids are read with the report: an inventory left of a
    class deleted under it (the audit's finding) is in no sum."""
    before = _resources(application)
    engine = sa.create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(inventory.INV).values(
                resource_provider_id=sa.select(inventory.RP.c.id).where(
                    inventory.RP.c.uuid == report_data.CN1
                ).scalar_subquery(),
                resource_class_id=99999, total=8, reserved=0, min_unit=1,
                max_unit=8, step_size=1, allocation_ratio=1.0))
    finally:
        engine.dispose()
    assert _resources(application) == before


def _resources(application):
    """The capacity report's resources per service (without the times
    of the answer)."""
    return {service['type']: service['resources']
            for service in report_data.call(
                application, 'GET', '/reports/capacity', None
            ).json['cluster']['services']}


def test_detail_reads_its_rows_folded_on_mariadb(db_url, application):
    """On MariaDB the groups per tree, the roots, their traits and their
    aggregates come folded into strings (PyMySQL's cost is per field);
    elsewhere row by row."""
    folded = [statement for statement in _statements_run(
        application, '/reports/capacity?detail')
        if 'group_concat' in statement.lower()]
    assert len(folded) == (4 if _is_mariadb(db_url) else 0)


#: A root's name as a client may write it: the separators of folded
#: rows, JSON's quote and escape, and what is not ASCII.
AWKWARD_NAME = 'cn 9 | "quoted" \\ back, ünïcode ☃'


def test_detail_shows_every_root_as_written(db_url, application):
    """Each subcapacity has its root's name, uuid, traits, aggregates and
    zone exactly, whether the rows came folded or not."""
    uuid = 'f0000000-0000-4000-8000-000000000009'
    generation = report_data.call(
        application, 'POST', '/resource_providers',
        {'name': AWKWARD_NAME, 'uuid': uuid}).json['generation']
    generation = report_data.call(
        application, 'PUT', f'/resource_providers/{uuid}/inventories',
        {'resource_provider_generation': generation,
         'inventories': {'VCPU': {'total': 3, 'allocation_ratio': 2.5}}}
    ).json['resource_provider_generation']
    generation = report_data.call(
        application, 'PUT', f'/resource_providers/{uuid}/traits',
        {'resource_provider_generation': generation,
         'traits': ['HW_CPU_X86_AVX2', 'COMPUTE_STATUS_DISABLED']}
    ).json['resource_provider_generation']
    report_data.call(
        application, 'PUT', f'/resource_providers/{uuid}/aggregates',
        {'resource_provider_generation': generation,
         'aggregates': [report_data.AZ2, report_data.OTHER]})
    resource, = report_data.call(
        application, 'GET', '/reports/capacity?resource=VCPU&detail', None
    ).json['cluster']['services'][0]['resources']
    entry, = [sub for sub in resource['subcapacities']
              if sub['uuid'] == uuid]
    assert entry == {
        'name': AWKWARD_NAME, 'uuid': uuid, 'capacity': 7,
        'raw_capacity': 3, 'usage': 0,
        'traits': ['COMPUTE_STATUS_DISABLED', 'HW_CPU_X86_AVX2'],
        'aggregates': sorted([report_data.AZ2, report_data.OTHER]),
        'zone': 'az2'}
    names = [sub['name'] for sub in resource['subcapacities']]
    assert names == sorted(names)
