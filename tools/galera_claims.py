"""The concurrent-claim checks against a 3-node Galera cluster.

Start the cluster first (``tools/galera_cluster.sh start``). One
placement-api server (gunicorn, 2 workers x 8 threads) runs per node,
and every check sends its requests to the three servers in turn, so that
writes land on all nodes at once:

- claims race: 16 new consumers claim VCPU:1 of a capacity of 10 at
  once; exactly 10 win, the others get a documented 409;
- batches: four concurrent POST /allocations of 100 consumers each over
  three shared providers, in different orders;
- provider trees: 16 clients create, move and delete providers and set
  traits, aggregates and inventories.

Then, on every node: no 5xx was answered, no provider is over its
capacity, and each provider's usage equals the sum of its allocations.
Prints the figures as JSON; exits non-zero when an invariant fails.

    PYTHONPATH=. python tools/galera_claims.py [--rounds N] \
        [--base-port 3311]
"""

import argparse
import collections
import contextlib
import itertools
import json
import pathlib
import sys
import tempfile
import threading
import time
import traceback

import sqlalchemy as sa
import urllib3

from placement import throwaway
from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from placement.db import standard_data
from tools import bench_allocation_candidates as bench
from tools import claim_checks as claims
from tools import tree_workload as trees

NODES = 3


class Spread:
    """A client of the claim checks sending each request to the next node.

    Every status is counted, per node.
    """

    def __init__(self, endpoints):
        self.nodes = [claims.OverHTTP(endpoint) for endpoint in endpoints]
        self.turn = itertools.count()
        self.lock = threading.Lock()
        self.statuses = collections.Counter()

    def request(self, method, path, body=None):
        node = next(self.turn) % len(self.nodes)
        status, data = self.nodes[node].request(method, path, body)
        with self.lock:
            self.statuses[f'node{node + 1} {method} {status}'] += 1
        return status, data


class RoundRobin:
    """An endpoint for the tree checks' Client: each thread its own node.

    The Client builds URLs as ``endpoint + path``.
    """

    def __init__(self, endpoints):
        self.endpoints = endpoints
        self.turn = itertools.count()
        self.local = threading.local()

    def __add__(self, path):
        if not hasattr(self.local, 'endpoint'):
            self.local.endpoint = self.endpoints[
                next(self.turn) % len(self.endpoints)]
        return self.local.endpoint + path


def _prepare(url):
    db = db_api.Database(throwaway.make_conf(url).placement_database)
    try:
        migration.upgrade(db.engine)
        throwaway.empty(db.engine)
        standard_data.sync(db)
    finally:
        db.dispose()


def _over_capacity(url):
    """The providers over their capacity in node ``url``'s rows."""
    inv = models.Inventory.__table__
    alloc = models.Allocation.__table__
    db = db_api.Database(throwaway.make_conf(url).placement_database)
    problems = []
    try:
        with db.reader() as conn:
            rows = conn.execute(
                sa.select(alloc.c.resource_provider_id,
                          alloc.c.resource_class_id,
                          sa.func.sum(alloc.c.used))
                .group_by(alloc.c.resource_provider_id,
                          alloc.c.resource_class_id))
            used = {(rp_id, rc_id): int(amount)
                    for rp_id, rc_id, amount in rows}
            for row in conn.execute(sa.select(inv)):
                key = (row.resource_provider_id, row.resource_class_id)
                capacity = (row.total - row.reserved) * row.allocation_ratio
                if used.get(key, 0) > capacity:
                    problems.append(f'{url}: {key} uses {used[key]} of '
                                    f'{capacity}')
    finally:
        db.dispose()
    return problems


def _api_invariants(client, rp_uuids):
    """Through one node's API: usage == sum of allocations, per class."""
    problems = []
    for rp_uuid in rp_uuids:
        _, usages = client.request(
            'GET', f'/resource_providers/{rp_uuid}/usages')
        _, allocations = client.request(
            'GET', f'/resource_providers/{rp_uuid}/allocations')
        summed = collections.Counter()
        for entry in allocations['allocations'].values():
            summed.update(entry['resources'])
        if {name: amount for name, amount in usages['usages'].items()
                if amount} != dict(summed):
            problems.append(f'{client.endpoint} {rp_uuid}: usages '
                            f'{usages["usages"]} != allocations {summed}')
    return problems


