"""The service's CPU per request of nova-compute's small requests.

    PYTHONPATH=. .venv/bin/python -m tools.bench_fixed_cost [--db mysql]
        [--computes 100] [--requests 200] [--rounds 3]
        [--before CHECKOUT] [--new-connections] [--idle-connections N]
        [--in-process] [--profile FILE] [--json FILE]

Creates a throw-away database on ``--db`` (mysql, postgresql or sqlite),
loads ``--computes`` computes of ``bench_cloud.py`` through a
``placement-api`` server, and then measures, for each request of the
simulated cloud that is not a candidates query (one provider's
allocations, inventories, aggregates and traits, the tree, the sharing
providers, a consumer's allocations read, claimed and deleted), the
CPU milliseconds of the service per request: ``--requests`` requests
one after the other, from one client thread (``--clients``: that many
threads, keeping the server's threads busy at once), on kept-alive
connections, or with ``--new-connections`` each on a connection of its
own that the client closes after the answer (as a compute's periodic
request arrives: its connection went idle past the server's keep-alive
timeout, 5 s, between two).
``--idle-connections N``: N more connections, each kept alive
after one request and then silent while the server is measured (its
``--keepalive-timeout`` then an hour): a worker holds such connections
of computes between their requests, for ``--keepalive-timeout`` (5 s)
each, hundreds at a cloud's rates.

Through the server (the default): ``placement-api`` with its defaults
(``--workers``, ``--threads``), the CPU of its master and workers from
/proc, the HTTP server included. ``--before CHECKOUT`` serves another
checkout's code (``PYTHONPATH``) in turn with this one's (or
``--after``'s: a copy keeps its code still while this one changes),
``--rounds`` times, alternating, so that both see the same load; the
figures are the median of the rounds. ``--in-process``: the whole WSGI
stack built in this process on the same database, without an HTTP server
(``time.process_time``); ``--profile FILE`` writes the cProfile of its
measured requests.
"""

import argparse
import contextlib
import cProfile
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid

import urllib3

from tools import bench_allocation_candidates as bench
from tools import bench_cloud
from tools import bench_cpu


def operations(computes, owner, count):
    """``(name, [(method, path, body)] * count)`` of each measured
    operation, in order: the consumers claimed are read, then deleted."""
    picked = [computes[i % len(computes)] for i in range(count)]
    ops = [(f'GET .../{what}',
            [('GET', f'/resource_providers/{c.root}/{what}', None)
             for c in picked])
           for what in ('allocations', 'inventories', 'aggregates',
                        'traits')]
    ops.append(('GET /resource_providers?in_tree',
                [('GET', f'/resource_providers?in_tree={c.root}', None)
                 for c in picked]))
    ops.append(('GET /resource_providers?member_of&required', [
        ('GET', f'/resource_providers?member_of=in:{c.aggregate}'
         f'&required={bench.SHARES}', None) for c in picked]))
    # Flat computes only: their root holds the whole flavor.
    flat = [c for c in computes if len(c.providers) == 1]
    claims = [(str(uuid.uuid4()), flat[i % len(flat)].root)
              for i in range(count)]
    ops.append(('PUT /allocations/{consumer}', [
        ('PUT', f'/allocations/{instance}', bench_cloud._consumer_body(
            {root: FLAVOR}, None, owner)) for instance, root in claims]))
    ops.append(('GET /allocations/{consumer}', [
        ('GET', f'/allocations/{instance}', None)
        for instance, _root in claims]))
    ops.append(('DELETE /allocations/{consumer}', [
        ('DELETE', f'/allocations/{instance}', None)
        for instance, _root in claims]))
    return ops


#: Small enough for every claim of a round to fit.
FLAVOR = {'VCPU': 1, 'MEMORY_MB': 16, 'DISK_GB': 1}


def over_server(http, server, ops, clients, new_connections):
    """CPU ms per request of the server's processes, per operation;
    ``clients`` threads send the requests."""
    send = _send_alone if new_connections else _send
    results = {}
    for name, calls in ops:
        for method, path, body in calls[:5]:
            if method == 'GET':
                send(http, server.endpoint, method, path, body)
        before = server.cpu_seconds()
        bench.run_parallel(
            lambda call: send(http, server.endpoint, *call), calls,
            clients)
        results[name] = 1000 * (server.cpu_seconds() - before) / len(calls)
    return results


def _send(http, endpoint, method, path, body):
    resp = http.request(method, endpoint + path, json=body,
                        headers=bench.HEADERS, retries=False)
    if resp.status >= 300:
        raise RuntimeError(f'{method} {path}: {resp.status} {resp.data!r}')


def _send_alone(http, endpoint, method, path, body):
    """:func:`_send` on a connection of its own, closed after."""
    pool = urllib3.connection_from_url(endpoint, maxsize=1)
    try:
        _send(pool, '', method, path, body)
    finally:
        pool.close()


