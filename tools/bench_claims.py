"""Benchmark scheduler-style claims against a real placement-api server.

    PYTHONPATH=. .venv/bin/python -m tools.bench_claims [--db mysql]
        [--size large] [--writers 8 --writers 32] [--claims 2000]
        [--hot-providers 200] [--baseline DIR --rounds 2] [--json FILE]

Loads the flat data set of ``bench_allocation_candidates`` (same
database, configuration and server setup: ``--workers 2 --threads 8``)
into a throw-away database (``--keep-database`` keeps it as
``NAME_flat``; ``--reuse-database NAME`` skips loading and claims on a
kept one, which the claims leave as they found it), restarts the
server, then for each
``--writers`` count runs that many client threads which together make
``--claims`` claims, as nova's scheduler does: ``PUT
/allocations/{new consumer}`` of VCPU, MEMORY_MB and DISK_GB on one
compute node, the same request again after a 409
``placement.concurrent_update`` (at most ``--retries`` times), another
node after a 409 for capacity. Nodes are drawn from the
``--hot-providers`` first of a shuffled list, so that writers collide
and nodes fill up as the top of a scheduler's weighed list would.

``--baseline DIR`` serves the same data set, in alternate rounds, with
the code of another checkout (its ``placement`` package first on
``PYTHONPATH``), so that a change is compared with its baseline under
the same load; the claims of each run are deleted (in the database)
before the next.

Reported per run: claims acknowledged per second of wall time, 409s of
each kind, and the machine's load; at the end every provider's usage is
compared with its capacity in the database, and the tool exits 1 if any
class of any provider is over-allocated.
"""

import argparse
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import uuid

import sqlalchemy as sa
import urllib3

from tools import bench_allocation_candidates as bench

CLAIM = {'VCPU': 4, 'MEMORY_MB': 4096, 'DISK_GB': 40}
OVER_ALLOCATED = """
SELECT rp.uuid, rc.name, i.total, i.reserved, i.allocation_ratio,
       SUM(a.used) AS used
FROM allocations a
JOIN inventories i ON i.resource_provider_id = a.resource_provider_id
    AND i.resource_class_id = a.resource_class_id
JOIN resource_providers rp ON rp.id = a.resource_provider_id
JOIN resource_classes rc ON rc.id = a.resource_class_id
GROUP BY rp.uuid, rc.name, i.total, i.reserved, i.allocation_ratio
HAVING SUM(a.used) > (i.total - i.reserved) * i.allocation_ratio
"""


def compute_nodes(db_url):
    """The uuids of the flat compute nodes (not the sharing providers)."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return sorted(conn.scalars(sa.text(
                "SELECT uuid FROM resource_providers "
                "WHERE name LIKE 'cn-%'")))
    finally:
        engine.dispose()


def over_allocations(db_url):
    """Rows of (provider, class, ..., used) beyond capacity."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(OVER_ALLOCATED)).all()
    finally:
        engine.dispose()


def release(db_url, project):
    """Delete the claims of ``project``, so that the next run starts
    from the loaded data set again."""
    engine = sa.create_engine(db_url)
    consumers = ("SELECT c.uuid FROM consumers c JOIN projects p "
                 "ON p.id = c.project_id WHERE p.external_id = :project")
    try:
        with engine.begin() as conn:
            uuids = list(conn.scalars(sa.text(consumers),
                                      {'project': project}))
            for batch in bench.chunks(uuids, 1000):
                for table, column in (('allocations', 'consumer_id'),
                                      ('consumers', 'uuid')):
                    delete = sa.text(
                        f'DELETE FROM {table} WHERE {column} IN :uuids')
                    conn.execute(delete.bindparams(
                        sa.bindparam('uuids', expanding=True)),
                        {'uuids': batch})
    finally:
        engine.dispose()


