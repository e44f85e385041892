"""Time the audit report on a large cloud planted with bulk inserts.

    python -m tools.bench_audit --db mysql --providers 10000
    python -m tools.bench_audit --db postgresql --providers 100000

Creates a throw-away database on the local server (MariaDB root or
PostgreSQL postgres, as the tests use them), plants ``--providers``
compute nodes (every tenth with two NUMA children), two consumers per
node (VCPU, MEMORY_MB, DISK_GB each; one in ten a migration also
holding the next node), each node in one of 20 aggregates, and one of
each finding per thousand nodes,
then times the whole audit, with and without a list of live consumers,
and each finding's statement. The database is dropped at the end
unless ``--keep-database``.
"""

import argparse
import os
import statistics
import time
import uuid

import sqlalchemy as sa

from placement.conf import loading
from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement.db import standard_data
from placement.reports import audit
from tools import bench_allocation_candidates as bench

SERVERS = {'mysql': 'mysql+pymysql://root@127.0.0.1:3306',
           'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1:5432'}
CHUNK = 5000
RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
CONSUMER = models.Consumer.__table__
PROJECT = models.Project.__table__
USER = models.User.__table__
CONSUMER_TYPE = models.ConsumerType.__table__
RC = models.ResourceClass.__table__
AGGREGATE = models.PlacementAggregate.__table__
PROVIDER_AGGREGATE = models.ResourceProviderAggregate.__table__
#: Aggregates the nodes are spread over (as host aggregates and zones).
AGGREGATES = 20


def _admin_engine(server):
    url = sa.engine.make_url(server)
    admin = 'postgres' if url.get_backend_name() == 'postgresql' else None
    return url, sa.create_engine(url.set(database=admin),
                                 isolation_level='AUTOCOMMIT')


def create_database(server, name):
    url, admin = _admin_engine(server)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE {name}')
    admin.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


def drop_database(server, name):
    url, admin = _admin_engine(server)
    force = ' WITH (FORCE)' if url.get_backend_name() == 'postgresql' else ''
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS {name}{force}')
    admin.dispose()


def open_database(url):
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    conf.set_override('connection', url, group='placement_database')
    return db_api.Database(conf.placement_database)


def _insert(conn, table, rows):
    for start in range(0, len(rows), CHUNK):
        conn.execute(sa.insert(table), rows[start:start + CHUNK])


def plant(conn, nodes, projects=100):
    """The cloud described in the module's docstring, its consumers in
    ``projects`` projects (``p1``...); ``(providers, consumers)``
    planted, and the uuids of the consumers planted live."""
    classes = dict(conn.execute(sa.select(RC.c.name, RC.c.id)).all())
    vcpu, memory, disk = (classes[name]
                          for name in ('VCPU', 'MEMORY_MB', 'DISK_GB'))
    providers, inventories, allocations, consumers = [], [], [], []
    next_id = 1
    node_ids = []
    for index in range(nodes):
        node = next_id
        node_ids.append(node)
        providers.append({'id': node, 'uuid': str(uuid.uuid4()),
                          'name': f'cn{index}', 'generation': 1,
                          'root_provider_id': node})
        inventories += [bench.inventory_row(node, vcpu, 64, 4.0),
                        bench.inventory_row(node, memory, 262144, 1.5),
                        bench.inventory_row(node, disk, 4000)]
        next_id += 1
        if index % 10 == 0:
            for numa in range(2):
                providers.append({
                    'id': next_id, 'uuid': str(uuid.uuid4()),
                    'name': f'cn{index}-numa{numa}', 'generation': 1,
                    'root_provider_id': node, 'parent_provider_id': node})
                inventories.append(bench.inventory_row(next_id, vcpu, 32))
                next_id += 1
    _insert(conn, RP, [{'parent_provider_id': None, **row}
                       for row in providers])
    _insert(conn, INV, inventories)
    conn.execute(sa.insert(AGGREGATE), [
        {'id': i, 'uuid': str(uuid.uuid4())}
        for i in range(1, AGGREGATES + 1)])
    _insert(conn, PROVIDER_AGGREGATE, [
        {'resource_provider_id': node, 'aggregate_id': index % AGGREGATES + 1}
        for index, node in enumerate(node_ids)])
    conn.execute(sa.insert(PROJECT), [{'id': i, 'external_id': f'p{i}'}
                                      for i in range(1, projects + 1)])
    conn.execute(sa.insert(USER), [{'id': i, 'external_id': f'u{i}'}
                                   for i in range(1, 11)])
    conn.execute(sa.insert(CONSUMER_TYPE), [
        {'id': 1, 'name': 'INSTANCE'}, {'id': 2, 'name': 'MIGRATION'}])
    live = set()
    for index, node in enumerate(node_ids):
        for slot in range(2):
            consumer_uuid = str(uuid.uuid4())
            number = 2 * index + slot
            migration_ = number % 10 == 0
            consumers.append({
                'uuid': consumer_uuid, 'project_id': number % projects + 1,
                'user_id': number % 10 + 1, 'generation': 1,
                'consumer_type_id': 2 if migration_ else 1})
            held = [node]
            if migration_:
                held.append(node_ids[(index + 1) % len(node_ids)])
            for provider in held:
                allocations += [
                    {'resource_provider_id': provider,
                     'resource_class_id': vcpu, 'consumer_id': consumer_uuid,
                     'used': 2},
                    {'resource_provider_id': provider,
                     'resource_class_id': memory,
                     'consumer_id': consumer_uuid, 'used': 2048},
                    {'resource_provider_id': provider,
                     'resource_class_id': disk,
                     'consumer_id': consumer_uuid, 'used': 20}]
            if number % 1000:
                live.add(consumer_uuid)
    _insert(conn, CONSUMER, consumers)
    _insert(conn, ALLOC, allocations)
    _plant_findings(conn, node_ids, disk, vcpu)
    return len(providers), len(consumers), live


