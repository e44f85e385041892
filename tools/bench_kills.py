"""nova-compute's small reads while the database ends the service's
sessions.

    PYTHONPATH=. .venv/bin/python -m tools.bench_kills [--db mysql]
        [--database-url URL] [--computes 100] [--clients 8]
        [--seconds 30] [--every 0.15] [--rounds 2] [--before CHECKOUT]
        [--json FILE]

Creates a throw-away database on ``--db`` (mysql or postgresql: SQLite
has no session to end; ``--database-url`` names another server),
loads ``--computes`` computes of
``bench_cloud.py`` through ``placement-api`` and then, per round and
checkout, serves them with ``placement-api``'s defaults (``--workers``
2, ``--threads`` 8) for ``--seconds``: ``--clients`` threads, each on a
kept-alive connection, send ``GET /resource_providers/{uuid}/
{allocations|inventories|traits}`` of random computes while another
ends a random session of the service's database every ``--every``
seconds (MariaDB/MySQL ``KILL CONNECTION``, PostgreSQL
``pg_terminate_backend``: an operator's kill, the server's own
timeouts, a failover), as ``tests/functional/test_database_faults.py``
does once. ``--every 0`` ends none (the baseline). ``--before
CHECKOUT`` serves another checkout's code (``PYTHONPATH``) in turn with
this one's (``--after``: a copy kept still while this one changes),
alternated, so that both see the same load.

Reported per window: the requests answered, the sessions ended, the
statuses (anything but 200 is a finding: a 503 would be a request that
met more broken connections than it may run again on), and the p50,
p90, p99 and the slowest, in ms, from sending to the whole answer.
Figures: ``results/2026-12-07-broken.rst``.
"""

import argparse
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

import sqlalchemy as sa
import urllib3

from tools import bench_allocation_candidates as bench
from tools import bench_cloud

#: A session's id, and the statement ending one, per server.
_SESSIONS = {
    'mysql': ('SELECT id FROM information_schema.processlist '
              'WHERE db = :db AND id <> CONNECTION_ID()'),
    'postgresql': ('SELECT pid FROM pg_stat_activity '
                   'WHERE datname = :db AND pid <> pg_backend_pid()'),
}
_END = {'mysql': 'KILL CONNECTION {session}',
        'postgresql': 'SELECT pg_terminate_backend({session})'}
READS = ('allocations', 'inventories', 'traits')


class SessionEnder:
    """Ends a random session of the database ``db_url`` names, but its
    own, every ``every`` seconds until stopped; counts them."""

    def __init__(self, db_url, every):
        self.engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool,
                                       isolation_level='AUTOCOMMIT')
        self.backend = self.engine.url.get_backend_name()
        self.every = every
        self.ended = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        name = self.engine.url.database
        with self.engine.connect() as conn:
            while not self.stop.wait(self.every):
                sessions = conn.scalars(sa.text(_SESSIONS[self.backend]),
                                        {'db': name}).all()
                if not sessions:
                    continue
                # A session may end by itself meanwhile: then no count.
                with contextlib.suppress(sa.exc.DBAPIError):
                    conn.exec_driver_sql(_END[self.backend].format(
                        session=int(random.choice(sessions))))
                    self.ended += 1

    def __enter__(self):
        if self.every > 0:
            self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
        self.engine.dispose()


def window(endpoint, db_url, computes, args):
    """One window's figures (see the module's docstring)."""
    stats = bench_cloud.Stats()
    api = bench_cloud.Api(endpoint, stats)
    stop = threading.Event()
    statuses = {}
    lock = threading.Lock()

    def client(seed):
        rng = random.Random(seed)
        while not stop.is_set():
            what = rng.choice(READS)
            status, _body = api.rp(f'GET .../{what}',
                                   rng.choice(computes).root, what)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
    clients = [threading.Thread(target=client, args=(args.seed + index,))
               for index in range(args.clients)]
    # The workers' first requests (their statements prepared, their
    # connections opened) are not measured.
    for compute in computes[:2 * args.clients]:
        for what in READS:
            api.rp(f'GET .../{what}', compute.root, what)
    stats.reset()
    with SessionEnder(db_url, args.every) as ender:
        for thread in clients:
            thread.start()
        time.sleep(args.seconds)
        stop.set()
        for thread in clients:
            thread.join()
    times = sorted(ms for operation in stats.times.values()
                   for ms in operation)
    return {'requests': len(times), 'ended': ender.ended,
            'statuses': {str(status): count
                         for status, count in sorted(statuses.items())},
            **{f'p{share}_ms': bench.percentile(times, share)
               for share in (50, 90, 99)},
            'max_ms': times[-1],
            'load': os.getloadavg()[0]}


def measure(args, pool, db_url, conf, workdir, computes):
    """``{checkout: [window figures] per round}``."""
    checkouts = bench.checkouts(args)
    rounds = {name: [] for name in checkouts}
    for number in range(args.rounds):
        for name, pythonpath in checkouts.items():
            with bench.running_server(conf, workdir, args, pool,
                                      pythonpath) as server:
                figures = window(server.endpoint, db_url, computes, args)
            rounds[name].append(figures)
            print(f'round {number + 1} {name}: {_line(figures)}',
                  flush=True)
    return rounds


def _line(figures):
    return (f'{figures["requests"]} requests, {figures["ended"]} sessions '
            f'ended, statuses {figures["statuses"]}, p50 '
            f'{figures["p50_ms"]:.1f} p90 {figures["p90_ms"]:.1f} p99 '
            f'{figures["p99_ms"]:.1f} max {figures["max_ms"]:.0f} ms '
            f'(load {figures["load"]:.1f})')


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--db', choices=sorted(_SESSIONS), default='mysql')
    p.add_argument('--database-url', help='database server URL without a '
                   'database name; overrides --db')
    p.add_argument('--computes', type=int, default=100)
    p.add_argument('--aggregates', type=int, default=10)
    p.add_argument('--clients', type=int, default=8)
    p.add_argument('--seconds', type=float, default=30)
    p.add_argument('--every', type=float, default=0.15,
                   help='seconds between two sessions ended (0: none)')
    p.add_argument('--rounds', type=int, default=2)
    bench.add_checkout_options(p)
    p.add_argument('--workers', type=int, default=2)
    p.add_argument('--threads', type=int, default=8)
    p.add_argument('--seed', type=int, default=42)
    p.add_argument('--json', help='also write the results here')
    args = p.parse_args(argv)
    bench.new_database_options(
        args, args.database_url or bench.SERVERS[args.db], 'placement_kills')
    args.load_threads = 4
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    pool = urllib3.PoolManager(maxsize=8)
    workdir = tempfile.mkdtemp(prefix='placement-bench-kills-')
    print(f'machine: {os.cpu_count()} CPUs, CPython loop of 2 million '
          f'additions {bench.machine_speed():.0f} ms, load '
          f'{os.getloadavg()[0]:.1f}', flush=True)
    try:
        with bench.phase_database(args, workdir, 'kills') as db_url:
            conf = bench.prepare_config(workdir, db_url, debug_timing=False)
            with bench.running_server(conf, workdir, args, pool) as server:
                computes = bench_cloud.load_cloud(
                    bench.Client(pool, server.endpoint), args)
            bench.analyze(db_url)
            rounds = measure(args, pool, db_url, conf, workdir, computes)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'rounds': rounds, 'args': vars(args)}, f, indent=1)
    failed = any(set(figures['statuses']) - {'200'}
                 for windows in rounds.values() for figures in windows)
    return 1 if failed else 0


if __name__ == '__main__':
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
