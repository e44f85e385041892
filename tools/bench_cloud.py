"""A simulated cloud: nova-compute's periodic traffic and a scheduler.

    PYTHONPATH=. .venv/bin/python -m tools.bench_cloud [--db mysql]
        [--computes 10000] [--rate 5 | --search] [--seconds 600]
        [--url URL [--server-pid PID] [--check-database URL]]
        [--keep-database NAME] [--json FILE]

Without ``--url`` the tool creates a throw-away database on ``--db``
(mysql, postgresql or sqlite; ``--database-url`` names another server),
writes a ``placement.conf``, runs ``placement-manage db sync`` and starts
the venv's ``placement-api`` with its defaults (``--workers``: one per
CPU, at most 8; ``--threads`` 8), loads the cloud through the API and
restarts the server; ``--keep-database NAME`` keeps that database,
``NAME_cloud``, for ``bench_cpu.py --phase cloud``. With ``--url`` it
loads into and measures that running service instead (its CPU only
with ``--server-pid``, the over-allocation check only with
``--check-database``).

The cloud: ``--computes`` nova compute nodes, each a root provider with
VCPU (ratio 4), MEMORY_MB (512 reserved) and DISK_GB, the traits
OWNER_NOVA (nova 2026.2), COMPUTE_NODE and, on half, HW_CPU_X86_AVX2, in
one of ``--aggregates`` host aggregates. One in ten has two NUMA
children holding its VCPU and MEMORY_MB (HW_NUMA_ROOT); one in ten has
two PCI device children of one ``CUSTOM_PCI_8086_1563`` each
(OWNER_NOVA, as nova's PCI-in-placement reports them).

The traffic, modelled on what nova's scheduler report client
(``nova/scheduler/client/report.py``) and resource tracker send, as
recalled from their source (no nova is installed here to check against)
and the API reference; every request at the latest microversion (nova
pins older ones, which answer the same data):

- every 60 s per compute, ``update_available_resource``: ``GET
  /resource_providers/{root}/allocations`` (the resource tracker's
  check for allocations of deleted instances); the driver's inventory
  is compared with the report client's cache and written only when it
  changed: ``--inventory-change-percent`` of the periodic runs (1 %)
  send ``GET .../inventories`` (the generation) and ``PUT
  .../inventories`` (DISK_GB ``max_unit`` alternates, which changes no
  capacity);
- every 300 s per compute (``[compute]
  resource_provider_association_refresh``), the provider-tree refresh:
  ``GET /resource_providers?in_tree={root}``, then per provider of the
  tree ``GET .../inventories``, ``GET .../aggregates`` and ``GET
  .../traits``, and for the root's aggregates the sharing providers,
  ``GET /resource_providers?member_of=in:{aggs}&required=
  MISC_SHARES_VIA_AGGREGATE``;
- the scheduler, ``R`` boots/s (Poisson arrivals): ``GET
  /allocation_candidates?resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20
  &root_required=OWNER_NOVA&required=!COMPUTE_STATUS_DISABLED
  &limit=1000`` (one boot in ten also asks a PCI device,
  ``resources_PCI_0=CUSTOM_PCI_8086_1563:1&required_PCI_0=OWNER_NOVA``,
  reported as an operation of its own, ``... +PCI``),
  then the claim ``PUT /allocations/{instance}`` with
  ``consumer_generation: null`` of one of the first ten candidates (the
  next one after a 409, three at most, as the scheduler's alternates);
  ``--delete-ratio`` x R instances deleted a second (``DELETE
  /allocations/{instance}``); ``--migration-ratio`` x R migrations a
  second: ``GET /allocations/{instance}`` (its generation), candidates
  for its flavor, ``POST /allocations`` moving the source allocations
  to a new migration consumer and the instance to the destination
  (with its consumer generation), and the confirmation ``DELETE
  /allocations/{migration}``.

Periodic tasks start spread evenly over their period. ``--client-threads``
threads send the requests; a task waiting for a free thread is late,
and its lateness (``lag``) is reported: a growing lag means the client,
not the service, is the limit.

Reported per operation: requests per second, p50 and p99 latency
(client side, from sending to the whole answer), 5xx and other
failures, 409 conflicts. On a machine shared with other work the p99 of
the longer requests (the candidates) follows the machine's load, which
each window prints: the worker and the database wait for a CPU many
times during such a request (``results/2026-11-28-cloudp99.rst``: at
1,000 computes and 2 boots/s, 101 ms at load 1.0, 318 ms at 5.2).
Also for the whole window the CPU seconds per
request of the service (gunicorn master and workers, from /proc), of
the database server (every ``mariadbd``/``mysqld``/``postgres`` process
on the host: other work on the same server counts too) and of this
client. Before the traffic, each operation alone (``--calibrate``
requests one after the other) gives its own CPU per request. After it,
every provider's usage is compared with its capacity in the database;
the tool exits 1 on any over-allocation or 5xx.

``--rate R`` runs the traffic at R boots/s for ``--seconds``; ``--search``
looks for the highest R whose every operation keeps p99 <=
``--p99-ms`` (250) with no 5xx: windows of ``--seconds`` from
``--start-rate``, doubling while they pass, then ``--bisections``
halvings of the interval between the last passing and the first failing
rate. The target on a 2-core machine (database included): 10,000
computes, R >= 5, 600 s, on MariaDB and PostgreSQL.
"""

