"""Benchmark the scheduler's reads against a real placement-api server.

    .venv/bin/python tools/bench_allocation_candidates.py [--db mysql]
        [--database-url URL] [--workers 2] [--repetitions 30]
        [--size small|large|xlarge] [--providers N] [--trees N]
        [--phase flat --phase nested] [--json FILE]
        [--keep-database] [--database-name NAME] [--reuse-database NAME]

Each phase gets a throw-away database on the chosen server (``--db``
mysql, postgresql or sqlite; ``--database-url`` names another server URL
without a database), a ``placement.conf`` in a temporary directory,
``placement-manage db sync`` and a ``placement-api`` (gunicorn) process.
The data set is loaded over HTTP at the latest microversion, the server
is restarted so that its workers start fresh, and then every query of the
phase is sent ``--warmups`` times and ``--repetitions`` times measured.

``--keep-database`` keeps the databases (``NAME_flat``,
``NAME_nested``); ``--reuse-database NAME`` measures such kept databases
again, on the code of this tree, without loading them.

The two data sets live in separate databases, one after the other, so
that neither query sees the other set's providers: the flat query
``resources=VCPU:1,MEMORY_MB:512`` would otherwise also be answered by
the NUMA nodes of the nested trees.

Reported per query (GET /allocation_candidates and GET
/resource_providers): results returned, median and p90 client-side wall
time of the full response, the medians of the server's own split of its
time into SQL, JSON serialisation and the rest (the ``Server-Timing``
header of ``[placement] debug_timing``, which the benchmark turns on),
the peak of the summed RSS of the gunicorn master and workers (sampled
from /proc every 50 ms while the query runs) and the workers' VmHWM
(reset through /proc/PID/clear_refs before the query where the kernel
allows it), and the machine's 1-minute load
average after the query, which shows how much other work competed for
the cores. First, the machine's speed (:func:`machine_speed`): times
are comparable between runs of machines as fast. The server, the
database (unless kept) and the temporary directory are removed at the
end, also on failure or Ctrl-C.
"""

import argparse
import concurrent.futures
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import os_traits
import sqlalchemy as sa
import urllib3

SERVERS = {
    'mysql': 'mysql+pymysql://root@127.0.0.1:3306',
    'postgresql': 'postgresql+psycopg2://postgres@127.0.0.1:5432',
    'sqlite': None,
}
HEADERS = {'openstack-api-version': 'placement latest',
           'accept': 'application/json', 'x-auth-token': 'admin'}
#: The admin passes every rule but reshape, which needs the service role.
SERVICE_HEADERS = {**HEADERS, 'x-roles': 'admin,service'}
AVX2 = 'HW_CPU_X86_AVX2'
#: The share of the flat nodes with AVX2.
AVX2_SHARE = 0.1
#: Aggregates named by the flat member_of query, by default.
MEMBER_OF = 5
SHARES = 'MISC_SHARES_VIA_AGGREGATE'
#: Every compute root (and PCI device) has it once nova 2026.2 runs,
#: which then adds ``root_required=OWNER_NOVA`` to every request and
#: ``required=OWNER_NOVA`` to its PCI groups.
OWNER = 'OWNER_NOVA'
NOVA_2026_2 = f'root_required={OWNER}'
#: The resources of the flat member_of+required query and of the
#: resources-only one.
FLAT = 'resources=VCPU:2,MEMORY_MB:2048,DISK_GB:20'
SMALL = 'resources=VCPU:1,MEMORY_MB:512'
#: ``bench_cloud``'s scheduler query (its flavor, nova 2026.2, nova's
#: forbidden disabled-compute trait), without its PCI group.
SCHEDULER = ('resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20'
             f'&{NOVA_2026_2}&required=!COMPUTE_STATUS_DISABLED')
CUSTOM_TRAITS = ('CUSTOM_BENCH_GOLD', 'CUSTOM_PHYSNET_A', 'CUSTOM_PHYSNET_B')
NET_GROUP = ('SRIOV_NET_VF:1,NET_BW_EGR_KILOBIT_PER_SEC:1000')
NESTED_QUERY = (
    'resources_NUMA=VCPU:2,MEMORY_MB:1024'
    f'&resources_NET1={NET_GROUP}&required_NET1=CUSTOM_PHYSNET_A'
    f'&resources_NET2={NET_GROUP}&required_NET2=CUSTOM_PHYSNET_B'
    '&group_policy=isolate&same_subtree=_NUMA,_NET1,_NET2')
