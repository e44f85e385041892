"""Measure what a scrape of GET /metrics costs on a large cloud.

    .venv/bin/python tools/bench_metrics_scrape.py [--db mysql]
        [--providers 10000] [--repetitions 5] [--keep-database NAME]

Plants ``--providers`` compute nodes straight into a new database (VCPU,
MEMORY_MB and DISK_GB inventories; a fifth of them with allocations;
half in each of two availability zones), then times scrapes of the
whole in-process WSGI stack, after an ANALYZE: uncached (``[metrics]
capacity_cache_time = 0``: every scrape reads the capacity gauges from
the database) and cached (a scrape within the period). Prints the median
(and the service's CPU seconds) and the slowest of each, the body size,
the number of lines and the machine's load average. The database is
dropped at the end unless ``--keep-database`` names it
(``--reuse-database NAME`` measures it again without planting).
"""

import argparse
import os
import statistics
import time
import uuid

import sqlalchemy as sa
import webob

from placement import deploy
from placement import policy
from placement import throwaway
from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement.db import standard_data
from tools import bench_allocation_candidates as bench

SERVERS = {
    'mysql': 'mysql+pymysql://root@127.0.0.1:3306',
    'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1:5432',
}
ZONES = {'az1': str(uuid.UUID(int=1)), 'az2': str(uuid.UUID(int=2))}
CHUNK = 5000


def _chunks(rows):
    for start in range(0, len(rows), CHUNK):
        yield rows[start:start + CHUNK]


def plant(db, providers):
    """``providers`` compute nodes with inventories, some allocations,
    and the zone aggregates."""
    tables = {name: model.__table__ for name, model in (
        ('rp', models.ResourceProvider), ('inv', models.Inventory),
        ('alloc', models.Allocation), ('agg', models.PlacementAggregate),
        ('rp_agg', models.ResourceProviderAggregate),
        ('rc', models.ResourceClass))}
    with db.writer() as conn:
        classes = dict(conn.execute(sa.select(
            tables['rc'].c.name, tables['rc'].c.id)).all())
        conn.execute(tables['agg'].insert(), [
            {'id': number, 'uuid': uuid} for number, uuid
            in enumerate(ZONES.values(), 1)])
        ids = range(1, providers + 1)
        for rows in _chunks([{'id': i, 'uuid': str(uuid.uuid4()),
                              'name': f'compute-{i:06d}', 'generation': 1,
                              'root_provider_id': i} for i in ids]):
            conn.execute(tables['rp'].insert(), rows)
        inventories = [
            bench.inventory_row(i, classes[name], total, ratio, reserved)
            for i in ids for name, total, reserved, ratio in (
                ('VCPU', 64, 0, 4.0), ('MEMORY_MB', 262144, 4096, 1.0),
                ('DISK_GB', 2000, 0, 1.0))]
        for rows in _chunks(inventories):
            conn.execute(tables['inv'].insert(), rows)
        allocations = [
            {'resource_provider_id': i, 'resource_class_id': classes[name],
             'consumer_id': str(uuid.UUID(int=i)), 'used': used}
            for i in ids if i % 5 == 0
            for name, used in (('VCPU', 8), ('MEMORY_MB', 16384),
                               ('DISK_GB', 80))]
        for rows in _chunks(allocations):
            conn.execute(tables['alloc'].insert(), rows)
        for rows in _chunks([{'resource_provider_id': i,
                              'aggregate_id': 1 + i % 2} for i in ids]):
            conn.execute(tables['rp_agg'].insert(), rows)


def scrape_times(url, cache_time, repetitions):
    conf = throwaway.make_conf(
        url, api__auth_strategy='noauth2',
        metrics__capacity_cache_time=cache_time,
        reports__availability_zones=ZONES)
    db = deploy.prepare_database(conf)
    application = deploy.build_stack(conf, db, policy.make_enforcer(conf))
    times, cpu = [], []
    try:
        for _ in range(repetitions + 1):
            started, cpu_started = time.perf_counter(), time.process_time()
            response = webob.Request.blank(
                '/metrics', headers={'X-Auth-Token': 'admin'}).get_response(
                application)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
            assert response.status_int == 200, response.text
    finally:
        db.dispose()
    # The first scrape of the cached run fills the cache.
    return (times[1:], cpu[1:], len(response.body),
            response.body.count(b'\n'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=sorted(SERVERS), default='mysql')
    parser.add_argument('--providers', type=int, default=10000)
    parser.add_argument('--repetitions', type=int, default=5)
    parser.add_argument('--keep-database', metavar='NAME')
    parser.add_argument('--reuse-database', metavar='NAME')
    args = parser.parse_args()
    server = SERVERS[args.db]
    name = args.reuse_database or args.keep_database or (
        f'bench_metrics_{uuid.uuid4().hex[:8]}')
    admin = sa.create_engine(server + '/' + (
        'postgres' if args.db == 'postgresql' else ''),
        isolation_level='AUTOCOMMIT')
    url = f'{server}/{name}'
    try:
        if not args.reuse_database:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'CREATE DATABASE {name}')
            db = db_api.Database(throwaway.make_conf(url).placement_database)
            migration.upgrade(db.engine)
            standard_data.sync(db)
            started = time.perf_counter()
            plant(db, args.providers)
            db.dispose()
            print(f'planted {args.providers} providers in '
                  f'{time.perf_counter() - started:.1f} s')
        bench.analyze(url)
        for label, cache_time in (('uncached', 0), ('cached', 3600)):
            times, cpu, size, lines = scrape_times(url, cache_time,
                                                   args.repetitions)
            print(f'{args.db} {args.providers} providers {label}: median '
                  f'{statistics.median(times):.3f} s (CPU of the service '
                  f'{statistics.median(cpu):.3f} s), slowest '
                  f'{max(times):.3f} s, {size / 1e6:.1f} MB, {lines} lines, '
                  f'load {os.getloadavg()[0]:.1f}')
    finally:
        if not (args.keep_database or args.reuse_database):
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS {name}')
        admin.dispose()


if __name__ == '__main__':
    main()