import argparse
import collections
import contextlib
import heapq
import http.client
import json
import os
import queue
import random
import shutil
import signal
import sys
import tempfile
import threading
import time
import uuid

import orjson
import urllib3

from placement.cmd import api as api_command
from tools import bench_allocation_candidates as bench
from tools import bench_claims

OWNER = bench.OWNER
JSON_BODY_HEADERS = {**bench.HEADERS, 'content-type': 'application/json'}
PCI_CLASS = 'CUSTOM_PCI_8086_1563'
PCI_GROUP = (f'&resources_PCI_0={PCI_CLASS}:1&required_PCI_0={OWNER}'
             '&group_policy=none')
#: Seconds between nova-compute's periodic tasks.
RESOURCE_PERIOD = 60
REFRESH_PERIOD = 300
#: Candidates the scheduler picks among, and claims it tries.
TOP = 10
CLAIM_ATTEMPTS = 3
DATABASE_PROCESSES = ('mariadbd', 'mysqld', 'postgres')


# --- the world --------------------------------------------------------

def has_numa(i):
    return i % 10 == 1


def has_pci(i):
    return i % 10 == 2


def compute_tree(i, aggregates, rng):
    """The providers of compute ``i`` for :func:`bench.load_in_batches`:
    ``(name, inventories, traits, aggregates, parent index)``."""
    vcpu = bench.inventory(rng.choice((32, 48, 64)), 4.0)
    memory = bench.inventory(rng.choice((131072, 262144)), 1.0, 512)
    disk = bench.inventory(rng.choice((1000, 2000)))
    traits = {OWNER, 'COMPUTE_NODE'} | ({bench.AVX2} if i % 2 else set())
    aggs = [aggregates[i % len(aggregates)]]
    if has_numa(i):
        halves = {
            'VCPU': bench.inventory(vcpu['total'] // 2, 4.0),
            'MEMORY_MB': bench.inventory(memory['total'] // 2, 1.0, 256)}
        return [(f'compute-{i}', {'DISK_GB': disk}, traits, aggs, None),
                *((f'compute-{i}-numa{n}', halves, {'HW_NUMA_ROOT'}, (), 0)
                  for n in range(2))]
    root = (f'compute-{i}',
            {'VCPU': vcpu, 'MEMORY_MB': memory, 'DISK_GB': disk},
            traits, aggs, None)
    if has_pci(i):
        return [root, *((f'compute-{i}-pci{d}',
                         {PCI_CLASS: bench.inventory(1)}, {OWNER}, (), 0)
                        for d in range(2))]
    return [root]


def load_cloud(client, args):
    """Load the computes; their trees as lists of provider uuids."""
    client.call('PUT', f'/resource_classes/{PCI_CLASS}')
    aggregates = [str(uuid.uuid4()) for _ in range(args.aggregates)]

    def make(i):
        return compute_tree(i, aggregates,
                            random.Random(args.seed * 1_000_003 + i))

    # One compute per aggregate first, so that no two requests race to
    # create the same aggregate row.
    first = min(args.computes, len(aggregates))
    trees = bench.load_in_batches(client, make, range(first), 1, 10)
    trees += bench.load_in_batches(client, make,
                                   range(first, args.computes),
                                   args.load_threads, 10)
    return [Compute(uuids, aggregates[i % len(aggregates)], has_pci(i))
            for i, uuids in enumerate(trees)]


class Compute:
    """A compute node's tree as its nova-compute knows it."""

    def __init__(self, providers, aggregate, pci):
        self.root = providers[0]
        self.providers = providers
        self.aggregate = aggregate
        self.pci = pci
        self.changes = 0


# --- measuring --------------------------------------------------------

def _process_cpu(names):
    """CPU seconds so far of every process on the host named ``names``."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir('/proc')):
        with contextlib.suppress(OSError):
            with open(f'/proc/{pid}/comm') as f:
                if f.read().strip() in names:
                    total += bench._cpu_seconds(pid)
    return total


class CpuClock:
    """CPU seconds of the service, the database server and this client."""

    def __init__(self, server_pid):
        self.server_pid = server_pid

    def service(self):
        if self.server_pid is None:
            return None
        try:
            with open(f'/proc/{self.server_pid}/task/{self.server_pid}'
                      '/children') as f:
                children = [int(p) for p in f.read().split()]
        except OSError:
            children = []
        return sum(map(bench._cpu_seconds, [self.server_pid, *children]))

    def read(self):
        return {'service': self.service(),
                'database': _process_cpu(DATABASE_PROCESSES),
                'client': time.process_time()}


def cpu_spent(before, after, requests):
    """CPU milliseconds per request of each part between two reads."""
    return {f'{part}_cpu_ms': None if before[part] is None or not requests
            else 1000 * (after[part] - before[part]) / requests
            for part in before}


class Stats:
    """Latencies and outcomes per operation, for one window at a time."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        with self.lock:
            self.times = collections.defaultdict(list)
            self.outcomes = collections.defaultdict(collections.Counter)
            self.lags = []
            #: The first answer of each operation that was neither a
            #: success nor a 409, to say what went wrong.
            self.first_failure = {}
            self.started = time.monotonic()

    def record(self, operation, status, ms, body):
        outcome = ('5xx' if status >= 500 else 'conflict' if status == 409
                   else 'ok' if status < 400 else 'other')
        with self.lock:
            if outcome in ('5xx', 'other'):
                self.first_failure.setdefault(operation, f'{status} {body}')
            self.times[operation].append(ms)
            self.outcomes[operation][outcome] += 1

    def lag(self, ms):
        with self.lock:
            self.lags.append(ms)

    def rows(self):
        with self.lock:
            seconds = time.monotonic() - self.started
            rows = []
            for operation in sorted(self.times):
                times, outcomes = self.times[operation], \
                    self.outcomes[operation]
                rows.append({
                    'operation': operation, 'requests': len(times),
                    'per_second': len(times) / seconds,
                    'p50_ms': bench.percentile(times, 50),
                    'p99_ms': bench.percentile(times, 99),
                    'errors_5xx': outcomes['5xx'],
                    'failed_other': outcomes['other'],
                    'conflicts_409': outcomes['conflict'],
                    'first_failure': self.first_failure.get(operation)})
            lag = bench.percentile(self.lags, 99) if self.lags else 0.0
            return rows, seconds, lag


def candidates_path(pci):
    """The scheduler's candidates query, with nova's PCI group if
    ``pci``."""
    return (f'/allocation_candidates?{bench.SCHEDULER}&limit=1000'
            + (PCI_GROUP if pci else ''))


def candidates_operation(pci):
    """The operation's name: a boot that asks a PCI device too is a
    query of its own (a granular group in the trees that have one),
    reported apart so that its cost and tail are not hidden in the
    plain query's."""
    return 'GET /allocation_candidates' + (' +PCI' if pci else '')


class Api:
    """The requests nova sends, each timed under its operation's name,
    on a kept-alive connection per client thread.

    ``http.client`` rather than urllib3's pool (which loads the cloud):
    half the client's CPU per request (a provider listing: 0.31-0.39
    against 0.64-0.67 ms, ``results/2026-12-07-broken.rst``), CPU the
    client takes from the service it shares this machine with (nova's
    computes and scheduler run elsewhere).
    """

    #: The errors of a connection the server closed while it was idle
    #: (past its keep-alive timeout) before it read the request: sent
    #: again once, on a new connection.
    CLOSED_WHILE_IDLE = (http.client.RemoteDisconnected, BrokenPipeError,
                         ConnectionResetError)

    def __init__(self, endpoint, stats):
        address = urllib3.util.parse_url(endpoint)
        self.host, self.port = address.host, address.port
        self.stats = stats
        self._local = threading.local()

    def _exchange(self, method, path, body, headers):
        """``(status, answer bytes)`` on this thread's connection."""
        for attempt in (1, 2):
            conn = getattr(self._local, 'conn', None)
            reused = conn is not None
            if not reused:
                conn = self._local.conn = http.client.HTTPConnection(
                    self.host, self.port, timeout=120)
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            except self.CLOSED_WHILE_IDLE:
                self._drop()
                if not reused or attempt == 2:
                    raise
                continue
            except BaseException:
                self._drop()
                raise
            if resp.will_close:
                self._drop()
            return resp.status, data

    def _drop(self):
        conn = getattr(self._local, 'conn', None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def send(self, operation, method, path, body=None):
        started = time.perf_counter()
        headers = bench.HEADERS
        if body is not None:
            body = orjson.dumps(body)
            headers = JSON_BODY_HEADERS
        try:
            status, data = self._exchange(method, path, body, headers)
            answer = data[:300]
        except (OSError, http.client.HTTPException) as error:
            status, data, answer = 599, None, repr(error)
        self.stats.record(operation, status,
                          (time.perf_counter() - started) * 1000, answer)
        # orjson: the scheduler's 1,000 candidates (520 KB) parse in
        # 16 ms against json's 20, CPU the client takes from the service
        # it shares this machine with (nova's scheduler runs elsewhere).
        return status, (orjson.loads(data) if status < 400 and data
                        else None)

    def rp(self, operation, rp_uuid, what):
        return self.send(operation, 'GET',
                         f'/resource_providers/{rp_uuid}/{what}')

    def candidates(self, pci):
        _status, body = self.send(candidates_operation(pci), 'GET',
                                  candidates_path(pci))
        return [] if body is None else [
            {rp: alloc['resources']
             for rp, alloc in request['allocations'].items()}
            for request in body['allocation_requests'][:TOP]]


def _consumer_body(allocations, generation, owner):
    project, user = owner
    return {'allocations': {rp: {'resources': resources}
                            for rp, resources in allocations.items()},
            'consumer_generation': generation, 'project_id': project,
            'user_id': user, 'consumer_type': 'INSTANCE'}


class Cloud:
    """The simulated computes and scheduler, over :class:`Api`."""

    def __init__(self, api, computes, args):
        self.api = api
        self.computes = computes
        self.args = args
        self.rng = random.Random(args.seed)
        self.lock = threading.Lock()
        #: Live instances: uuid -> (allocations, (project, user)).
        self.instances = {}
        self.owners = [(str(uuid.uuid4()), str(uuid.uuid4()))
                       for _ in range(20)]
        self.pci = any(compute.pci for compute in computes)

    # nova-compute

    def update_available_resource(self, compute):
        self.api.rp('GET .../allocations', compute.root, 'allocations')
        with self.lock:
            changed = (self.rng.random() * 100
                       < self.args.inventory_change_percent)
        if changed:
            self.change_inventory(compute)

    def change_inventory(self, compute):
        """Nova's inventory write: PUT with the generation it has (read
        here), read again and retried once after a 409."""
        provider = compute.root
        for _ in range(2):
            _status, body = self.api.rp('GET .../inventories', provider,
                                        'inventories')
            if body is None:
                return
            inventories = body['inventories']
            disk = inventories['DISK_GB']
            disk['max_unit'] = disk['total'] - compute.changes % 2
            status, _ = self.api.send(
                'PUT .../inventories', 'PUT',
                f'/resource_providers/{provider}/inventories',
                {'resource_provider_generation':
                 body['resource_provider_generation'],
                 'inventories': inventories})
            if status != 409:
                compute.changes += 1
                return

    def refresh_tree(self, compute):
        self.api.send('GET /resource_providers?in_tree', 'GET',
                      f'/resource_providers?in_tree={compute.root}')
        for provider in compute.providers:
            for what in ('inventories', 'aggregates', 'traits'):
                self.api.rp(f'GET .../{what}', provider, what)
        self.api.send(
            'GET /resource_providers?member_of&required', 'GET',
            f'/resource_providers?member_of=in:{compute.aggregate}'
            f'&required={bench.SHARES}')

    # the scheduler

    def boot(self):
        with self.lock:
            pci = self.pci and self.rng.random() < 0.1
            owner = self.rng.choice(self.owners)
        instance = str(uuid.uuid4())
        allocations = self.claim(instance, self.api.candidates(pci), owner)
        if allocations is not None:
            with self.lock:
                self.instances[instance] = (allocations, owner)

    def claim(self, instance, candidates, owner):
        """Claim one of the candidates, trying the next after a 409;
        the allocations claimed or None."""
        with self.lock:
            self.rng.shuffle(candidates)
        for allocations in candidates[:CLAIM_ATTEMPTS]:
            status, _ = self.api.send(
                'PUT /allocations/{consumer}', 'PUT',
                f'/allocations/{instance}',
                _consumer_body(allocations, None, owner))
            if status == 204:
                return allocations
        return None

    def _take_instance(self):
        with self.lock:
            if not self.instances:
                return None
            instance = self.rng.choice(list(self.instances))
            return instance, self.instances.pop(instance)

    def delete(self):
        taken = self._take_instance()
        if taken:
            self.api.send('DELETE /allocations/{consumer}', 'DELETE',
                          f'/allocations/{taken[0]}')

    def migrate(self):
        taken = self._take_instance()
        if not taken:
            return
        instance, (source, owner) = taken
        _status, body = self.api.send('GET /allocations/{consumer}', 'GET',
                                      f'/allocations/{instance}')
        targets = [candidate for candidate in self.api.candidates(False)
                   if not set(source) & set(candidate)]
        if body is None or not targets:
            with self.lock:
                self.instances[instance] = (source, owner)
            return
        migration = str(uuid.uuid4())
        target = targets[0]
        status, _ = self.api.send('POST /allocations', 'POST',
                                  '/allocations', {
            migration: _consumer_body(source, None, owner),
            instance: _consumer_body(target, body['consumer_generation'],
                                     owner)})
        moved = status == 204
        with self.lock:
            self.instances[instance] = (target if moved else source, owner)
        if moved:
            self.api.send('DELETE /allocations/{consumer}', 'DELETE',
                          f'/allocations/{migration}')


# --- the traffic ------------------------------------------------------

class Traffic:
    """Tasks due at given times, run by a pool of client threads."""

    def __init__(self, cloud, stats, threads):
        self.cloud = cloud
        self.stats = stats
        self.heap = []
        self.sequence = 0
        self.work = queue.Queue()
        self.stopping = threading.Event()
        self.rate = 0.0
        self.rng = random.Random(cloud.args.seed + 1)
        self.threads = [threading.Thread(target=self._work, daemon=True)
                        for _ in range(threads)]
        self.dispatcher = threading.Thread(target=self._dispatch,
                                           daemon=True)

    def _push(self, due, task):
        self.sequence += 1
        heapq.heappush(self.heap, (due, self.sequence, task))

    def start(self):
        now = time.monotonic()
        count = len(self.cloud.computes)
        for i, compute in enumerate(self.cloud.computes):
            # Spread evenly, none at once: (i + 0.5) / count of a period.
            offset = (i + 0.5) / count
            self._push(now + RESOURCE_PERIOD * offset,
                       ('periodic', RESOURCE_PERIOD,
                        self.cloud.update_available_resource, compute))
            self._push(now + REFRESH_PERIOD * offset,
                       ('periodic', REFRESH_PERIOD,
                        self.cloud.refresh_tree, compute))
        args = self.cloud.args
        for share, action in ((1.0, self.cloud.boot),
                              (args.delete_ratio, self.cloud.delete),
                              (args.migration_ratio, self.cloud.migrate)):
            if share > 0:
                self._push(now, ('scheduler', share, action, None))
        for thread in (*self.threads, self.dispatcher):
            thread.start()

    def _next_due(self, due, task):
        kind, every, action, subject = task
        if kind == 'periodic':
            return due + every
        rate = self.rate * every
        # Poisson arrivals; a stream at rate 0 looks again in a second.
        return due + (self.rng.expovariate(rate) if rate > 0 else 1.0)

    def _dispatch(self):
        while not self.stopping.is_set():
            due, _seq, task = self.heap[0]
            wait = due - time.monotonic()
            if wait > 0:
                self.stopping.wait(min(wait, 0.5))
                continue
            heapq.heappop(self.heap)
            kind, _every, _action, _subject = task
            if kind == 'periodic' or self.rate > 0:
                self.work.put((due, task))
            self._push(self._next_due(due, task), task)

    def _work(self):
        while True:
            item = self.work.get()
            if item is None:
                return
            due, (_kind, _every, action, subject) = item
            self.stats.lag((time.monotonic() - due) * 1000)
            if subject is None:
                action()
            else:
                action(subject)

    def stop(self):
        """Stop at once: the tasks still queued (when the client fell
        behind) are dropped, those running finish."""
        self.stopping.set()
        self.dispatcher.join()
        with contextlib.suppress(queue.Empty):
            while True:
                self.work.get_nowait()
        for _ in self.threads:
            self.work.put(None)
        for thread in self.threads:
            thread.join()


def run_window(traffic, clock, rate, seconds):
    """Run at ``rate`` boots/s for ``seconds``; the window's report."""
    traffic.rate = rate
    traffic.stats.reset()
    before = clock.read()
    time.sleep(seconds)
    after = clock.read()
    rows, elapsed, lag = traffic.stats.rows()
    requests = sum(row['requests'] for row in rows)
    window = {'rate': rate, 'seconds': elapsed, 'requests': requests,
              'per_second': requests / elapsed, 'lag_p99_ms': lag,
              **cpu_spent(before, after, requests),
              'load1': os.getloadavg()[0], 'operations': rows}
    window['passed'] = passes(window, traffic.cloud.args.p99_ms)
    print_window(window)
    return window


def passes(window, p99_ms):
    return bool(window['operations']) and all(
        row['p99_ms'] <= p99_ms and not row['errors_5xx']
        for row in window['operations'])


def search(traffic, clock, args):
    """The highest rate whose window passes (see the module's doc)."""
    windows, good, bad, rate = [], None, None, args.start_rate
    while bad is None and rate <= args.max_rate:
        windows.append(run_window(traffic, clock, rate, args.seconds))
        if windows[-1]['passed']:
            good, rate = rate, rate * 2
        else:
            bad = rate
    for _ in range(args.bisections if bad is not None else 0):
        rate = ((good or 0) + bad) / 2
        windows.append(run_window(traffic, clock, rate, args.seconds))
        if windows[-1]['passed']:
            good = rate
        else:
            bad = rate
    return good, windows


# --- calibration ------------------------------------------------------

def calibrate(cloud, clock, count):
    """Each operation alone, ``count`` requests one after the other:
    its CPU milliseconds per request. What an operation needs (a
    generation, a candidate, a consumer) is fetched outside its window.
    """
    api, computes = cloud.api, cloud.computes[:count]
    owner = cloud.owners[0]
    results = {}

    def measure(name, calls):
        before = clock.read()
        for call in calls:
            call()
        results[name] = cpu_spent(before, clock.read(), len(calls))

    def later(func, *args):
        return lambda: func(*args)

    for what in ('allocations', 'inventories', 'aggregates', 'traits'):
        measure(f'GET .../{what}', [later(api.rp, 'calibration', c.root,
                                          what) for c in computes])
    measure('GET /resource_providers?in_tree', [later(
        api.send, 'calibration', 'GET',
        f'/resource_providers?in_tree={c.root}') for c in computes])
    for pci in (False, True) if cloud.pci else (False,):
        measure(candidates_operation(pci),
                [later(api.candidates, pci)] * len(computes))
    candidates = [api.candidates(False) for _ in computes]
    instances = [str(uuid.uuid4()) for _ in computes]
    claims = [(instance, found[i % len(found)]) for i, (instance, found)
              in enumerate(zip(instances, candidates, strict=True)) if found]
    measure('PUT /allocations/{consumer}', [
        later(api.send, 'calibration', 'PUT', f'/allocations/{instance}',
              _consumer_body(allocations, None, owner))
        for instance, allocations in claims])
    measure('GET /allocations/{consumer}', [
        later(api.send, 'calibration', 'GET', f'/allocations/{instance}')
        for instance in instances])
    measure('DELETE /allocations/{consumer}', [
        later(api.send, 'calibration', 'DELETE', f'/allocations/{instance}')
        for instance in instances])
    return results


# --- running ----------------------------------------------------------

def over_allocations(check_url):
    rows = bench_claims.over_allocations(check_url)
    for row in rows:
        print('over-allocated:', *row, file=sys.stderr)
    return len(rows)


def simulate(endpoint, computes, clock, args):
    """Calibrate, then the traffic at ``--rate`` or the ``--search``."""
    stats = Stats()
    cloud = Cloud(Api(endpoint, stats), computes, args)
    calibration = calibrate(cloud, clock, args.calibrate)
    print_calibration(calibration)
    traffic = Traffic(cloud, stats, args.client_threads)
    traffic.start()
    try:
        if args.search:
            highest, windows = search(traffic, clock, args)
        else:
            windows = [run_window(traffic, clock, args.rate, args.seconds)]
            highest = args.rate if windows[0]['passed'] else None
    finally:
        traffic.stop()
    return {'calibration': calibration, 'windows': windows,
            'highest_passing_rate': highest,
            'live_instances': len(cloud.instances)}


@contextlib.contextmanager
def own_service(args, pool):
    """A fresh database and a placement-api with its defaults; yields
    (endpoint, server pid, database URL, load seconds, providers)."""
    workdir = tempfile.mkdtemp(prefix='placement-bench-cloud-')
    try:
        with bench.phase_database(args, workdir, 'cloud') as db_url:
            conf = bench.prepare_config(workdir, db_url, debug_timing=False)
            server = bench.Server(conf, workdir, args.load_workers,
                                  args.load_server_threads)
            try:
                server.wait_until_up(pool)
                computes, seconds = timed_load(
                    bench.Client(pool, server.endpoint), args)
            finally:
                server.stop()
            bench.analyze(db_url)
            server = bench.Server(conf, workdir, args.workers, args.threads)
            try:
                server.wait_until_up(pool)
                yield server.endpoint, server.process.pid, db_url, \
                    computes, seconds
            finally:
                server.stop()
    except Exception:
        bench._print_log_tail(os.path.join(workdir, 'server.log'))
        raise
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def timed_load(client, args):
    started = time.monotonic()
    computes = load_cloud(client, args)
    seconds = time.monotonic() - started
    providers = sum(len(c.providers) for c in computes)
    print(f'loaded {len(computes)} computes, {providers} providers in '
          f'{seconds:.0f} s ({providers / seconds:.0f} providers/s, load '
          f'{os.getloadavg()[0]:.1f})', flush=True)
    return computes, seconds


def print_calibration(calibration):
    print(f'{"operation alone":45} {"service":>8} {"database":>9} '
          f'{"client":>7}  CPU ms per request')
    for name, cpu in calibration.items():
        print(f'{name:45} ' + ' '.join(
            f'{"-" if cpu[f"{part}_cpu_ms"] is None else format(cpu[f"{part}_cpu_ms"], ".2f"):>{width}}'  # noqa: E501
            for part, width in (('service', 8), ('database', 9),
                                ('client', 7))), flush=True)


def _ms(value):
    return '-' if value is None else f'{value:.2f}'


def print_window(window):
    print(f'\nR = {window["rate"]:g} boots/s, {window["seconds"]:.0f} s, '
          f'{window["per_second"]:.0f} requests/s, lag p99 '
          f'{window["lag_p99_ms"]:.0f} ms, load {window["load1"]:.1f}; CPU '
          f'ms per request: service {_ms(window["service_cpu_ms"])}, '
          f'database {_ms(window["database_cpu_ms"])}, client '
          f'{_ms(window["client_cpu_ms"])}; '
          f'{"passed" if window["passed"] else "FAILED"}')
    print(f'{"operation":45} {"req/s":>7} {"p50 ms":>7} {"p99 ms":>7} '
          f'{"5xx":>4} {"4xx":>4} {"409":>5}')
    for row in window['operations']:
        print(f'{row["operation"]:45} {row["per_second"]:>7.1f} '
              f'{row["p50_ms"]:>7.1f} {row["p99_ms"]:>7.1f} '
              f'{row["errors_5xx"]:>4} {row["failed_other"]:>4} '
              f'{row["conflicts_409"]:>5}', flush=True)
        if row['first_failure']:
            print(f'  first failure: {row["first_failure"]}')


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--db', choices=sorted(bench.SERVERS), default='mysql')
    p.add_argument('--database-url', help='database server URL without a '
                   'database name; overrides --db')
    p.add_argument('--url', help='a running placement service (noauth2) '
                   'to load and measure instead of starting one')
    p.add_argument('--server-pid', type=int, help='with --url: the pid of '
                   'its gunicorn master, for its CPU')
    p.add_argument('--check-database', help='with --url: its database '
                   'URL, for the over-allocation check')
    p.add_argument('--computes', type=int, default=10000)
    p.add_argument('--aggregates', type=int, default=50)
    p.add_argument('--rate', type=float, default=5.0,
                   help='boots per second (without --search)')
    p.add_argument('--search', action='store_true',
                   help='find the highest rate that passes')
    p.add_argument('--start-rate', type=float, default=2.0)
    p.add_argument('--max-rate', type=float, default=200.0)
    p.add_argument('--bisections', type=int, default=2)
    p.add_argument('--seconds', type=float, default=600,
                   help='length of each window')
    p.add_argument('--p99-ms', type=float, default=250.0)
    p.add_argument('--delete-ratio', type=float, default=0.8,
                   help='instances deleted per boot')
    p.add_argument('--migration-ratio', type=float, default=0.1,
                   help='migrations per boot')
    p.add_argument('--inventory-change-percent', type=float, default=1.0)
    p.add_argument('--calibrate', type=int, default=50,
                   help='requests of each operation alone (0: none)')
    p.add_argument('--client-threads', type=int, default=64)
    p.add_argument('--workers', type=int,
                   default=api_command.default_workers(),
                   help="placement-api's workers (its default)")
    p.add_argument('--threads', type=int, default=8,
                   help="placement-api's threads per worker (its default)")
    p.add_argument('--load-threads', type=int, default=16)
    p.add_argument('--load-workers', type=int, default=4)
    p.add_argument('--load-server-threads', type=int, default=4)
    p.add_argument('--seed', type=int, default=42)
    p.add_argument('--json', help='also write the report to this file')
    p.add_argument('--keep-database', metavar='NAME',
                   help='load into the database NAME_cloud and keep it '
                   '(for bench_cpu --phase cloud)')
    args = p.parse_args(argv)
    args.server_url = args.database_url or bench.SERVERS[args.db]
    args.database_name = (args.keep_database
                          or f'placement_cloud_{uuid.uuid4().hex[:12]}')
    args.reuse_database = False
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, bench._interrupt)
    pool = urllib3.PoolManager(
        maxsize=args.load_threads * 2,
        timeout=urllib3.Timeout(total=120))
    print(f'machine: {os.cpu_count()} CPUs, CPython loop of 2 million '
          f'additions {bench.machine_speed():.0f} ms, load '
          f'{os.getloadavg()[0]:.1f}', flush=True)
    if args.url:
        service = contextlib.nullcontext((
            args.url, args.server_pid, args.check_database,
            *timed_load(bench.Client(pool, args.url), args)))
    else:
        service = own_service(args, pool)
    with service as (endpoint, pid, check_url, computes, load_seconds):
        report = simulate(endpoint, computes, CpuClock(pid), args)
        report['over_allocated'] = (over_allocations(check_url)
                                    if check_url else None)
    report.update(computes=args.computes, load_seconds=load_seconds,
                  providers=sum(len(c.providers) for c in computes),
                  cpus=os.cpu_count(), args=vars(args),
                  date=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()))
    errors = sum(row['errors_5xx'] for window in report['windows']
                 for row in window['operations'])
    print(f'\nhighest passing rate: {report["highest_passing_rate"]}; '
          f'5xx: {errors}; over-allocated: {report["over_allocated"]}')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(report, f, indent=2)
    return 1 if errors or report['over_allocated'] else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit('interrupted; server stopped and database dropped')