VF_STRESS_QUERY = (
    'resources=VCPU:1'
    '&resources_VF1=SRIOV_NET_VF:1&resources_VF2=SRIOV_NET_VF:1'
    '&resources_VF3=SRIOV_NET_VF:1&group_policy=isolate')
#: The nested queries as nova 2026.2 sends them: its devices' groups
#: require OWNER_NOVA, the root too.
NOVA_NESTED_QUERY = (
    NESTED_QUERY.replace('&required_NET1=CUSTOM_PHYSNET_A',
                         f'&required_NET1=CUSTOM_PHYSNET_A,{OWNER}')
    .replace('&required_NET2=CUSTOM_PHYSNET_B',
             f'&required_NET2=CUSTOM_PHYSNET_B,{OWNER}')
    + f'&{NOVA_2026_2}')
NOVA_VF_STRESS_QUERY = (
    VF_STRESS_QUERY + ''.join(f'&required_VF{group}={OWNER}'
                              for group in (1, 2, 3)) + f'&{NOVA_2026_2}')
SAMPLE_SECONDS = 0.05
CANDIDATES = '/allocation_candidates'
PROVIDERS = '/resource_providers'
#: ``--size``: (flat providers, nested trees).
SIZES = {'small': (2000, 100), 'large': (10000, 500),
         'xlarge': (100000, 2000)}
SERVER_PARTS = ('sql', 'serialise', 'app')
#: Providers (or trees) whose inventories one request sets; consumers
#: one request allocates.
BATCH = 100
#: Providers in a nested tree: a root, 2 NUMA nodes, 4 NICs under each.
TREE_SIZE = 11


def machine_speed():
    """Milliseconds of a pure CPython loop (2 million additions, the
    best of 5): machines of one kind differ by up to 2x in this, and the
    times of a run are only comparable with those of a machine as fast.
    """
    best = None
    for _ in range(5):
        started = time.perf_counter()
        total = 0
        for number in range(2_000_000):
            total += number
        spent = (time.perf_counter() - started) * 1000
        best = spent if best is None else min(best, spent)
    return best


def emit_report(report, path=None):
    """Print a tool's JSON report, with the machine's load at its end,
    and write it to ``path`` when given."""
    report['uptime'] = subprocess.run(
        ['uptime'], capture_output=True, text=True).stdout.strip()
    text = json.dumps(report, indent=2)
    print(text)
    if path:
        with open(path, 'w') as f:
            f.write(text)


