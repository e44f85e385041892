"""Slow and idle clients against a real placement-api server, and the cost.

    PYTHONPATH=. .venv/bin/python -m tools.bench_slow_clients
        [--stalled 40 --stalled 200] [--seconds 20] [--wrk-seconds 10]
        [--rounds 1]
        [--workers 2 --threads 8] [--server-arg=--header-timeout=5 ...]
        [--baseline DIR] [--json FILE]

Serves an SQLite database holding a few providers with ``placement-api``
(``--workers``/``--threads``, then any ``--server-arg``), then:

- throughput: ``wrk`` (Debian's package; skipped when it is missing)
  runs ``--wrk-seconds`` on ``GET /`` and on ``GET /resource_providers``
  with 16 connections from 2 threads: requests per second, latency p50,
  p99 and max;
- stalled clients (``--stalled 0``: none): for each ``--stalled``
  count and each kind, on a fresh server, opens that many connections
  that stall, then for ``--seconds`` sends one ``GET /`` a second
  from a new connection (10 s timeout) and records its latency or its
  failure, and when the server closed the stalled connections. The
  kinds: ``silent`` (connects, sends nothing), ``head`` (a request
  head without its final empty line), ``body`` (a complete head
  declaring ``Content-Length: 100`` and 10 bytes of body), ``idle``
  (one complete request answered, the connection kept alive and left
  idle).

``--baseline DIR`` runs everything a second time with the code of
another checkout (its ``placement`` package first on ``PYTHONPATH``),
without the ``--server-arg`` options; the throughput is measured
``--rounds`` times, alternately on each tree, as the load of a shared
machine varies. The figures (and the load average) are printed as
JSON.
"""

import argparse
import contextlib
import http.client
import json
import os
import re
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import urllib3

from tools import bench_allocation_candidates as bench

HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement latest'}
PROVIDERS = 5
PROBE_TIMEOUT = 10

STALLS = {
    'silent': b'',
    'head': b'GET / HTTP/1.1\r\nHost: x\r\n',
    'body': (b'PUT /resource_providers/x HTTP/1.1\r\nHost: x\r\n'
             b'Content-Type: application/json\r\n'
             b'Content-Length: 100\r\n\r\n{"name": "'),
    'idle': b'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
}


def stall(host, port, kind):
    """A connected socket that has sent the ``kind`` of partial request
    (``idle``: a whole one, whose answer is read)."""
    sock = socket.create_connection((host, port), timeout=PROBE_TIMEOUT)
    sock.sendall(STALLS[kind])
    if kind == 'idle':
        answer = b''
        while b'\r\n\r\n' not in answer or not answer.endswith(b'}'):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    sock.setblocking(False)
    return sock


class ClosedWatch:
    """Records when the server closes each of ``sockets``."""

    def __init__(self, sockets):
        self.started = time.monotonic()
        self.closed_after = []
        self.selector = selectors.DefaultSelector()
        for sock in sockets:
            self.selector.register(sock, selectors.EVENT_READ)
        self.open = len(sockets)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self):
        while self.open and not self.stopping.is_set():
            for key, _ in self.selector.select(0.1):
                try:
                    data = key.fileobj.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b''
                if data:
                    continue  # an error answer; the close follows
                self.selector.unregister(key.fileobj)
                self.open -= 1
                self.closed_after.append(time.monotonic() - self.started)

    def stop(self):
        self.stopping.set()
        self.thread.join()
        self.selector.close()


