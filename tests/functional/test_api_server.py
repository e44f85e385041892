"""placement-api --dev: a real HTTP server, as in the quick start.

SQLite only by nature: development mode keeps its database in
``./placement.sqlite``.
"""

import concurrent.futures
import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from placement import microversion
from tests import processes
from tests.functional import server as api_server

#: The newest microversion.
LATEST = microversion.MAX_VERSION_STRING

START_TIMEOUT = 60


def request(url, headers=None):
    """(status, headers, decoded JSON body) of GET ``url``."""
    try:
        with urllib.request.urlopen(
                urllib.request.Request(url, headers=headers or {}),
                timeout=10) as response:
            return response.status, response.headers, json.load(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, json.load(error)


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    """(base URL, the Popen, its working directory)."""
    workdir = tmp_path_factory.mktemp('placement-api')
    process, base = api_server.start_dev(workdir)
    try:
        yield base, process, workdir
    finally:
        status = processes.stop(process)
    assert status == 0, (workdir / 'placement-api.log').read_text()


def test_versions(server):
    base, _process, workdir = server
    status, headers, body = request(base + '/')
    assert status == 200
    assert headers['Content-Type'] == 'application/json'
    version = body['versions'][0]
    assert version['id'] == 'v1.0'
    assert version['max_version'] == LATEST
    assert version['min_version'] == '1.0'
    assert (workdir / 'placement.sqlite').exists()


def test_authentication_required(server):
    status, _headers, body = request(server[0] + '/resource_providers')
    assert status == 401
    assert body['errors'][0]['status'] == 401


def test_unsupported_microversion(server):
    status, _headers, body = request(
        server[0] + '/', {'OpenStack-API-Version': 'placement 1.99'})
    assert status == 406
    assert body['errors'][0]['status'] == 406


def test_a_long_request_line_is_served(server):
    """2,000 member_of aggregates, 94 KB of request line: gunicorn's
    default limit (4,094 bytes) would answer 414 before the API."""
    query = '&'.join(f'member_of=00000000-0000-4000-8000-{index:012d}'
                     for index in range(2000))
    status, _headers, body = request(
        f'{server[0]}/resource_providers?{query}',
        {'x-auth-token': 'admin',
         'openstack-api-version': 'placement latest'})
    assert status == 200, body
    assert body == {'resource_providers': []}


def test_workers(server):
    """One worker per CPU by default (at most 8), each serving several
    requests at once; no Server header names the software."""
    base, process, workdir = server
    _status, headers, _body = request(base + '/')
    assert 'Server' not in headers
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda _: request(base + '/')[0],
                                 range(32)))
    assert statuses == [200] * 32
    if not os.path.isdir('/proc'):
        pytest.skip('no /proc to count worker processes')
    # The arbiter forks them one by one and replaces any that exits, so
    # wait for the count to settle.
    workers = min(len(os.sched_getaffinity(0)), 8)
    deadline = time.monotonic() + START_TIMEOUT
    while (len(api_server.children(process.pid)) != workers
           and time.monotonic() < deadline):
        time.sleep(0.2)
    assert len(api_server.children(process.pid)) == workers, (
        workdir / 'placement-api.log').read_text()


def test_a_target_with_bytes_past_ascii_is_served(server):
    """Unencoded UTF-8 in the request target (curl sends it as typed):
    taken as its percent-encoded form, as a server in front of upstream
    passes it on (waitress refused it: 400, Bad URI)."""
    base, _process, _workdir = server
    headers = {'x-auth-token': 'admin',
               'openstack-api-version': 'placement latest',
               'content-type': 'application/json'}
    created = urllib.request.Request(
        base + '/resource_providers', method='POST', headers=headers,
        data=json.dumps({'name': 'café'}).encode())
    with urllib.request.urlopen(created, timeout=10) as response:
        uuid = json.load(response)['uuid']
    host, port = urllib.parse.urlsplit(base).netloc.split(':')
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b'GET /resource_providers?name=caf\xc3\xa9 HTTP/1.1\r\n'
                     b'Host: x\r\nConnection: close\r\n'
                     + ''.join(f'{name}: {value}\r\n' for name, value
                               in headers.items()).encode() + b'\r\n')
        answer = http.client.HTTPResponse(sock)
        answer.begin()
        assert answer.status == 200
        body = json.load(answer)
    assert [provider['uuid'] for provider in body['resource_providers']] \
        == [uuid]