def _refused_tree_changes(client):
    """Take the 409 placement.concurrent_update out of the unexpected.

    A change of a tree carries no generation, so the tree check expects
    it to succeed; on Galera one that kept failing certification until
    its retries ran out is a 409 that changed nothing. They are counted
    here; anything else stays unexpected.
    """
    refused = [(method, status) for method, _path, status, body
               in client.unexpected
               if status == 409 and body['errors'][0]['code']
               == trees.CONFLICT]
    client.unexpected = [answer for answer in client.unexpected
                         if answer[2] != 409
                         or answer[3]['errors'][0]['code'] != trees.CONFLICT]
    return len(refused)


def _every_node_invariants(spread, endpoints, urls):
    """Capacity and usage problems of every provider, on every node."""
    _, body = spread.request('GET', '/resource_providers')
    rp_uuids = [rp['uuid'] for rp in body['resource_providers']]
    problems = []
    for endpoint, url in zip(endpoints, urls, strict=True):
        problems += _api_invariants(claims.OverHTTP(endpoint), rp_uuids)
        problems += _over_capacity(url)
    return problems


def _timed(figures, name, function, *args):
    started = time.monotonic()
    try:
        function(*args)
        figures[name] = {'passed': True}
    except AssertionError as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        figures[name] = {'passed': False, 'error': str(exc)[:500],
                         'where': f'{where.name}: {where.line}'}
    figures[name]['seconds'] = round(time.monotonic() - started, 2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--base-port', type=int, default=3311)
    args = parser.parse_args()
    urls = [f'mysql+pymysql://root@127.0.0.1:{args.base_port + node}/'
            f'placement' for node in range(NODES)]
    _prepare(urls[0])
    figures = {}
    with tempfile.TemporaryDirectory() as tmp, \
            contextlib.ExitStack() as stack:
        endpoints = _servers(stack, tmp, urls)
        spread = Spread(endpoints)
        for round_ in range(args.rounds):
            _timed(figures, f'claims race {round_ + 1}',
                   claims.check_claims_race, spread)
            _timed(figures, f'batches {round_ + 1}',
                   claims.check_batches_in_different_orders, spread)
        figures['claim statuses'] = dict(sorted(spread.statuses.items()))
        problems = _every_node_invariants(spread, endpoints, urls)
        # The tree check compares every provider there is with its model.
        _prepare(urls[0])
        client, made = trees.run(RoundRobin(endpoints), clients=16,
                                 operations=240, roots=4, seed=1)
        figures['tree statuses'] = dict(client.statuses)
        figures['tree changes refused'] = _refused_tree_changes(client)
        figures['tree unexpected answers'] = client.unexpected[:10]
        for number, endpoint in enumerate(endpoints, 1):
            _timed(figures, f'provider trees as node{number} has them',
                   trees.check, trees.Client(endpoint), made)
        problems += _every_node_invariants(spread, endpoints, urls)
    server_errors = {key: count for key, count in
                     {**figures['claim statuses'],
                      **figures['tree statuses']}.items()
                     if key.split()[-1].startswith('5')}
    figures['5xx'] = server_errors
    figures['invariant problems'] = problems
    print(json.dumps(figures, indent=2))
    failed = (problems or server_errors or client.unexpected
              or not all(value['passed'] for value in figures.values()
                         if isinstance(value, dict) and 'passed' in value))
    return 1 if failed else 0


def _servers(stack, tmp, urls):
    """One placement-api server per node, stopped with ``stack``."""
    http = urllib3.PoolManager()
    endpoints = []
    for number, url in enumerate(urls, 1):
        path = pathlib.Path(tmp) / f'node{number}'
        path.mkdir()
        conf = path / 'placement.conf'
        conf.write_text('[api]\nauth_strategy = noauth2\n'
                        f'[placement_database]\nconnection = {url}\n')
        endpoints.append(stack.enter_context(bench.running_server(
            str(conf), str(path), None, http, workers=2,
            threads=8)).endpoint)
    return endpoints


if __name__ == '__main__':
    sys.exit(main())