def _plant_findings(conn, node_ids, disk, vcpu):
    """One of each finding per thousand nodes."""
    every = node_ids[::1000]
    conn.execute(sa.update(INV).where(
        INV.c.resource_provider_id.in_(every),
        INV.c.resource_class_id == vcpu).values(reserved=63,
                                                    allocation_ratio=1.0))
    conn.execute(sa.insert(ALLOC), [
        {'resource_provider_id': node + 1, 'resource_class_id': disk,
         'consumer_id': str(uuid.uuid4()), 'used': 1} for node in every])
    conn.execute(sa.insert(CONSUMER), [
        {'uuid': str(uuid.uuid4()), 'project_id': 1, 'user_id': 1,
         'generation': 0} for _node in every])
    conn.execute(sa.update(RP).where(RP.c.id.in_(node_ids[1::1000]))
                 .values(root_provider_id=None))
    conn.execute(sa.update(RP).where(RP.c.id.in_(
        [node + 1 for node in every])).values(
            root_provider_id=node_ids[-1]))
    # Left by deletes racing writes: no row has a negative id.
    conn.execute(sa.insert(INV),
                 [bench.inventory_row(node, -1, 8) for node in every])
    conn.execute(sa.insert(PROVIDER_AGGREGATE), [
        {'resource_provider_id': -node, 'aggregate_id': 1} for node in every])


def analyze(db, backend):
    """Fresh statistics of the planted tables, as a real cloud has."""
    with db.engine.begin() as conn:
        for table in ('resource_providers', 'inventories', 'allocations',
                      'consumers', 'resource_provider_traits',
                      'resource_provider_aggregates'):
            conn.exec_driver_sql(f'ANALYZE TABLE {table}'
                                 if backend == 'mysql'
                                 else f'ANALYZE {table}')


def server_cpu_ms(conn):
    """CPU milliseconds so far of the database server's thread
    (MariaDB, a thread per connection) or process (PostgreSQL) serving
    ``conn``, from ``/proc``; None if they cannot be read (another
    machine, another kind of server)."""
    if 'bench_stat' not in conn.info:
        ids = {'mysql': 'SELECT tid FROM information_schema.processlist '
                        'WHERE id = connection_id()',
               'postgresql': 'SELECT pg_backend_pid()'}
        query = ids.get(conn.dialect.name)
        path = query and f'/proc/{conn.exec_driver_sql(query).scalar()}/stat'
        conn.info['bench_stat'] = (
            path if path and os.access(path, os.R_OK) else None)
    path = conn.info['bench_stat']
    if path is None:
        return None
    with open(path) as stat:
        # utime and stime, fields 14 and 15, after the parenthesised name.
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf(
        'SC_CLK_TCK')


def run(db, function, *args):
    """``(wall ms, CPU ms)`` of ``function(conn, *args)`` in a read
    transaction; the CPU of this process and of the server's side."""

    def measured(conn):
        server = server_cpu_ms(conn)
        wall, cpu = time.perf_counter(), time.process_time()
        function(conn, *args)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if server is not None:
            cpu += (server_cpu_ms(conn) - server) / 1000
        return 1000 * wall, 1000 * cpu

    return db.read(measured)


def timed(db, repetitions, function, *args):
    """``(wall ms, CPU ms)`` of ``repetitions`` runs of :func:`run`:
    the median of the wall times, the mean of the CPU times (read in
    clock ticks of 10 ms)."""
    walls, cpus = zip(*(run(db, function, *args)
                        for _ in range(repetitions)), strict=True)
    return statistics.median(walls), statistics.mean(cpus)


def measure(db, live, repetitions):
    """Print the wall and CPU (this process's and the database
    server's, :func:`run`) of the audit, whole and per finding."""
    def timing(function, *args):
        wall, cpu = timed(db, repetitions, function, *args)
        return f'{wall:.0f} ms, CPU {cpu:.0f} ms'

    print(f'whole audit: {timing(audit.report)}')
    print(f'with --live-consumers: {timing(audit.report, live)}')
    document = db.read(audit.report, live)['audit']['findings']
    for finding in audit.FINDINGS:
        print(f'  {finding.name}: {timing(audit.examine, finding)} '
              f'(count {document[finding.name]["count"]})')
    print(f'  orphans: count {document[audit.ORPHANS.name]["count"]}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=sorted(SERVERS), required=True)
    parser.add_argument('--providers', type=int, default=10000,
                        help='Compute nodes (a tenth with 2 children more).')
    parser.add_argument('--repetitions', type=int, default=5)
    parser.add_argument('--keep-database', action='store_true')
    parser.add_argument('--prefix', default='placement_audit_bench',
                        help='Prefix of the name of the database planted.')
    args = parser.parse_args()
    server = SERVERS[args.db]
    name = f'{args.prefix}_{uuid.uuid4().hex[:8]}'
    url = create_database(server, name)
    db = open_database(url)
    try:
        migration.upgrade(db.engine)
        standard_data.sync(db)
        started = time.perf_counter()
        providers, consumers, live = db.write(plant, args.providers)
        analyze(db, args.db)
        print(f'{args.db}: {providers} providers, {consumers} consumers '
              f'planted in {time.perf_counter() - started:.0f} s '
              f'(database {name})')
        measure(db, live, args.repetitions)
    finally:
        db.dispose()
        if not args.keep_database:
            drop_database(server, name)


if __name__ == '__main__':
    main()
