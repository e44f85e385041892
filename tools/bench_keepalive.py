"""Connections and CPU of large (streamed) answers on one kept-alive
session, as nova's scheduler sends them.

    PYTHONPATH=. .venv/bin/python -m tools.bench_keepalive DATABASE_URL
        [--path /resource_providers] [--requests 200] [--rounds 3]
        [--workers 1] [--threads 2] [--stream-above-bytes N]
        [--baseline CHECKOUT] [--json FILE]

Serves DATABASE_URL, a database a benchmark kept (``s23_flat``, say:
read, never migrated), with ``placement-api`` (noauth2), and sends
``--requests`` ``GET PATH`` (latest microversion) through a urllib3
pool of one connection, as a keystoneauth session does. Reported per
checkout and round: the connections the client opened (the first
request's included), the server's CPU milliseconds per request (its
master and workers, from /proc), the client's, the bytes of the answer, its
``Transfer-Encoding`` and the SHA-1 prefix of its body (the answers of
two checkouts must be alike). ``--baseline CHECKOUT`` measures that
checkout's code as well (its ``placement`` first on ``PYTHONPATH``),
the rounds alternated, as the speed of a shared machine drifts.
``--stream-above-bytes`` sets ``[api] stream_above_bytes`` (``0``: small
answers streamed too, where a connection's own cost shows most).
"""

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import urllib3

from tools import bench_allocation_candidates as bench

HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement latest'}


class _CountedConnection(urllib3.connection.HTTPConnection):
    """urllib3's connection, counting its connects: the pool's own
    count misses a connection the server closed, which urllib3 opens
    again in the same object."""

    connects = 0

    def connect(self):
        type(self).connects += 1
        super().connect()


def session_round(args, pythonpath, workdir, conf):
    """One server of the checkout on ``pythonpath`` (None: this one),
    ``--requests`` requests on one kept-alive connection."""
    starter = urllib3.PoolManager()
    server = bench.Server(conf, workdir, args.workers, args.threads,
                          pythonpath)
    try:
        server.wait_until_up(starter)
        starter.clear()
        pool = urllib3.HTTPConnectionPool(
            '127.0.0.1', int(server.endpoint.rsplit(':', 1)[1]), maxsize=1,
            block=True, retries=False, timeout=300)
        pool.ConnectionCls = type('Counted', (_CountedConnection,), {})
        # One request first, as a session's first: the connection it
        # opens is counted, its cost is not.
        first = pool.request('GET', args.path, headers=HEADERS)
        server_cpu, client_cpu = server.cpu_seconds(), time.process_time()
        for _ in range(args.requests):
            answer = pool.request('GET', args.path, headers=HEADERS)
            if answer.status != 200 or answer.data != first.data:
                raise RuntimeError(f'{answer.status}: {answer.data[:200]}')
        server_cpu = server.cpu_seconds() - server_cpu
        client_cpu = time.process_time() - client_cpu
        result = {
            'connections_opened': pool.ConnectionCls.connects,
            'server_cpu_ms_per_request': round(
                server_cpu * 1000 / args.requests, 2),
            'client_cpu_ms_per_request': round(
                client_cpu * 1000 / args.requests, 2),
            'bytes': len(first.data),
            'transfer_encoding': first.headers.get('Transfer-Encoding'),
            'sha1': hashlib.sha1(first.data).hexdigest()[:12],
            'load1': os.getloadavg()[0],
        }
        pool.close()
        return result
    finally:
        server.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('database_url')
    parser.add_argument('--path', default='/resource_providers')
    parser.add_argument('--requests', type=int, default=200)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--workers', type=int, default=1)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--stream-above-bytes', type=int)
    parser.add_argument('--baseline')
    parser.add_argument('--json')
    args = parser.parse_args(argv)
    trees = {'this': None}
    if args.baseline:
        trees['baseline'] = os.path.abspath(args.baseline)
    report = {name: [] for name in trees}
    workdir = tempfile.mkdtemp(prefix='placement-bench-keepalive-')
    try:
        conf = os.path.join(workdir, 'placement.conf')
        with open(conf, 'w') as f:
            f.write('[api]\nauth_strategy = noauth2\n')
            if args.stream_above_bytes is not None:
                f.write(f'stream_above_bytes = {args.stream_above_bytes}\n')
            f.write(                    f'[placement_database]\nconnection = '
                    f'{args.database_url}\n')
        for _ in range(args.rounds):
            for name, pythonpath in trees.items():
                report[name].append(
                    session_round(args, pythonpath, workdir, conf))
                print(name, json.dumps(report[name][-1]), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for name in trees:
        report[f'{name}_median_server_cpu_ms'] = statistics.median(
            r['server_cpu_ms_per_request'] for r in report[name])
    bench.emit_report(report, args.json)
    return 0


if __name__ == '__main__':
    sys.exit(main())
