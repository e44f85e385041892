"""A worker's memory and time for the largest answers: 1,000,000
candidates, or the reports of a large cloud.

    .venv/bin/python tools/bench_memory.py [--db mysql|postgresql]
        [--database-url URL] [--pythonpath TREE] [--repetitions 2]
        [--reports NODES [--before TREE] [--keep-database]
         [--reuse-database NAME] [--report PATH ...]]

Plants one tree in a throw-away database (one root, 10 children with 8
VCPU each; dropped at the end) and asks a real placement-api (one
worker, one thread) for every candidate of six groups of one VCPU with
``group_policy=none`` at the latest microversion: 10**6 candidates,
about 300 MB of JSON. The body is read as it comes, never held.
Reported per request: the answer's bytes and candidates, its sha256
(the same on two trees: the same JSON), whether it had a
Content-Length, the time to the first byte of the body and to its end,
the worker's CPU seconds, its RSS before, its peak (VmHWM, reset before
the request) and its RSS after; with the machine's 1-minute load.
``--pythonpath`` serves another tree's code (e.g. a checkout of main)
for a before/after comparison.

With ``--reports NODES`` it plants the cloud of
:mod:`tools.bench_audit` (NODES compute nodes, bulk inserts) instead and
asks for each of :data:`REPORTS` in turn, the same per request
(``--projects``: how many projects hold its consumers); the
sha256 is of the body with its ``*scraped_at`` times zeroed (the time
of the answer). ``--before TREE`` serves each round with that tree's
code first, then this one's, on the same database: equal digests are
the same JSON. ``--keep-database`` keeps the planted cloud (its name
is printed), ``--reuse-database NAME`` reads the one kept in
``NAME_cloud`` without planting (NODES is then only a switch).
``--report PATH`` (repeatable) reads only those of the reports.
"""

import argparse
import hashlib
import os
import re
import shutil
import tempfile
import time
import uuid

import urllib3

from tools import bench_allocation_candidates as bench
from tools import bench_audit

#: The query: six groups of one VCPU, each from any child.
QUERY = ('/allocation_candidates?'
         + '&'.join(f'resources{n}=VCPU:1' for n in range(1, 7))
         + '&group_policy=none')
CHILDREN = 10
#: What starts each allocation request of the answer.
REQUEST_START = b'{"allocations":'
#: The reports read with ``--reports``: the largest form of each.
REPORTS = (
    '/reports/capacity?detail',
    '/reports/capacity',
    '/reports/usage',
    '/reports/usage?sort=VCPU',
    '/reports/usage/p1?detail',
    '/reports/headroom?resources=VCPU:1,MEMORY_MB:1024',
    '/reports/audit',
    '/reports/explain?resources=VCPU:1',
)
#: The times of the answer in a report, zeroed before it is digested.
_SCRAPED_AT = re.compile(rb'(scraped_at":)\d+')


def plant(client):
    """The tree: a root, ``CHILDREN`` children with 8 VCPU each; fixed
    uuids, so that two trees' answers are the same bytes."""
    root = str(uuid.UUID(int=1))
    client.call('POST', '/resource_providers', {'name': 'root', 'uuid': root})
    children = []
    for n in range(CHILDREN):
        child = str(uuid.UUID(int=n + 2))
        children.append((child, client.call('POST', '/resource_providers', {
            'name': f'child{n}', 'uuid': child,
            'parent_provider_uuid': root})['generation']))
    client.set_inventories([
        (child, generation, {'VCPU': bench.inventory(8)})
        for child, generation in children])


def _streamed(http, server, path, take):
    """GET ``path`` from the server's first worker, each block of the
    body given to ``take`` as it comes; the response and the row of what
    the worker spent (time to the first byte and to the end, CPU, RSS
    before, peak and after)."""
    pid = server.worker_pids()[0]
    before = bench._read_status(pid, 'VmRSS')
    server.reset_peaks()
    cpu = bench._cpu_seconds(pid)
    first = None
    started = time.perf_counter()
    response = http.request('GET', server.endpoint + path,
                            headers=bench.HEADERS, preload_content=False,
                            retries=False, timeout=None)
    for block in response.stream(1 << 16):
        if first is None:
            first = time.perf_counter() - started
        take(block)
    total = time.perf_counter() - started
    response.release_conn()
    cpu = bench._cpu_seconds(pid) - cpu
    time.sleep(2)
    return response, {
        'content_length': 'Content-Length' in response.headers,
        'first_byte_s': first, 'total_s': total, 'cpu_s': cpu,
        'rss_before_mb': before,
        'peak_mb': bench._read_status(pid, 'VmHWM'),
        'rss_after_mb': bench._read_status(pid, 'VmRSS'),
        'load1': os.getloadavg()[0]}


