"""GET /metrics from a multi-worker ``placement-api``: every worker
counted (prometheus_client's multiprocess mode), a restart starting from
zero, a dead worker's counts kept, the capacity gauges equal to the
reports, and the management listener."""

import glob
import json
import os
import pathlib
import re
import signal
import time
import urllib.error
import urllib.request
import uuid

import pytest

from tests import processes
from tests.functional import scrape
from tests.functional import server

pytestmark = pytest.mark.db

_ADMIN = {'X-Auth-Token': 'admin', 'Accept': 'application/json',
          'OpenStack-API-Version': 'placement latest'}


def _call(endpoint, method, path, body=None, headers=_ADMIN):
    data = None
    headers = dict(headers)
    if body is not None:
        data = json.dumps(body).encode()
        headers['Content-Type'] = 'application/json'
    req = urllib.request.Request(endpoint + path, data=data, method=method,
                                 headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _get_json(endpoint):
    def get_json(path):
        status, body = _call(endpoint, 'GET', path)
        assert status == 200, body
        return json.loads(body)
    return get_json


def _scrape(endpoint, headers=_ADMIN):
    status, body = _call(endpoint, 'GET', '/metrics', headers=headers)
    assert status == 200, body
    return scrape.samples(body.decode())


def _known_mix(endpoint, providers=4, lists=10, misses=3, anonymous=2):
    for number in range(providers):
        rp_uuid = str(uuid.uuid4())
        assert _call(endpoint, 'POST', '/resource_providers',
                     {'name': f'cn{number}', 'uuid': rp_uuid})[0] == 200
        assert _call(endpoint, 'PUT',
                     f'/resource_providers/{rp_uuid}/inventories',
                     {'inventories': {'VCPU': {'total': 8 + number},
                                      'MEMORY_MB': {'total': 1024}},
                      'resource_provider_generation': 0})[0] == 200
    for _ in range(lists):
        assert _call(endpoint, 'GET', '/resource_providers')[0] == 200
    for _ in range(misses):
        assert _call(endpoint, 'GET',
                     f'/resource_providers/{uuid.uuid4()}')[0] == 404
    for _ in range(anonymous):
        assert _call(endpoint, 'GET', '/resource_providers',
                     headers={})[0] == 401


def _requests(found, method, route, status):
    return scrape.value(found, 'placement_http_requests_total',
                        method=method, route=route, status=status)


def _assert_known_mix(found):
    assert _requests(found, 'POST', '/resource_providers', '200') == 4
    assert _requests(found, 'PUT', '/resource_providers/{uuid}/inventories',
                     '200') == 4
    assert _requests(found, 'GET', '/resource_providers', '200') == 10
    assert _requests(found, 'GET', '/resource_providers/{uuid}',
                     '404') == 3
    assert _requests(found, 'GET', '/resource_providers', '401') == 2
    labels = {'method': 'GET', 'route': '/resource_providers',
              'status': '200'}
    buckets = sorted(
        (float(dict(key)['le']), count) for key, count in scrape.named(
            found, 'placement_http_request_duration_seconds_bucket',
            **labels).items())
    counts = [count for _le, count in buckets]
    assert counts == sorted(counts)
    assert buckets[-1] == (float('inf'), 10)
    assert scrape.value(found, 'placement_http_request_duration_seconds_count',
                        **labels) == 10
    assert scrape.value(found, 'placement_db_transactions_total',
                        access='write', outcome='committed') == 8


def _api_requests(found):
    """The request counts, but of the scrapes and the version document
    (which the test's waits ask for)."""
    return {labels: count for labels, count in scrape.named(
        found, 'placement_http_requests_total').items()
        if dict(labels)['route'] not in ('/metrics', '/')}


def _children(pid):
    path = pathlib.Path(f'/proc/{pid}/task/{pid}/children')
    return [int(child) for child in path.read_text().split()]


def _wait_for(condition, limit=30):
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_every_worker_counted_and_capacity_is_the_reports(tmp_path):
    metrics_dir = tmp_path / 'metrics'
    metrics_dir.mkdir()
    # What a previous run left: removed when the server starts.
    (metrics_dir / 'counter_999999.db').write_bytes(b'stale')
    processes = []
    with server.running_server(
            tmp_path, workers=2, threads=4, started=processes,
            env={'PROMETHEUS_MULTIPROC_DIR': str(metrics_dir)}) as endpoint:
        _known_mix(endpoint)
        assert not (metrics_dir / 'counter_999999.db').exists()
        # Whichever worker answers a scrape, it sums all of them (the
        # scrapes themselves are the only requests in between).
        for _ in range(4):
            _assert_known_mix(_scrape(endpoint))
        found = _scrape(endpoint)
        get_json = _get_json(endpoint)
        expected = {**scrape.exporter_expected(get_json),
                    **scrape.report_expected(get_json('/reports/capacity'))}
        assert scrape.capacity_part(found) == expected
        assert len(scrape.named(
            found, 'openstack_placement_resource_total')) == 8

        # A worker killed: its counts stay, its live gauges go.
        before = _api_requests(_scrape(endpoint))
        arbiter = processes[0].pid
        workers = _children(arbiter)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        _wait_for(lambda: len(set(_children(arbiter)) - set(workers)) == 1)
        assert not glob.glob(str(metrics_dir / f'gauge_livesum_{workers[0]}'
                                                '.db'))
        _wait_for(lambda: _call(endpoint, 'GET', '/')[0] == 200)
        assert _api_requests(_scrape(endpoint)) == before

    # A restart counts from zero.
    with server.running_server(
            tmp_path, workers=2, threads=4, url=None,
            env={'PROMETHEUS_MULTIPROC_DIR': str(metrics_dir)}) as endpoint:
        found = _scrape(endpoint)
        assert _requests(found, 'GET', '/resource_providers', '200') == 0


def test_private_directory_removed_at_exit(tmp_path):
    started = []
    with server.running_server(tmp_path, workers=2,
                               started=started) as endpoint:
        _scrape(endpoint)
        [path] = re.findall(r'Metrics of the workers are in (\S+)',
                            (tmp_path / 'server.log').read_text())
        assert glob.glob(os.path.join(path, 'counter_*.db'))
    log = (tmp_path / 'server.log').read_text()
    # -9: killed at the end of the stop's timeout, it could not.
    assert started[0].returncode == 0, log
    assert not os.path.exists(path), (os.listdir(path), log)


def test_management_listener_serves_metrics_without_a_token(tmp_path):
    port = processes.free_port()
    with server.running_server(
            tmp_path, workers=2,
            extra_conf=f'[metrics]\nlisten_port = {port}\n') as endpoint:
        management = f'http://127.0.0.1:{port}'
        found = _scrape(management, headers={})
        assert scrape.value(found, 'openstack_placement_up') == 1
        assert _call(management, 'GET', '/healthcheck', headers={})[0] == 200
        assert _call(management, 'GET', '/resource_providers')[0] == 404
        assert _call(management, 'GET', '/')[0] == 404
        # The API port still wants a token, whatever the Host says.
        assert _call(endpoint, 'GET', '/metrics',
                     headers={'Host': f'127.0.0.1:{port}'})[0] == 401