def _idle_options(count):
    """The server's options that let ``count`` idle connections stay."""
    if not count:
        return ()
    return ('--keepalive-timeout', '3600',
            '--max-connections', str(count + 64))


@contextlib.contextmanager
def _idle(endpoint, count):
    """``count`` connections to ``endpoint``, each kept alive after
    one ``GET /``, open until the end."""
    url = urllib3.util.parse_url(endpoint)
    connections = []
    try:
        for _ in range(count):
            connection = http.client.HTTPConnection(url.host, url.port,
                                                    timeout=60)
            connections.append(connection)
            connection.request('GET', '/', headers=bench.HEADERS)
            connection.getresponse().read()
        yield
    finally:
        for connection in connections:
            connection.close()


def in_process(db_url, ops, profile):
    """CPU ms per request of the whole stack in this process."""
    app, db = bench_cpu.build_app(db_url)
    results = {}
    try:
        for name, calls in ops:
            if name.startswith('GET'):
                for method, path, body in calls[:5]:
                    bench_cpu.request(app, method, path, body)
            spent = []
            for method, path, body in calls:
                started = time.process_time()
                if profile is not None:
                    profile.enable()
                bench_cpu.request(app, method, path, body)
                if profile is not None:
                    profile.disable()
                spent.append(time.process_time() - started)
            results[name] = 1000 * statistics.mean(spent)
    finally:
        db.dispose()
    return results


def measure(args, http, db_url, conf, workdir, computes, owner):
    """``{checkout: [{operation: ms}] per round}``."""
    checkouts = bench.checkouts(args)
    rounds = {name: [] for name in checkouts}
    profile = cProfile.Profile(time.process_time) if args.profile else None
    for number in range(args.rounds):
        for name, pythonpath in checkouts.items():
            ops = operations(computes, owner, args.requests)
            if args.in_process:
                result = in_process(db_url, ops, profile)
            else:
                with bench.running_server(
                        conf, workdir, args, http, pythonpath,
                        extra_args=_idle_options(args.idle_connections)
                ) as server, _idle(server.endpoint, args.idle_connections):
                    result = over_server(http, server, ops, args.clients,
                                         args.new_connections)
            rounds[name].append(result)
            print(f'round {number + 1} {name} (load '
                  f'{os.getloadavg()[0]:.1f}): ' + ', '.join(
                      f'{op} {ms:.2f}' for op, ms in result.items()),
                  flush=True)
    if profile is not None:
        profile.dump_stats(args.profile)
    return rounds


def report(rounds):
    names = list(rounds)
    operations_measured = list(rounds[names[0]][0])
    print(f'\n{"operation (CPU ms per request, median)":48} '
          + ' '.join(f'{name:>8}' for name in names))
    medians = {}
    for op in operations_measured:
        medians[op] = {name: statistics.median(r[op] for r in rounds[name])
                       for name in names}
        print(f'{op:48} ' + ' '.join(f'{medians[op][name]:8.2f}'
                                     for name in names))
    return medians


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--db', choices=sorted(bench.SERVERS), default='mysql')
    p.add_argument('--computes', type=int, default=100)
    p.add_argument('--aggregates', type=int, default=50)
    p.add_argument('--requests', type=int, default=200,
                   help='requests of each operation per round')
    p.add_argument('--rounds', type=int, default=3)
    bench.add_checkout_options(p)
    p.add_argument('--clients', type=int, default=1,
                   help='threads sending the requests to the server')
    p.add_argument('--new-connections', action='store_true',
                   help='each request on a connection of its own')
    p.add_argument('--idle-connections', type=int, default=0,
                   help='connections kept alive and silent meanwhile')
    p.add_argument('--in-process', action='store_true',
                   help='the WSGI stack in this process, no server')
    p.add_argument('--profile', help='with --in-process: a cProfile here')
    p.add_argument('--workers', type=int, default=2)
    p.add_argument('--threads', type=int, default=8)
    p.add_argument('--seed', type=int, default=42)
    p.add_argument('--json', help='also write the results here')
    args = p.parse_args(argv)
    bench.new_database_options(args, bench.SERVERS[args.db],
                               'placement_fixedcost')
    args.load_threads = 4
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    http = urllib3.PoolManager(maxsize=max(8, args.clients))
    workdir = tempfile.mkdtemp(prefix='placement-bench-fixed-')
    print(f'machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}',
          flush=True)
    try:
        with bench.phase_database(args, workdir, 'fixed') as db_url:
            conf = bench.prepare_config(workdir, db_url, debug_timing=False)
            with bench.running_server(conf, workdir, args, http) as server:
                computes = bench_cloud.load_cloud(
                    bench.Client(http, server.endpoint), args)
            bench.analyze(db_url)
            owner = (str(uuid.uuid4()), str(uuid.uuid4()))
            rounds = measure(args, http, db_url, conf, workdir, computes,
                             owner)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    medians = report(rounds)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'rounds': rounds, 'medians': medians}, f, indent=1)
    return 0


if __name__ == '__main__':
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
