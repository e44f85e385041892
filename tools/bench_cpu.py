"""CPU seconds per request of the scheduler's reads, in process.

    .venv/bin/python -m tools.bench_cpu DATABASE_URL
        [--phase flat|nested|cloud] [--repetitions 20] [--warmups 3]
        [--query TEXT] [--profile FILE] [--json FILE]

Sends the queries of ``bench_allocation_candidates.py`` (of ``--phase``:
by default ``nested`` if the database's name ends in ``_nested``, else
``flat``; ``cloud``: the scheduler's queries of ``bench_cloud.py``, with
and without nova's PCI group, on a database it loaded), and two
fixed-cost requests (``GET /`` and a provider list that matches
nothing), to the whole WSGI stack (``noauth2``) built in this process
on DATABASE_URL, a database that the benchmark kept
(``--keep-database``). Nothing is written to it: no migration, no
standard names, no statistics.

Reported per query: the bytes of the answer and their SHA-1 prefix (so
that two checkouts can be seen to answer byte for byte alike), the
median CPU milliseconds of this process per request (``time.process_time``:
the service's whole Python side, the database driver included, the
database server's work not), the database server's CPU milliseconds
per request spent on this process's connections (the mean over the
repetitions, read from /proc: the backend process of each PostgreSQL
connection, the server thread of each MariaDB/MySQL one, found by the
CPU a short ``BENCHMARK()`` on the connection burns, so that other
clients of a shared server do not count; not on SQLite or a server on
another machine) and the median wall milliseconds. Under a
loaded machine wall times are noise and CPU times hold; to compare two
checkouts run this tool from each in turn
(``PYTHONPATH=/other/checkout python tools/bench_cpu.py ...``), a few
times alternately. The code measured is that of the current
directory's checkout: to measure another with this tool, run it there
with ``PYTHONPATH=THIS_CHECKOUT``. ``--profile FILE`` writes a cProfile
of the measured requests of the selected queries (``--query``: those
whose name holds TEXT).
"""

import argparse
import cProfile
import hashlib
import json
import os
import re
import statistics
import sys
import time

import sqlalchemy as sa
import webob

from placement import deploy
from placement import policy
from placement.conf import loading
from placement.db import api as db_api
from tools import bench_allocation_candidates as bench
from tools import bench_cloud

FIXED_COST = [('fixed cost: GET /', '/'),
              ('fixed cost: empty provider list',
               f'{bench.PROVIDERS}?name=none')]


def build_app(url):
    """The whole stack on the database of ``url``, read as it is."""
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    conf.set_override('connection', url, group='placement_database')
    conf.set_override('auth_strategy', 'noauth2', group='api')
    db = db_api.Database(conf.placement_database)
    return deploy.build_stack(conf, db, policy.make_enforcer(conf)), db


def _cpu_seconds(path):
    """The CPU time of the process or thread of the /proc ``schedstat``
    file ``path`` (nanoseconds on the CPU: ``stat``'s ticks are samples,
    too coarse for a few requests)."""
    with open(path) as f:
        return int(f.read().split()[0]) / 1e9


def _server_pid(name):
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/comm') as f:
                if f.read().strip() == name:
                    return pid
        except OSError:
            continue
    return None