def percentile(values, pct):
    """The nearest-rank percentile: the smallest value with at least
    ``pct`` percent of the values at or below it."""
    if not values:
        raise ValueError('no values')
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def inventory(total, ratio=1.0, reserved=0):
    """An inventory of units of 1 (a body's record)."""
    return {'total': total, 'reserved': reserved, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': ratio}


def inventory_row(provider_id, class_id, total, ratio=1.0, reserved=0):
    """The same as an ``inventories`` row, for the tools that plant
    their clouds in the database."""
    return {'resource_provider_id': provider_id,
            'resource_class_id': class_id,
            **inventory(total, ratio, reserved)}


# --- database, configuration and server --------------------------------

def new_database_options(args, server_url, prefix):
    """Set what :func:`phase_database` reads for a new database on
    ``server_url`` (None: a SQLite file), named ``prefix`` and a random
    suffix, dropped afterwards."""
    args.server_url = server_url
    args.database_name = f'{prefix}_{uuid.uuid4().hex[:8]}'
    args.keep_database = args.reuse_database = False


@contextlib.contextmanager
def phase_database(args, workdir, phase):
    """Yield the URL of the phase's database.

    A new empty one, dropped afterwards unless ``--keep-database``; with
    ``--reuse-database NAME``, the loaded ``NAME_<phase>``, kept.
    """
    if args.server_url is None:
        yield f'sqlite:///{os.path.join(workdir, "bench.sqlite")}'
        return
    url = sa.engine.make_url(args.server_url)
    postgres = url.get_backend_name() == 'postgresql'
    name = f'{args.reuse_database or args.database_name}_{phase}'
    admin = sa.create_engine(url.set(database='postgres' if postgres
                                     else None),
                             isolation_level='AUTOCOMMIT')
    if not args.reuse_database:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE {name}')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        if args.reuse_database or args.keep_database:
            print(f'{phase}: database {name} kept', flush=True)
        else:
            force = ' WITH (FORCE)' if postgres else ''
            with admin.connect() as conn:
                conn.exec_driver_sql(
                    f'DROP DATABASE IF EXISTS {name}{force}')
        admin.dispose()


def _venv_command(name):
    return os.path.join(os.path.dirname(sys.executable), name)


def prepare_config(workdir, db_url, debug_timing=True):
    """Write placement.conf for ``db_url`` and create the schema;
    ``debug_timing``: the ``Server-Timing`` header the measures read."""
    conf = os.path.join(workdir, 'placement.conf')
    with open(conf, 'w') as f:
        f.write(f'[api]\nauth_strategy = noauth2\n'
                f'[placement]\ndebug_timing = {debug_timing}\n'
                f'[placement_database]\nconnection = {db_url}\n')
    subprocess.run([_venv_command('placement-manage'), '--config-file',
                    conf, 'db', 'sync'], check=True)
    return conf


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _read_status(pid, field):
    """A kB field of /proc/PID/status in MB, 0 for a vanished process."""
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith(field + ':'):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _cpu_seconds(pid):
    """User plus system CPU time so far of process ``pid`` and of the
    children it has reaped (0 if gone): PostgreSQL's backends, one per
    connection, and gunicorn's restarted workers, once they exit, count
    in their parent's."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return 0.0
    # utime, stime, cutime and cstime: fields 14-17 of proc(5), 12-15
    # after comm.
    return sum(map(int, fields[11:15])) / os.sysconf('SC_CLK_TCK')


class Server:
    """placement-api in its own session, so that Ctrl-C reaches us only."""

    def __init__(self, conf, workdir, workers, threads, pythonpath=None,
                 extra_args=()):
        self.endpoint = f'http://127.0.0.1:{_free_port()}'
        self.log_path = os.path.join(workdir, 'server.log')
        port = self.endpoint.rsplit(':', 1)[1]
        with open(self.log_path, 'ab') as log:
            self.process = subprocess.Popen(
                [_venv_command('placement-api'), '--config-file', conf,
                 '--host', '127.0.0.1', '--port', port,
                 '--workers', str(workers), '--threads', str(threads),
                 *extra_args],
                stdout=log, stderr=subprocess.STDOUT, cwd=workdir,
                start_new_session=True,
                env=None if pythonpath is None else {
                    **os.environ, 'PYTHONPATH': pythonpath})
        self.workers = workers

    def wait_until_up(self, http, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            if len(self.worker_pids()) == self.workers:
                with contextlib.suppress(urllib3.exceptions.HTTPError):
                    http.request('GET', self.endpoint + '/', retries=False)
                    return
            time.sleep(0.3)
        with open(self.log_path) as f:
            raise RuntimeError(f'placement-api did not start:\n{f.read()}')

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def worker_pids(self):
        pid = self.process.pid
        try:
            with open(f'/proc/{pid}/task/{pid}/children') as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    def total_rss(self):
        pids = [self.process.pid, *self.worker_pids()]
        return sum(_read_status(pid, 'VmRSS') for pid in pids)

    def reset_peaks(self):
        """Reset the workers' VmHWM (Linux clear_refs value 5)."""
        for pid in self.worker_pids():
            with contextlib.suppress(OSError), \
                    open(f'/proc/{pid}/clear_refs', 'w') as f:
                f.write('5')

    def cpu_seconds(self):
        """CPU time of the master and the live workers so far."""
        return sum(map(_cpu_seconds, [self.process.pid,
                                      *self.worker_pids()]))

    def worker_peaks(self):
        return [_read_status(pid, 'VmHWM') for pid in self.worker_pids()]


@contextlib.contextmanager
def running_server(conf, workdir, args, http, pythonpath=None,
                   workers=None, threads=None, extra_args=()):
    """A server; ``pythonpath``: another tree's code to serve with;
    ``workers`` and ``threads`` per worker: ``--workers`` and
    ``--threads`` by default; ``extra_args``: more of its options."""
    server = Server(conf, workdir, workers or args.workers,
                    threads or args.threads, pythonpath, extra_args)
    try:
        server.wait_until_up(http)
        yield server
    finally:
        server.stop()


# --- HTTP loading ------------------------------------------------------

class Client:
    """Thin JSON client; urllib3's pool manager is thread-safe."""

    def __init__(self, http, endpoint):
        self.http = http
        self.endpoint = endpoint

    def call(self, method, path, body=None, expect=(200, 201, 204),
             headers=HEADERS):
        resp = self.http.request(method, self.endpoint + path, json=body,
                                 headers=headers, retries=False)
        if resp.status not in expect:
            raise RuntimeError(f'{method} {path} -> {resp.status}: '
                               f'{resp.data[:500]!r}')
        return resp.json() if resp.data else None

    def provider(self, name, traits=(), aggregates=(), parent=None):
        """Create one provider, with its traits and aggregates if any.

        Returns ``(uuid, generation)``: inventories come later, many
        providers at a time (:meth:`set_inventories`).
        """
        body = {'name': name, 'uuid': str(uuid.uuid4())}
        if parent:
            body['parent_provider_uuid'] = parent
        rp = self.call('POST', '/resource_providers', body)
        path, gen = f'/resource_providers/{rp["uuid"]}', rp['generation']
        if traits:
            gen = self.call('PUT', path + '/traits', {
                'resource_provider_generation': gen,
                'traits': sorted(traits)})['resource_provider_generation']
        if aggregates:
            gen = self.call('PUT', path + '/aggregates', {
                'resource_provider_generation': gen,
                'aggregates': list(aggregates),
            })['resource_provider_generation']
        return rp['uuid'], gen

    def set_inventories(self, providers):
        """Set the inventories of many providers in one request.

        ``providers`` are ``(uuid, generation, inventories)``; POST
        /reshaper (1.30) with no allocations replaces them all in one
        transaction.
        """
        self.call('POST', '/reshaper', {
            'inventories': {
                rp: {'resource_provider_generation': gen,
                     'inventories': inventories}
                for rp, gen, inventories in providers},
            'allocations': {}}, headers=SERVICE_HEADERS)

    def allocate(self, consumers):
        """Create new consumers with their allocations in one POST
        /allocations; ``consumers`` are ``({provider uuid: resources},
        project, user)``."""
        self.call('POST', '/allocations', {
            str(uuid.uuid4()): {
                'allocations': {rp: {'resources': res}
                                for rp, res in allocations.items()},
                'consumer_generation': None, 'project_id': project,
                'user_id': user, 'consumer_type': 'INSTANCE'}
            for allocations, project, user in consumers})


def add_checkout_options(parser):
    """``--before`` and ``--after``: the checkouts a tool compares, the
    code of each run in turn (``PYTHONPATH``), round after round
    (:func:`checkouts`)."""
    parser.add_argument('--before',
                        help='another checkout, whose code runs in turn')
    parser.add_argument('--after', help='the checkout measured as "this" '
                        '(by default the installed one: a copy keeps its '
                        'code still while this one changes)')


def checkouts(args, this=None):
    """``{name: checkout}`` of :func:`add_checkout_options`' in the order
    each round runs them: ``before`` (if given), then ``this``
    (``--after``, else ``this``; None: the installed code)."""
    found = {'this': args.after or this}
    if args.before:
        found = {'before': args.before, **found}
    return found


def run_parallel(func, items, threads):
    """Call ``func(item)`` for every item on ``threads`` threads; the
    first failure (or Ctrl-C) cancels the items not yet started."""
    pool = concurrent.futures.ThreadPoolExecutor(threads)
    try:
        return list(pool.map(func, items))
    finally:
        pool.shutdown(cancel_futures=True)


def chunks(items, size):
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]