class Writers:
    """``writers`` threads making ``claims`` claims between them."""

    def __init__(self, http, endpoint, nodes, args, writers):
        self.http = http
        self.url = endpoint + '/allocations/'
        self.nodes = nodes
        self.args = args
        self.writers = writers
        self.lock = threading.Lock()
        self.left = args.claims
        self.counts = collections.Counter()

    def _take(self):
        with self.lock:
            if self.left <= 0:
                return False
            self.left -= 1
            return True

    def _put(self, node):
        body = {'allocations': {node: {'resources': CLAIM}},
                'consumer_generation': None,
                'project_id': self.args.project, 'user_id': self.args.user,
                'consumer_type': 'INSTANCE'}
        resp = self.http.request('PUT', self.url + str(uuid.uuid4()),
                                 json=body, headers=bench.HEADERS,
                                 retries=False)
        if resp.status == 204:
            return 'claimed'
        if resp.status == 409:
            code = resp.json()['errors'][0].get('code')
            return ('conflict' if code == 'placement.concurrent_update'
                    else 'full')
        raise RuntimeError(f'PUT -> {resp.status}: {resp.data[:500]!r}')

    def claim(self, rng, hosts):
        """One claim, as the scheduler makes it; False: every host full."""
        while hosts:
            node = rng.choice(hosts)
            for _ in range(self.args.retries + 1):
                outcome = self._put(node)
                self.counts[outcome] += 1
                if outcome != 'conflict':
                    break
            if outcome == 'claimed':
                return True
            if outcome == 'full':
                hosts.remove(node)
            else:
                self.counts['gave up'] += 1
                return True
        return False

    def _writer(self, seed):
        rng = random.Random(seed)
        hosts = list(self.nodes)
        while self._take():
            if not self.claim(rng, hosts):
                return

    def run(self):
        threads = [threading.Thread(target=self._writer,
                                    args=(self.args.seed * 1000 + n,))
                   for n in range(self.writers)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        return {'writers': self.writers, 'seconds': elapsed,
                'claims_per_s': self.counts['claimed'] / elapsed,
                'claimed': self.counts['claimed'],
                'conflict_409': self.counts['conflict'],
                'capacity_409': self.counts['full'],
                'gave_up': self.counts['gave up'],
                'load1': os.getloadavg()[0]}


def run(args, http):
    workdir = tempfile.mkdtemp(prefix='placement-bench-claims-')
    try:
        with bench.phase_database(args, workdir, 'flat') as db_url:
            conf = bench.prepare_config(workdir, db_url)
            if not args.reuse_database:
                bench.load_phase('flat', args, http, conf, workdir)
            bench.analyze(db_url)
            nodes = compute_nodes(db_url)
            random.Random(args.seed).shuffle(nodes)
            hot = nodes[:args.hot_providers]
            rows = []
            codes = [('this', None)]
            if args.baseline:
                codes.append(('baseline', args.baseline))
            for _round in range(args.rounds):
                for code, pythonpath in codes:
                    with bench.running_server(conf, workdir, args, http,
                                              pythonpath) as server:
                        for writers in args.writers:
                            row = Writers(http, server.endpoint, hot, args,
                                          writers).run()
                            row['code'] = code
                            print_rows([row])
                            rows.append(row)
                            over = over_allocations(db_url)
                            if over:
                                return rows, over
                            release(db_url, args.project)
            return rows, []
    except Exception:
        bench._print_log_tail(os.path.join(workdir, 'server.log'))
        raise
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def print_rows(rows):
    header = (f'{"code":>8} {"writers":>7} {"claims/s":>9} {"claimed":>8} '
              f'{"409 gen":>8} {"409 full":>9} {"gave up":>8} '
              f'{"seconds":>8} {"load":>5}')
    print(header)
    for r in rows:
        print(f'{r["code"]:>8} {r["writers"]:>7} {r["claims_per_s"]:>9.1f} '
              f'{r["claimed"]:>8} {r["conflict_409"]:>8} '
              f'{r["capacity_409"]:>9} {r["gave_up"]:>8} '
              f'{r["seconds"]:>8.1f} {r["load1"]:>5.1f}', flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--writers', type=int, action='append',
                   help='concurrent writers (default: 8 and 32)')
    p.add_argument('--claims', type=int, default=2000,
                   help='claims per run, shared by the writers')
    p.add_argument('--hot-providers', type=int, default=200,
                   help='compute nodes the claims are spread over')
    p.add_argument('--retries', type=int, default=3,
                   help='repeats of a claim after a generation 409')
    p.add_argument('--baseline', metavar='DIR',
                   help='also serve the same data with the code in DIR '
                   '(a checkout to compare with), in alternate rounds')
    p.add_argument('--rounds', type=int, default=1,
                   help='runs of every writer count (per code)')
    args, rest = p.parse_known_args(argv)
    bench_args = bench.parse_args(rest)
    for name, value in vars(args).items():
        setattr(bench_args, name, value)
    bench_args.writers = args.writers or [8, 32]
    bench_args.project = str(uuid.uuid4())
    bench_args.user = str(uuid.uuid4())
    return bench_args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    http = urllib3.PoolManager(maxsize=max(args.writers) + args.threads,
                               timeout=urllib3.Timeout(total=600))
    rows, over = run(args, http)
    print_rows(rows)
    for row in over:
        print('OVER-ALLOCATED:', *row)
    print(f'over-allocated provider classes: {len(over)}')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'date': time.strftime('%Y-%m-%dT%H:%M:%SZ',
                                             time.gmtime()),
                       'cpus': os.cpu_count(), 'args': vars(args),
                       'results': rows, 'over_allocated': len(over)},
                      f, indent=2)
    return 1 if over else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit('interrupted; server stopped and database dropped')