def read(http, server, path=QUERY):
    """One request, its body read a block at a time; a result row."""
    digest, seen = hashlib.sha256(), {'bytes': 0, 'candidates': 0,
                                      'tail': b''}

    def take(block):
        digest.update(block)
        seen['bytes'] += len(block)
        seen['candidates'] += (seen['tail'] + block).count(REQUEST_START)
        seen['tail'] = block[-(len(REQUEST_START) - 1):]

    response, row = _streamed(http, server, path, take)
    return {'status': response.status, 'bytes': seen['bytes'],
            'candidates': seen['candidates'],
            'sha256': digest.hexdigest()[:16], **row}


def read_report(http, server, path):
    """One report, its body kept (the client's memory is not measured)
    to be digested without the times it carries; a result row."""
    blocks = []
    response, row = _streamed(http, server, path, blocks.append)
    body = b''.join(blocks)
    return {'path': path, 'status': response.status, 'bytes': len(body),
            'sha256': hashlib.sha256(
                _SCRAPED_AT.sub(rb'\g<1>0', body)).hexdigest()[:16],
            **{key: round(value or 0, 3) if key.endswith('_s')
               else round(value, 1) if key.endswith('_mb') else value
               for key, value in row.items()}}


def _plant_cloud(args, db_url):
    db = bench_audit.open_database(db_url)
    try:
        started = time.perf_counter()
        providers, consumers, _live = db.write(
            bench_audit.plant, args.reports, args.projects)
        bench_audit.analyze(db, db.backend)
    finally:
        db.dispose()
    print(f'{providers} providers, {consumers} consumers planted in '
          f'{time.perf_counter() - started:.0f} s', flush=True)


def reports(args, http, workdir):
    """``--reports``: the cloud planted once, each tree's server in turn
    reading every report ``--repetitions`` times."""
    with bench.phase_database(args, workdir, 'cloud') as db_url:
        conf = bench.prepare_config(workdir, db_url, debug_timing=False)
        if not args.reuse_database:
            _plant_cloud(args, db_url)
        trees = [('before', args.before)] if args.before else []
        trees.append(('after', args.pythonpath))
        for _ in range(args.repetitions):
            for label, tree in trees:
                with bench.running_server(conf, workdir, args, http,
                                          tree, 1, 1) as server:
                    for path in args.report or REPORTS:
                        print({'tree': label,
                               **read_report(http, server, path)},
                              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=sorted(bench.SERVERS),
                        default='mysql')
    parser.add_argument('--database-url')
    parser.add_argument('--pythonpath')
    parser.add_argument('--repetitions', type=int, default=2)
    parser.add_argument('--database-prefix', default='bench_memory',
                        help='What the throw-away database is named after.')
    parser.add_argument('--reports', type=int, metavar='NODES',
                        help='Read the reports of a cloud of NODES compute '
                             'nodes instead.')
    parser.add_argument('--projects', type=int, default=100,
                        help='With --reports: the projects the consumers '
                             'are spread over.')
    parser.add_argument('--before', metavar='TREE',
                        help='With --reports: serve each round with this '
                             "tree's code first.")
    parser.add_argument('--keep-database', action='store_true',
                        help='With --reports: keep the planted cloud '
                             '(<prefix>_<random>_cloud).')
    parser.add_argument('--reuse-database', metavar='NAME',
                        help='With --reports: read the cloud kept in '
                             'NAME_cloud instead of planting one.')
    parser.add_argument('--report', action='append', metavar='PATH',
                        help='With --reports: read only this report '
                             '(repeatable; default: each of REPORTS).')
    args = parser.parse_args()
    args.server_url = args.database_url or bench.SERVERS[args.db]
    args.database_name = f'{args.database_prefix}_{uuid.uuid4().hex[:8]}'
    http = urllib3.PoolManager(maxsize=4)
    workdir = tempfile.mkdtemp(prefix='placement-bench-memory-')
    try:
        if args.reports:
            return reports(args, http, workdir)
        with bench.phase_database(args, workdir, 'tree') as db_url:
            conf = bench.prepare_config(workdir, db_url, debug_timing=False)
            with bench.running_server(conf, workdir, args, http,
                                      args.pythonpath, 1, 1) as server:
                plant(bench.Client(http, server.endpoint))
            # Fresh, so that its baseline is a worker's before any answer.
            with bench.running_server(conf, workdir, args, http,
                                      args.pythonpath, 1, 1) as server:
                for _ in range(args.repetitions):
                    print(read(http, server), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == '__main__':
    main()