def load_in_batches(client, make, indices, threads, size=BATCH):
    """Create the providers ``make(i)`` describes, ``size`` i at a time.

    ``make(i)`` returns a list of ``(name, inventories, traits,
    aggregates, parent index or None)``, parents before children; each
    batch creates its providers one request each (plus traits and
    aggregates where they have some), then sets all their inventories in
    one request. Returns the uuids of each ``make(i)``'s providers.
    """
    def batch(items):
        created, inventories = [], []
        for i in items:
            uuids = []
            for name, inv, traits, aggs, parent in make(i):
                rp, gen = client.provider(
                    name, traits, aggs,
                    None if parent is None else uuids[parent])
                uuids.append(rp)
                if inv:
                    inventories.append((rp, gen, inv))
            created.append(uuids)
        client.set_inventories(inventories)
        return created

    return [uuids for done in run_parallel(
        batch, chunks(indices, size), threads) for uuids in done]


def load_flat(client, args):
    """10,000 compute nodes in 20 aggregates, 10 % with AVX2, 4 sharing
    DISK_GB providers (the set issue 30 describes), allocations on a
    share of the nodes; returns the member_of aggs."""
    aggs = [str(uuid.uuid4()) for _ in range(args.aggregates)]
    # The aggregates nodes join: all, or those a query names.
    member = set(aggs[:max(args.member_of, args.sharing)]
                 if args.queried_aggregates_only else aggs)
    sharing = {}
    for i in range(args.sharing):
        agg = aggs[i % len(aggs)]
        rp, gen = client.provider(
            f'shared-disk-{i}', {SHARES}, [agg])
        client.set_inventories([(rp, gen, {'DISK_GB': inventory(100000)})])
        sharing[agg] = rp

    def node(i):
        rng = random.Random(args.seed * 1_000_003 + i)
        inventories = {
            'VCPU': inventory(rng.choice((16, 32, 48, 64)), 16.0),
            'MEMORY_MB': inventory(rng.choice((65536, 131072, 262144)),
                                    1.5, reserved=512),
            'DISK_GB': inventory(rng.choice((1000, 2000, 4000)))}
        # OWNER_NOVA on every node, AVX2 on a tenth (drawn: a modulus
        # would tie it to the aggregates), GOLD on a fifth.
        traits = {OWNER, AVX2} if rng.random() < AVX2_SHARE else {OWNER}
        traits |= {'CUSTOM_BENCH_GOLD'} if i % 5 == 0 else set()
        agg = aggs[i % len(aggs)]
        return [(f'cn-{i}', inventories, traits,
                 [agg] if agg in member else [], None)]

    # One node per aggregate first, so that no two requests race to
    # create the same aggregate row.
    first = min(args.providers, len(aggs))
    nodes = load_in_batches(client, node, range(first), 1)
    nodes += load_in_batches(client, node, range(first, args.providers),
                             args.load_threads)
    projects = [str(uuid.uuid4()) for _ in range(10)]
    users = [str(uuid.uuid4()) for _ in range(30)]

    def consumer(i):
        rp, agg = nodes[i][0], aggs[i % len(aggs)]
        allocations = {rp: {'VCPU': 4, 'MEMORY_MB': 4096}}
        disk = sharing.get(agg) if i % 2 else None
        allocations[disk or rp] = {'DISK_GB': 40}
        return allocations, projects[i % 10], users[i % 30]

    step = round(100 / args.allocation_percent) if args.allocation_percent \
        else 0
    if step:
        # One thread: every batch bumps the sharing providers.
        for batch in chunks(range(0, len(nodes), step), BATCH):
            client.allocate([consumer(i) for i in batch])
    return aggs[:args.member_of]


