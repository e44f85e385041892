"""What a bulk loader's writes cost, per request and per provider.

    PYTHONPATH=. .venv/bin/python -m tools.bench_loading [--db mysql]
        [--sizes 0,20000] [--requests 200] [--rounds 3]
        [--before CHECKOUT] [--after CHECKOUT]
        [--load N] [--json FILE]

Creates a throw-away database (``placement_loading_*``) on ``--db``
(mysql, postgresql or sqlite) and, for each size of ``--sizes``, plants
that many providers straight into it (3 inventories, 2 traits and one of
20 aggregates each, in a few set-based statements) and then creates
``--requests`` more through the whole WSGI stack built in a process of
its own, as a loader does, one request at a time: ``POST
/resource_providers``, ``PUT .../inventories`` (VCPU, MEMORY_MB,
DISK_GB), ``PUT .../traits`` (two), ``PUT .../aggregates`` (one of the
20). Per request of each kind: the service's CPU (``time.process_time``
of that process: the stack, SQLAlchemy and the driver), the statements
sent, the transactions begun, and the CPU of the database server's
process or thread that served the connection (PostgreSQL: the backend
of ``pg_backend_pid()``; MariaDB: the thread that burns the CPU of a
``BENCHMARK()`` run on the new connection; from /proc). ``--before``
measures another checkout's code (its ``PYTHONPATH``) in turn with this
one's (or ``--after``'s), ``--rounds`` times, alternating; the figures
are the medians of the rounds.

``--load N``: then load N flat providers (those of
``bench_allocation_candidates.py --phase flat``: a POST, a PUT of
traits and one of aggregates each, and one ``POST /reshaper`` per 100
providers for their inventories) through a ``placement-api`` server
(``--workers`` 4 of ``--threads`` 4; ``--load-threads`` 16) into a
fresh database, and report, per 10,000 providers loaded, the providers
per second and the CPU per provider of the server's processes, of the
database server and of the loader, and the rate's extrapolation to
100,000 providers; the server runs ``--after``'s code if given.
``--load 100000 --sizes ''`` is the whole 100,000 load alone.
"""

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa
import urllib3

from placement.db import standard_data
from tools import bench_allocation_candidates as bench
from tools import bench_cloud
from tools import bench_cpu

#: The write requests of one provider, in the order a loader sends them.
WRITES = ('POST /resource_providers', 'PUT .../inventories',
          'PUT .../traits', 'PUT .../aggregates')
AGGREGATES = 20
TRAITS = (bench.OWNER, 'CUSTOM_BENCH_GOLD')
CLASSES = {'VCPU': bench.inventory(64, 16.0),
           'MEMORY_MB': bench.inventory(262144, 1.5, reserved=512),
           'DISK_GB': bench.inventory(4000)}
#: Providers per reported step of ``--load``.
LOAD_STEP = 10_000


# --- the database server's CPU of one connection ------------------------

def _ticks(path):
    """utime + stime of a /proc stat file, in clock ticks."""
    with open(path) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])


_TICK = os.sysconf('SC_CLK_TCK')


def _mariadb_pid():
    for pid in filter(str.isdigit, os.listdir('/proc')):
        with contextlib.suppress(OSError), open(f'/proc/{pid}/comm') as f:
            if f.read().strip() in ('mariadbd', 'mysqld'):
                return pid
    return None


def _mariadb_threads(pid):
    ticks = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        with contextlib.suppress(OSError):
            ticks[tid] = _ticks(f'/proc/{pid}/task/{tid}/stat')
    return ticks


def backend_stat(dbapi_connection, backend):
    """The /proc stat file of the database server's process (PostgreSQL)
    or thread (MariaDB) that serves ``dbapi_connection``, or None."""
    cursor = dbapi_connection.cursor()
    try:
        if backend == 'postgresql':
            cursor.execute('SELECT pg_backend_pid()')
            return f'/proc/{cursor.fetchone()[0]}/stat'
        if backend == 'mysql':
            pid = _mariadb_pid()
            if pid is None:
                return None
            before = _mariadb_threads(pid)
            cursor.execute("SELECT BENCHMARK(2000000, MD5('placement'))")
            cursor.fetchall()
            after = _mariadb_threads(pid)
            tid = max(after, key=lambda t: after[t] - before.get(t, 0))
            return f'/proc/{pid}/task/{tid}/stat'
    finally:
        cursor.close()
    return None