class DatabaseCpu:
    """The database server's CPU spent on the connections the service
    opens (see the module's docstring), as ``/proc`` ``schedstat``
    paths of their server processes or threads."""

    #: Rounds of SHA1 that find a MariaDB connection's thread: about
    #: 0.1 s of its CPU, more than any other thread then spends.
    BURN = 300000

    def __init__(self, engine):
        #: ``{id(DBAPI connection): (schedstat path, its CPU seconds
        #: when found)}`` of the open ones: a MariaDB thread comes from
        #: a cache, with what it spent for others.
        self.stats = {}
        #: CPU seconds of the connections closed so far: a MariaDB
        #: thread goes back to its cache and serves another client.
        self._closed = 0
        self.dialect = engine.dialect.name
        self.mysqld = (_server_pid('mariadbd') or _server_pid('mysqld')
                       if self.dialect == 'mysql' else None)
        sa.event.listen(engine, 'connect', self._connected)
        sa.event.listen(engine, 'close', self._closed_one)
        sa.event.listen(engine, 'close_detached', self._closed_one)

    def _connected(self, dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        try:
            if self.dialect == 'postgresql':
                cursor.execute('SELECT pg_backend_pid()')
                stat = f'/proc/{cursor.fetchone()[0]}/schedstat'
            elif self.mysqld is not None:
                stat = self._burning_thread(cursor)
            else:
                return
            self.stats[id(dbapi_connection)] = stat, _cpu_seconds(stat)
        finally:
            cursor.close()

    def _burning_thread(self, cursor):
        """The schedstat path of the server thread of ``cursor``'s
        connection: the thread that spent the most CPU while it burned,
        twice in a row (another client's busy thread may win once)."""
        tasks = f'/proc/{self.mysqld}/task'

        def times():
            found = {}
            for tid in os.listdir(tasks):
                try:
                    found[tid] = _cpu_seconds(f'{tasks}/{tid}/schedstat')
                except OSError:
                    continue
            return found

        def burner():
            before = times()
            cursor.execute(f"SELECT BENCHMARK({self.BURN}, SHA1('x'))")
            cursor.fetchall()
            after = times()
            return max(after, key=lambda t: after[t] - before.get(t, 0))
        found = burner()
        while (again := burner()) != found:
            found = again
        return f'{tasks}/{found}/schedstat'

    def _closed_one(self, dbapi_connection, _record=None):
        stat = self.stats.pop(id(dbapi_connection), None)
        if stat is not None:
            self._closed += self._seconds([stat])

    def seconds(self):
        """CPU seconds of the connections' server side so far."""
        return self._closed + self._seconds(self.stats.values())

    @staticmethod
    def _seconds(stats):
        total = 0
        for stat, start in stats:
            try:
                total += _cpu_seconds(stat) - start
            except OSError:
                continue
        return total


def queries(url, phase):
    if phase == 'nested':
        return bench.nested_queries(None) + FIXED_COST
    if phase == 'cloud':
        return [('cloud scheduler limit=1000',
                 bench_cloud.candidates_path(pci=False)),
                ('cloud scheduler +PCI limit=1000',
                 bench_cloud.candidates_path(pci=True))] + FIXED_COST
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            member_of = list(conn.scalars(sa.text(
                'SELECT uuid FROM placement_aggregates ORDER BY id '
                'LIMIT :count'), {'count': bench.MEMBER_OF}))
    finally:
        engine.dispose()
    return bench.flat_queries(member_of) + FIXED_COST


def request(app, method, path, body=None):
    """The JSON (None: no body) of an in-process request of ``method``
    and ``path`` with ``body`` (JSON); anything but 2xx is an error."""
    req = webob.Request.blank(path, method=method, headers=bench.HEADERS)
    if body is not None:
        req.body = json.dumps(body).encode()
        req.content_type = 'application/json'
    resp = req.get_response(app)
    if resp.status_int >= 300:
        raise RuntimeError(f'{method} {path}: {resp.status} {resp.body!r}')
    return resp.json_body if resp.body else None


def answer(app, path):
    """The body of a GET of ``path``; anything but 200 is an error."""
    resp = webob.Request.blank(path, headers=bench.HEADERS).get_response(app)
    if resp.status_int != 200:
        raise RuntimeError(f'{path}: {resp.status} {resp.body[:300]!r}')
    return resp.body


def measure(app, name, path, args, profile=None, database_cpu=None):
    for _ in range(args.warmups):
        body = answer(app, path)
    cpu, wall = [], []
    database_started = database_cpu.seconds() if database_cpu else 0
    for _ in range(args.repetitions):
        started, started_cpu = time.perf_counter(), time.process_time()
        if profile is not None:
            profile.enable()
        body = answer(app, path)
        if profile is not None:
            profile.disable()
        cpu.append(time.process_time() - started_cpu)
        wall.append(time.perf_counter() - started)
    database_ms = None
    if database_cpu and database_cpu.stats:
        database_ms = (1000 * (database_cpu.seconds() - database_started)
                       / args.repetitions)
    return {'query': name, 'bytes': len(body),
            'sha1': hashlib.sha1(body).hexdigest()[:10],
            'cpu_ms': 1000 * statistics.median(cpu),
            'database_cpu_ms': database_ms,
            'wall_ms': 1000 * statistics.median(wall)}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('database_url')
    parser.add_argument('--phase', choices=['flat', 'nested', 'cloud'])
    parser.add_argument('--repetitions', type=int, default=20)
    parser.add_argument('--warmups', type=int, default=3)
    parser.add_argument('--query', default='',
                        help='measure only the queries whose name holds it')
    parser.add_argument('--profile', help='write a cProfile here')
    parser.add_argument('--json', help='write the results here')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    phase = args.phase or ('nested' if re.search(
        r'_nested$', sa.engine.make_url(args.database_url).database or '')
        else 'flat')
    app, db = build_app(args.database_url)
    database_cpu = DatabaseCpu(db.engine)
    profile = cProfile.Profile(time.process_time) if args.profile else None
    rows = []
    try:
        for name, path in queries(args.database_url, phase):
            if args.query in name:
                rows.append(measure(app, name, path, args, profile,
                                    database_cpu))
                row = rows[-1]
                database = ('' if row['database_cpu_ms'] is None
                            else f'db {row["database_cpu_ms"]:6.2f} ms ')
                print(f'{name:48} {row["bytes"]:>9} {row["sha1"]} '
                      f'cpu {row["cpu_ms"]:7.2f} ms {database}'
                      f'wall {row["wall_ms"]:7.2f} ms', flush=True)
    finally:
        db.dispose()
    if profile is not None:
        profile.dump_stats(args.profile)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'phase': phase, 'results': rows}, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