def load_nested(client, args):
    """Trees of root -> 2 NUMA nodes -> 4 NICs each (2 per physnet)."""
    def tree(i):
        rng = random.Random(args.seed * 1_000_003 + i)
        providers = [(f'nested-{i}', {'DISK_GB': inventory(2000)},
                      {AVX2, OWNER},
                      (), None)]
        for n in range(2):
            providers.append((f'nested-{i}-numa{n}', {
                'VCPU': inventory(32, 4.0),
                'MEMORY_MB': inventory(rng.choice((65536, 131072)))},
                (), (), 0))
            numa = len(providers) - 1
            for d in range(4):
                physnet = 'CUSTOM_PHYSNET_' + 'AB'[d // 2]
                providers.append((f'nested-{i}-numa{n}-nic{d}', {
                    'SRIOV_NET_VF': inventory(8),
                    'NET_BW_EGR_KILOBIT_PER_SEC': inventory(10_000_000),
                    'NET_BW_IGR_KILOBIT_PER_SEC': inventory(10_000_000)},
                    {physnet, OWNER}, (), numa))
        return providers

    load_in_batches(client, tree, range(args.trees), args.load_threads,
                    BATCH // 10)


# --- measuring ---------------------------------------------------------

class MemorySampler(threading.Thread):
    """Track the peak summed RSS of the server while a query runs."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.peak = 0.0
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            self.peak = max(self.peak, self.server.total_rss())
            self.done.wait(SAMPLE_SECONDS)

    def stop(self):
        self.done.set()
        self.join()
        return self.peak


def count_results(body):
    """The candidates (or providers) returned; '-' for a report."""
    if 'resource_providers' in body:
        return len(body['resource_providers'])
    if 'allocation_requests' not in body:
        return '-'
    return len(body['allocation_requests'])


def server_timing(value):
    """``{part: ms}`` of a Server-Timing header (``[placement]
    debug_timing``)."""
    parts = {}
    for item in value.split(','):
        name, _, duration = item.strip().partition(';dur=')
        parts[name] = float(duration)
    return parts


def measure(http, server, name, path, args):
    """Time one query; returns a result row."""
    url = f'{server.endpoint}{path}'
    splits = []

    def fetch():
        started = time.perf_counter()
        resp = http.request('GET', url, headers=HEADERS, retries=False)
        elapsed = (time.perf_counter() - started) * 1000
        if resp.status != 200:
            raise RuntimeError(f'{name}: {resp.status} {resp.data[:500]!r}')
        return elapsed, resp

    server.reset_peaks()
    sampler = MemorySampler(server)
    sampler.start()
    try:
        for _ in range(args.warmups):
            fetch()
        times = []
        for _ in range(args.repetitions):
            elapsed, resp = fetch()
            times.append(elapsed)
            splits.append(server_timing(resp.headers['Server-Timing']))
    finally:
        peak = sampler.stop()
    return {'query': name, 'candidates': count_results(resp.json()),
            'median_ms': statistics.median(times),
            **{f'{part}_ms': statistics.median(split[part]
                                               for split in splits)
               for part in SERVER_PARTS},
            'p90_ms': percentile(times, 90), 'peak_rss_mb': peak,
            'worker_hwm_mb': max(server.worker_peaks(), default=0.0),
            'load1': os.getloadavg()[0]}


def flat_queries(member_of):
    flat = _member_of_query(member_of)
    return [
        ('flat member_of+required limit=1000',
         f'{CANDIDATES}?{flat}&limit=1000'),
        ('flat member_of+required unlimited', f'{CANDIDATES}?{flat}'),
        ('flat resources-only limit=1000', f'{CANDIDATES}?{SMALL}&limit=1000'),
        ('flat resources-only unlimited', f'{CANDIDATES}?{SMALL}'),
        ('nova 2026.2 flat member_of+required limit=1000',
         f'{CANDIDATES}?{flat}&{NOVA_2026_2}&limit=1000'),
        ('nova 2026.2 flat resources-only limit=1000',
         f'{CANDIDATES}?{SMALL}&{NOVA_2026_2}&limit=1000'),
        ('cloud scheduler limit=1000', f'{CANDIDATES}?{SCHEDULER}&limit=1000'),
        ('providers resources', f'{PROVIDERS}?{SMALL}'),
        ('providers member_of+required',
         f'{PROVIDERS}?{_in_any(member_of)}&required={AVX2}'),
        *bad_input_queries(member_of),
    ]


def _in_any(aggregates):
    return f'member_of=in:{",".join(aggregates)}'


def _member_of_query(aggregates):
    """The flat member_of+required query naming ``aggregates``."""
    return f'{FLAT}&{_in_any(aggregates)}&required={AVX2}'


def bad_input_queries(member_of):
    """Requests that must answer about as fast as the ones beside them
    (issue 11, "Bad input"): a limit beyond any integer (as unlimited),
    2,000 aggregates named, every standard trait the sets do not use
    forbidden (as resources-only ``limit=1000``), and requests matching
    nothing."""
    unknown = [str(uuid.UUID(int=index + 1)) for index in range(2000)]
    forbidden = ','.join(f'!{name}' for name in sorted(os_traits.get_traits())
                         if name not in (AVX2, SHARES, OWNER))
    return [
        ('bad input: limit beyond any integer',
         f'{CANDIDATES}?{_member_of_query(member_of)}&limit={10 ** 30}'),
        ('bad input: 2,005 aggregates, limit=1000',
         f'{CANDIDATES}?{_member_of_query([*member_of, *unknown])}'
         '&limit=1000'),
        ('bad input: all traits forbidden, limit=1000',
         f'{CANDIDATES}?{SMALL}&required={forbidden}&limit=1000'),
        ('bad input: nothing fits, limit=1000',
         f'{CANDIDATES}?resources=VCPU:100000&limit=1000'),
        ('bad input: unknown aggregate, limit=1000',
         f'{CANDIDATES}?{SMALL}&member_of={unknown[0]}&limit=1000'),
    ]


def nested_queries(_):
    return [('nested granular same_subtree limit=10',
             f'{CANDIDATES}?{NESTED_QUERY}&limit=10'),
            ('nested granular same_subtree unlimited',
             f'{CANDIDATES}?{NESTED_QUERY}'),
            ('nested 3 VF groups isolate limit=10',
             f'{CANDIDATES}?{VF_STRESS_QUERY}&limit=10'),
            ('nova 2026.2 nested same_subtree limit=10',
             f'{CANDIDATES}?{NOVA_NESTED_QUERY}&limit=10'),
            ('nova 2026.2 nested 3 VF groups isolate limit=10',
             f'{CANDIDATES}?{NOVA_VF_STRESS_QUERY}&limit=10')]


# The operators' reports, measured on each data set after its queries.
REPORT_QUERIES = [
    ('capacity', '/reports/capacity'),
    ('capacity detail', '/reports/capacity?detail'),
    ('usage sort=VCPU', '/reports/usage?sort=VCPU'),
    ('headroom', '/reports/headroom?resources=VCPU:2,MEMORY_MB:2048'),
]


def measure_reports(http, server, args, phase):
    return [measure(http, server, f'{phase} report {name}', path, args)
            for name, path in REPORT_QUERIES]


PHASES = {'flat': (load_flat, flat_queries),
          'nested': (load_nested, nested_queries)}


def member_of_in_database(db_url, args):
    """The member_of aggregates of a flat set loaded before.

    The loader creates the aggregates in the order of its list (the
    sharing providers, then one node per aggregate, one at a time), so
    the queried ones are the first by id.
    """
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return list(conn.scalars(sa.text(
                'SELECT uuid FROM placement_aggregates ORDER BY id '
                'LIMIT :count'), {'count': args.member_of}))
    finally:
        engine.dispose()


def analyze(db_url):
    """Refresh the planner's statistics, as after any bulk load.

    PostgreSQL plans from them (autovacuum, which would gather them in
    time, may be off, as on this project's machines): on the flat set
    at its load's end, stale statistics made the sharing-provider
    anchor query take 65 ms instead of 2."""
    engine = sa.create_engine(db_url, isolation_level='AUTOCOMMIT')
    try:
        with engine.connect() as conn:
            if engine.dialect.name == 'mysql':
                tables = sa.inspect(conn).get_table_names()
                conn.exec_driver_sql(f'ANALYZE TABLE {", ".join(tables)}')
            else:
                conn.exec_driver_sql('ANALYZE')
    finally:
        engine.dispose()


def load_phase(phase, args, http, conf, workdir):
    """Load the phase's data set; what its queries need (member_of)."""
    loader, _queries = PHASES[phase]
    # A kept-alive connection stays with the worker that accepted it:
    # more workers than cores share the loader's connections out.
    with running_server(conf, workdir, args, http,
                        workers=args.load_workers,
                        threads=args.load_server_threads) as server:
        client = Client(http, server.endpoint)
        for trait in CUSTOM_TRAITS:
            client.call('PUT', f'/traits/{trait}')
        started = time.monotonic()
        server_cpu, loader_cpu = server.cpu_seconds(), time.process_time()
        loaded = loader(client, args)
        elapsed = time.monotonic() - started
        server_cpu = server.cpu_seconds() - server_cpu
        loader_cpu = time.process_time() - loader_cpu
    providers = (args.providers + args.sharing if phase == 'flat'
                 else args.trees * TREE_SIZE)
    # CPU per provider: what the load costs whatever else runs beside.
    print(f'{phase}: loaded {providers} providers in {elapsed:.0f} s '
          f'({providers / elapsed:.0f}/s, load '
          f'{os.getloadavg()[0]:.1f}; CPU per provider: server '
          f'{1000 * server_cpu / providers:.1f} ms, loader '
          f'{1000 * loader_cpu / providers:.1f} ms)', flush=True)
    return loaded


def run_phase(phase, args, http):
    """Load one data set into its own database and measure its queries."""
    _loader, queries = PHASES[phase]
    workdir = tempfile.mkdtemp(prefix=f'placement-bench-{phase}-')
    try:
        with phase_database(args, workdir, phase) as db_url:
            conf = prepare_config(workdir, db_url)
            if args.reuse_database:
                loaded = member_of_in_database(db_url, args)
            else:
                loaded = load_phase(phase, args, http, conf, workdir)
            analyze(db_url)
            with running_server(conf, workdir, args, http) as server:
                return [measure(http, server, name, query, args)
                        for name, query in queries(loaded)
                        ] + measure_reports(http, server, args, phase)
    except Exception:
        _print_log_tail(os.path.join(workdir, 'server.log'))
        raise
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _print_log_tail(path, lines=60):
    """Show why the server failed before its directory goes away."""
    with contextlib.suppress(OSError), open(path) as f:
        tail = f.readlines()[-lines:]
        print(f'--- last lines of {path}:', *tail, sep='', file=sys.stderr)


def print_table(rows):
    header = (f'{"query":42} {"results":>7} {"median ms":>10} {"p90 ms":>8} '
              f'{"sql":>7} {"json":>6} {"app":>7} '
              f'{"peak RSS MB":>12} {"worker HWM MB":>14} {"load":>5}')
    print(header)
    print('-' * len(header))
    for r in rows:
        print(f'{r["query"]:42} {r["candidates"]:>7} {r["median_ms"]:>10.1f}'
              f' {r["p90_ms"]:>8.1f} {r["sql_ms"]:>7.1f}'
              f' {r["serialise_ms"]:>6.1f} {r["app_ms"]:>7.1f}'
              f' {r["peak_rss_mb"]:>12.0f}'
              f' {r["worker_hwm_mb"]:>14.0f} {r["load1"]:>5.1f}')


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--db', choices=sorted(SERVERS), default='mysql')
    p.add_argument('--database-url', help='database server URL without a '
                   'database name; overrides --db')
    p.add_argument('--phase', action='append', choices=sorted(PHASES),
                   help='data set(s) to run (default: flat and nested)')
    p.add_argument('--size', choices=SIZES, default='large',
                   help='data set size: flat providers and nested trees '
                   '(small 2,000/100, large 10,000/500, xlarge '
                   '100,000/2,000)')
    p.add_argument('--providers', type=int,
                   help='flat providers (overrides --size)')
    p.add_argument('--aggregates', type=int, default=20)
    p.add_argument('--member-of', type=int, default=MEMBER_OF,
                   help='aggregates named in the flat member_of query')
    p.add_argument('--sharing', type=int, default=4)
    p.add_argument('--queried-aggregates-only',
                   action=argparse.BooleanOptionalAction,
                   help='put flat nodes only in the aggregates the queries '
                   'name (or share disk in), which changes no result and '
                   'saves a request for the others (default: for xlarge)')
    p.add_argument('--allocation-percent', type=int, default=20)
    p.add_argument('--trees', type=int,
                   help='nested trees (overrides --size)')
    p.add_argument('--repetitions', type=int, default=30)
    p.add_argument('--warmups', type=int, default=2)
    p.add_argument('--workers', type=int, default=2)
    p.add_argument('--threads', type=int, default=8,
                   help='server threads per worker while measuring')
    p.add_argument('--load-threads', type=int, default=16,
                   help='loader threads')
    p.add_argument('--load-workers', type=int, default=4,
                   help='server workers while loading')
    p.add_argument('--load-server-threads', type=int, default=4,
                   help='server threads per worker while loading')
    p.add_argument('--keep-database', action='store_true',
                   help='keep the databases (NAME_flat, NAME_nested) and '
                   'print their names')
    p.add_argument('--database-name', default=(
        f'placement_bench_{uuid.uuid4().hex[:12]}'),
                   help='NAME of the databases (default: random)')
    p.add_argument('--reuse-database', metavar='NAME',
                   help='skip loading: measure the databases NAME_flat and '
                   'NAME_nested kept by an earlier --keep-database run '
                   '(upgraded by db sync first)')
    p.add_argument('--seed', type=int, default=42)
    p.add_argument('--json', help='also write the results to this file')
    args = p.parse_args(argv)
    args.server_url = args.database_url or SERVERS[args.db]
    if args.server_url is None and (args.keep_database
                                    or args.reuse_database):
        p.error('--keep-database and --reuse-database need a database '
                'server (--db mysql or postgresql)')
    providers, trees = SIZES[args.size]
    args.providers = args.providers or providers
    args.trees = args.trees or trees
    args.phase = args.phase or ['flat', 'nested']
    if args.queried_aggregates_only is None:
        args.queried_aggregates_only = args.size == 'xlarge'
    return args


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, _interrupt)
    http = urllib3.PoolManager(maxsize=max(args.threads,
                                           args.load_threads) * 2,
                               timeout=urllib3.Timeout(total=600))
    speed = machine_speed()
    print(f'machine: CPython loop of 2 million additions {speed:.0f} ms '
          f'(load {os.getloadavg()[0]:.1f})', flush=True)
    rows = []
    for phase in args.phase:
        measured = run_phase(phase, args, http)
        print_table(measured)   # now: the next phase may take long
        rows += measured
    print_table(rows)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'date': time.strftime('%Y-%m-%dT%H:%M:%SZ',
                                             time.gmtime()),
                       'cpus': os.cpu_count(), 'cpython_loop_ms': speed,
                       'args': vars(args),
                       'results': rows}, f, indent=2)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit('interrupted; server stopped and database dropped')