def probe(host, port):
    """Seconds for ``GET /`` on a new connection; None when it failed."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=PROBE_TIMEOUT)
    try:
        conn.request('GET', '/')
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            return None
    except OSError:
        return None
    finally:
        conn.close()
    return time.monotonic() - started


def stalled_run(endpoint, kind, count, seconds):
    host, port = endpoint.rsplit('/', 1)[1].rsplit(':', 1)
    sockets = []
    try:
        for _ in range(count):
            sockets.append(stall(host, int(port), kind))
        watch = ClosedWatch(sockets)
        latencies = []
        failures = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.monotonic()
            latency = probe(host, int(port))
            if latency is None:
                failures += 1
            else:
                latencies.append(latency)
            time.sleep(max(0.0, 1 - (time.monotonic() - started)))
        watch.stop()
    finally:
        for sock in sockets:
            sock.close()
    closed = watch.closed_after
    return {
        'kind': kind, 'stalled': count, 'probes': len(latencies) + failures,
        'probe_failures': failures,
        'probe_p50_ms': _ms(bench.percentile(latencies, 50)
                            if latencies else None),
        'probe_max_ms': _ms(max(latencies) if latencies else None),
        'closed_by_server': len(closed),
        'last_closed_after_s': round(max(closed), 1) if closed else None,
        'load1': os.getloadavg()[0],
    }


def _ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


_WRK_UNITS = {'us': 0.001, 'ms': 1, 's': 1000, 'm': 60000}


def _wrk_ms(text):
    number, unit = re.fullmatch(r'([\d.]+)(us|ms|s|m)', text).groups()
    return round(float(number) * _WRK_UNITS[unit], 2)


def throughput(endpoint, path, seconds):
    """wrk's requests per second and latencies (ms) for GET ``path``."""
    headers = [arg for name, value in HEADERS.items()
               for arg in ('-H', f'{name}: {value}')]
    output = subprocess.run(
        ['wrk', '-t2', '-c16', f'-d{seconds}s', '--latency', *headers,
         endpoint + path],
        check=True, capture_output=True, text=True).stdout
    percentiles = dict(re.findall(r'^\s*(50|99)%\s+(\S+)\s*$', output,
                                  re.M))
    if len(percentiles) != 2:
        raise RuntimeError(f'wrk said:\n{output}')
    return {
        'path': path,
        'requests_per_s': float(
            re.search(r'Requests/sec:\s+([\d.]+)', output).group(1)),
        'p50_ms': _wrk_ms(percentiles['50']),
        'p99_ms': _wrk_ms(percentiles['99']),
        'max_ms': _wrk_ms(re.search(
            r'Latency\s+\S+\s+\S+\s+(\S+)', output).group(1)),
        'non_2xx': int((re.search(r'Non-2xx or 3xx responses: (\d+)',
                                  output) or [0, 0])[1]),
        'load1': os.getloadavg()[0],
    }


@contextlib.contextmanager
def serving(args, http_pool, conf, workdir, pythonpath):
    """A fresh server; its endpoint. The database holds PROVIDERS
    providers."""
    server = bench.Server(conf, workdir, args.workers, args.threads,
                          pythonpath,
                          () if pythonpath else args.server_arg)
    try:
        server.wait_until_up(http_pool)
        listed = http_pool.request(
            'GET', server.endpoint + '/resource_providers',
            headers=HEADERS).json()['resource_providers']
        for index in range(len(listed), PROVIDERS):
            http_pool.request(
                'POST', server.endpoint + '/resource_providers',
                json={'name': f'rp-{index}'}, headers=HEADERS)
        yield server.endpoint
    finally:
        server.stop()


def throughput_round(args, http_pool, conf, workdir, pythonpath):
    """wrk's figures for each path, on a fresh server."""
    results = []
    with serving(args, http_pool, conf, workdir, pythonpath) as url:
        for path in ('/', '/resource_providers'):
            results.append(throughput(url, path, args.wrk_seconds))
            print(json.dumps(results[-1]), flush=True)
    return results


def stalled_runs(args, http_pool, conf, workdir, pythonpath):
    """Each stalled run on a fresh server, so that none inherits what
    the previous one left."""
    results = []
    for count in args.stalled:
        for kind in STALLS:
            with serving(args, http_pool, conf, workdir, pythonpath) as url:
                results.append(stalled_run(url, kind, count, args.seconds))
            print(json.dumps(results[-1]), flush=True)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--stalled', type=int, action='append')
    parser.add_argument('--seconds', type=int, default=20)
    parser.add_argument('--wrk-seconds', type=int, default=10)
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--threads', type=int, default=8)
    parser.add_argument('--server-arg', action='append', default=[])
    parser.add_argument('--rounds', type=int, default=1)
    parser.add_argument('--baseline')
    parser.add_argument('--json')
    args = parser.parse_args(argv)
    args.stalled = [count for count in args.stalled or [40, 200] if count]
    http_pool = urllib3.PoolManager(maxsize=4)
    workdir = tempfile.mkdtemp(prefix='placement-bench-slow-')
    try:
        conf = bench.prepare_config(
            workdir, f'sqlite:///{os.path.join(workdir, "bench.sqlite")}')
        trees = {'this': None}
        if args.baseline:
            trees['baseline'] = os.path.abspath(args.baseline)
        report = {name: {'throughput': [], 'stalled': []} for name in trees}
        if not shutil.which('wrk'):
            print('wrk is not installed: no throughput figures', flush=True)
            args.rounds = 0
        for _ in range(args.rounds):
            for name, pythonpath in trees.items():
                report[name]['throughput'] += throughput_round(
                    args, http_pool, conf, workdir, pythonpath)
        for name, pythonpath in trees.items():
            report[name]['stalled'] = stalled_runs(
                args, http_pool, conf, workdir, pythonpath)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    bench.emit_report(report, args.json)
    return 0


if __name__ == '__main__':
    sys.exit(main())