class Recorder:
    """Counts, per request, the statements and transactions of every
    engine in this process, and the CPU of the connections' backends."""

    def __init__(self):
        self.statements = self.transactions = 0
        self.backends = []

    def install(self):
        engine = sa.engine.Engine
        sa.event.listen(engine, 'before_cursor_execute', self._statement)
        sa.event.listen(engine, 'begin', self._begin)
        sa.event.listen(engine, 'engine_connect', self._engine_connect)

    def _statement(self, _conn, _cursor, statement, *_args):
        if not statement.startswith('BEGIN'):
            self.statements += 1

    def _begin(self, _conn):
        self.transactions += 1

    def _engine_connect(self, conn):
        # The first use of each new pooled connection: find its backend.
        record = conn.connection._connection_record
        if record is not None and 'bench_backend' not in record.info:
            record.info['bench_backend'] = backend_stat(
                conn.connection.dbapi_connection, conn.dialect.name)
            if record.info['bench_backend']:
                self.backends.append(record.info['bench_backend'])

    def database_seconds(self):
        return sum(_ticks(path) for path in self.backends) / _TICK


# --- the in-process measurement (run in a process of its own) ----------

def provider_writes(aggregate):
    """The four writes of one new provider, as ``(name, method, path,
    body)``; the bodies' generations are those each write leaves."""
    rp = str(uuid.uuid4())
    path = f'/resource_providers/{rp}'
    return [
        (WRITES[0], 'POST', '/resource_providers',
         {'name': f'loaded-{rp}', 'uuid': rp}),
        (WRITES[1], 'PUT', path + '/inventories',
         {'resource_provider_generation': 0, 'inventories': CLASSES}),
        (WRITES[2], 'PUT', path + '/traits',
         {'resource_provider_generation': 1, 'traits': list(TRAITS)}),
        (WRITES[3], 'PUT', path + '/aggregates',
         {'resource_provider_generation': 2, 'aggregates': [aggregate]}),
    ]


def measure_in_process(db_url, requests, aggregates):
    """``{write: {cpu_ms, statements, transactions, database_cpu_ms}}``
    per request, after a warm-up of 20 providers."""
    recorder = Recorder()
    recorder.install()
    app, db = bench_cpu.build_app(db_url)
    totals = {name: dict.fromkeys(
        ('cpu_ms', 'statements', 'transactions', 'database_cpu_ms'), 0.0)
        for name in WRITES}
    try:
        for number in range(20 + requests):
            for name, method, path, body in provider_writes(
                    aggregates[number % len(aggregates)]):
                statements, begun = (recorder.statements,
                                     recorder.transactions)
                database = recorder.database_seconds()
                started = time.process_time()
                bench_cpu.request(app, method, path, body)
                spent = time.process_time() - started
                if number < 20:
                    continue
                total = totals[name]
                total['cpu_ms'] += 1000 * spent
                total['database_cpu_ms'] += 1000 * (
                    recorder.database_seconds() - database)
                total['statements'] += recorder.statements - statements
                total['transactions'] += recorder.transactions - begun
    finally:
        db.dispose()
    return {name: {what: value / requests for what, value in total.items()}
            for name, total in totals.items()}


# --- planting a database of a given size ----------------------------------

def plant(db_url, count, aggregates, start):
    """Add ``count`` providers (named from ``start``) with inventories,
    traits and an aggregate each, in a few set-based statements."""
    if not count:
        return
    meta = sa.MetaData()
    engine = sa.create_engine(db_url)
    try:
        meta.reflect(engine, only=(
            'resource_providers', 'inventories', 'resource_classes',
            'traits', 'resource_provider_traits', 'placement_aggregates',
            'resource_provider_aggregates'))
        rp = meta.tables['resource_providers']
        with engine.begin() as conn:
            first = conn.scalar(sa.select(sa.func.coalesce(
                sa.func.max(rp.c.id), 0)))
            for offset in range(0, count, 5000):
                conn.execute(sa.insert(rp), [
                    {'uuid': str(uuid.uuid4()), 'name': f'planted-{i}',
                     'generation': 3}
                    for i in range(start + offset,
                                   start + min(offset + 5000, count))])
            planted = rp.c.id > first
            conn.execute(sa.update(rp).where(planted)
                         .values(root_provider_id=rp.c.id))
            ids = (rp.c.id, planted)
            _link_all(conn, meta.tables['inventories'], ids, [
                {'resource_class_id': class_id, **CLASSES[name]}
                for name, class_id in conn.execute(sa.select(
                    meta.tables['resource_classes'].c.name,
                    meta.tables['resource_classes'].c.id).where(
                    meta.tables['resource_classes'].c.name.in_(CLASSES)))])
            traits = meta.tables['traits']
            _link_all(conn, meta.tables['resource_provider_traits'], ids, [
                {'trait_id': trait_id} for trait_id in conn.scalars(
                    sa.select(traits.c.id).where(traits.c.name.in_(TRAITS)))])
            agg_ids = dict(conn.execute(sa.select(
                meta.tables['placement_aggregates'].c.uuid,
                meta.tables['placement_aggregates'].c.id)).all())
            links = meta.tables['resource_provider_aggregates']
            ordered = [agg_ids[agg] for agg in aggregates]
            conn.execute(sa.insert(links).from_select(
                ['resource_provider_id', 'aggregate_id'],
                sa.select(rp.c.id, sa.case(
                    {i: agg for i, agg in enumerate(ordered)},
                    value=rp.c.id % len(ordered))).where(planted)))
    finally:
        engine.dispose()


