"""A worker's memory and time for the largest answer: 1,000,000 candidates.

    .venv/bin/python tools/bench_memory.py [--db mysql|postgresql]
        [--database-url URL] [--pythonpath TREE] [--repetitions 2]

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
"""

import argparse
import hashlib
import os
import shutil
import tempfile
import time
import uuid

import urllib3

from tools import bench_allocation_candidates as bench

#: The query: six groups of one VCPU, each from any child.
QUERY = ('/allocation_candidates?'
         + '&'.join(f'resources{n}=VCPU:1' for n in range(1, 7))
         + '&group_policy=none')
CHILDREN = 10
#: What starts each allocation request of the answer.
REQUEST_START = b'{"allocations":'


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
        (child, generation, {'VCPU': bench._inventory(8)})
        for child, generation in children])


def read(http, server):
    """One request, its body read a block at a time; a result row."""
    pid = server.worker_pids()[0]
    before = bench._read_status(pid, 'VmRSS')
    server.reset_peaks()
    cpu = bench._cpu_seconds(pid)
    digest, size, count, tail, first = hashlib.sha256(), 0, 0, b'', None
    started = time.perf_counter()
    response = http.request('GET', server.endpoint + QUERY,
                            headers=bench.HEADERS, preload_content=False,
                            retries=False, timeout=None)
    for block in response.stream(1 << 16):
        if first is None:
            first = time.perf_counter() - started
        digest.update(block)
        size += len(block)
        count += (tail + block).count(REQUEST_START)
        tail = block[-(len(REQUEST_START) - 1):]
    total = time.perf_counter() - started
    response.release_conn()
    cpu = bench._cpu_seconds(pid) - cpu
    time.sleep(2)
    return {'status': response.status, 'bytes': size, 'candidates': count,
            'sha256': digest.hexdigest()[:16],
            'content_length': 'Content-Length' in response.headers,
            'first_byte_s': first, 'total_s': total, 'cpu_s': cpu,
            'rss_before_mb': before,
            'peak_mb': bench._read_status(pid, 'VmHWM'),
            'rss_after_mb': bench._read_status(pid, 'VmRSS'),
            'load1': os.getloadavg()[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=sorted(bench.SERVERS),
                        default='mysql')
    parser.add_argument('--database-url')
    parser.add_argument('--pythonpath')
    parser.add_argument('--repetitions', type=int, default=2)
    args = parser.parse_args()
    args.server_url = args.database_url or bench.SERVERS[args.db]
    args.reuse_database = args.keep_database = None
    args.database_name = f'bench_memory_{uuid.uuid4().hex[:8]}'
    http = urllib3.PoolManager(maxsize=4)
    workdir = tempfile.mkdtemp(prefix='placement-bench-memory-')
    try:
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