def _link_all(conn, table, ids, rows):
    """Insert ``rows`` (column values) for every provider of ``ids``
    (the id column and the condition of the providers)."""
    id_column, condition = ids
    for values in rows:
        names = list(values)
        conn.execute(sa.insert(table).from_select(
            ['resource_provider_id', *names],
            sa.select(id_column, *(sa.literal(values[name])
                                   for name in names)).where(condition)))


# --- the in-process rounds ------------------------------------------------

def in_process_rounds(args, db_url, aggregates):
    """``{size: {checkout: [result per round]}}``."""
    checkouts = bench.checkouts(args, os.getcwd())
    results = {}
    planted = 0
    for size in args.sizes:
        plant(db_url, size - planted, aggregates, planted)
        planted = size
        bench.analyze(db_url)
        results[size] = {name: [] for name in checkouts}
        for number in range(args.rounds):
            for name, checkout in checkouts.items():
                result = _measure_subprocess(args, db_url, aggregates,
                                             checkout)
                results[size][name].append(result)
                print(f'{size} providers, round {number + 1}, {name} '
                      f'(load {os.getloadavg()[0]:.1f}): ' + '; '.join(
                          f'{op} {r["cpu_ms"]:.2f} ms, '
                          f'{r["statements"]:.1f} st, '
                          f'{r["transactions"]:.1f} tx, db '
                          f'{r["database_cpu_ms"]:.2f} ms'
                          for op, r in result.items()), flush=True)
                planted += 20 + args.requests
    return results


def _measure_subprocess(args, db_url, aggregates, checkout):
    # Run as a script: ``tools`` may then come from the checkout too.
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    output = subprocess.run(
        [sys.executable, os.path.abspath(__file__), '--measure', db_url,
         '--requests', str(args.requests), '--aggregates-of',
         ','.join(aggregates)],
        capture_output=True, text=True,
        env={**os.environ, 'PYTHONPATH': f'{checkout}:{here}'})
    if output.returncode:
        raise RuntimeError(f'measuring {checkout} failed:\n{output.stderr}')
    return json.loads(output.stdout.splitlines()[-1])


def report(results):
    medians = {}
    for size, rounds in results.items():
        names = list(rounds)
        print(f'\nat {size} providers (median of rounds; '
              + ' / '.join(names) + ')')
        print(f'{"write":26} {"CPU ms":>16} {"statements":>12} '
              f'{"transactions":>13} {"database CPU ms":>16}')
        medians[size] = {}
        for op in WRITES:
            medians[size][op] = {
                name: {what: statistics.median(r[op][what]
                                               for r in rounds[name])
                       for what in rounds[name][0][op]}
                for name in names}
            cells = {what: ' / '.join(
                f'{medians[size][op][name][what]:.2f}' for name in names)
                for what in ('cpu_ms', 'statements', 'transactions',
                             'database_cpu_ms')}
            print(f'{op:26} {cells["cpu_ms"]:>16} '
                  f'{cells["statements"]:>12} {cells["transactions"]:>13} '
                  f'{cells["database_cpu_ms"]:>16}')
    return medians


# --- the load through the server ------------------------------------------

def load_through_server(args, http, workdir):
    """Load ``args.load`` flat providers; a line per LOAD_STEP."""
    steps = []
    with bench.phase_database(args, workdir, 'served') as db_url:
        conf = bench.prepare_config(workdir, db_url, debug_timing=False)
        with bench.running_server(conf, workdir, args, http,
                                  pythonpath=args.after) as server:
            client = bench.Client(http, server.endpoint)
            for trait in bench.CUSTOM_TRAITS:
                client.call('PUT', f'/traits/{trait}')
            aggs = [str(uuid.uuid4()) for _ in range(AGGREGATES)]

            def node(i):
                rng = random.Random(args.seed * 1_000_003 + i)
                traits = {bench.OWNER}
                if rng.random() < bench.AVX2_SHARE:
                    traits.add(bench.AVX2)
                if i % 5 == 0:
                    traits.add('CUSTOM_BENCH_GOLD')
                return [(f'cn-{i}', CLASSES, traits,
                         [aggs[i % len(aggs)]], None)]

            # One node per aggregate first: no two requests race to
            # create an aggregate.
            bench.load_in_batches(client, node, range(AGGREGATES), 1)
            done = AGGREGATES
            started = time.monotonic()
            while done < args.load:
                step = range(done, min(done + LOAD_STEP, args.load))
                clock = bench_cloud.CpuClock(server.process.pid)
                before, began = clock.read(), time.monotonic()
                bench.load_in_batches(client, node, step, args.load_threads)
                spent = bench_cloud.cpu_spent(before, clock.read(),
                                              len(step))
                elapsed = time.monotonic() - began
                done = step.stop
                steps.append({'providers': done, 'seconds': elapsed,
                              'rate': len(step) / elapsed,
                              'load': os.getloadavg()[0], **spent})
                total = time.monotonic() - started
                print(f'loaded {done} providers, {total:.0f} s; the last '
                      f'{len(step)} at {len(step) / elapsed:.0f}/s (load '
                      f'{os.getloadavg()[0]:.1f}; CPU per provider: '
                      f'service {spent["service_cpu_ms"]:.1f} ms, '
                      f'database {spent["database_cpu_ms"]:.1f} ms, '
                      f'loader {spent["client_cpu_ms"]:.1f} ms); 100,000 '
                      f'at that rate: {_at_rate(total, done):.1f} min',
                      flush=True)
    return steps


def _at_rate(seconds, providers):
    return seconds / providers * 100_000 / 60


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--db', choices=sorted(bench.SERVERS), default='mysql')
    p.add_argument('--sizes', default='0,20000',
                   help='providers planted before each measurement, '
                   'ascending, comma-separated ("" for none)')
    p.add_argument('--requests', type=int, default=200,
                   help='providers written per round (4 writes each)')
    p.add_argument('--rounds', type=int, default=3)
    bench.add_checkout_options(p)
    p.add_argument('--load', type=int, default=0,
                   help='then load this many flat providers through a '
                   'server')
    p.add_argument('--workers', type=int, default=4,
                   help='--load: server workers')
    p.add_argument('--threads', type=int, default=4,
                   help='--load: server threads per worker')
    p.add_argument('--load-threads', type=int, default=16,
                   help='--load: loader threads')
    p.add_argument('--seed', type=int, default=42)
    p.add_argument('--json', help='also write the results here')
    p.add_argument('--measure', help=argparse.SUPPRESS)
    p.add_argument('--aggregates-of', help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.sizes = [int(size) for size in args.sizes.split(',') if size]
    bench.new_database_options(args, bench.SERVERS[args.db],
                               'placement_loading')
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.measure:
        result = measure_in_process(args.measure, args.requests,
                                    args.aggregates_of.split(','))
        print(json.dumps(result))
        return 0
    print(f'machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}',
          flush=True)
    workdir = tempfile.mkdtemp(prefix='placement-bench-loading-')
    output = {}
    try:
        if args.sizes:
            with bench.phase_database(args, workdir, 'writes') as db_url:
                bench.prepare_config(workdir, db_url, debug_timing=False)
                aggregates = _seed_aggregates(db_url)
                output['in_process'] = report(
                    in_process_rounds(args, db_url, aggregates))
        if args.load:
            http = urllib3.PoolManager(
                maxsize=32, timeout=urllib3.Timeout(total=600))
            output['load'] = load_through_server(args, http, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(output, f, indent=1, default=str)
    return 0


def _seed_aggregates(db_url):
    """The standard names, the 20 aggregates and the custom trait, as
    a loader would find them: the aggregates' uuids."""
    aggregates = [str(uuid.uuid4()) for _ in range(AGGREGATES)]
    _app, db = bench_cpu.build_app(db_url)
    try:
        standard_data.sync(db)
    finally:
        db.dispose()
    engine = sa.create_engine(db_url)
    try:
        meta = sa.MetaData()
        meta.reflect(engine, only=('placement_aggregates', 'traits'))
        with engine.begin() as conn:
            conn.execute(sa.insert(meta.tables['placement_aggregates']),
                         [{'uuid': agg} for agg in aggregates])
            conn.execute(sa.insert(meta.tables['traits']),
                         [{'name': 'CUSTOM_BENCH_GOLD'}])
    finally:
        engine.dispose()
    return aggregates


if __name__ == '__main__':
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
