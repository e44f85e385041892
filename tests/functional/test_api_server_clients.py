"""placement-api against stalled clients, and its signals: real sockets.

The server runs with its defaults but for the client timeouts, set to
``TIMEOUT`` seconds so that the test takes seconds. Whether stalled
clients delay the others is seen on a server with timeouts no test
outlasts: the others are answered while every stalled client holds on,
rather than once the stalled ones are dropped (however loaded the
machine, which only makes everything slower). A stalled connection
must be closed by the server no earlier than its timeout and within
``LATE`` seconds after it.
"""

import concurrent.futures
import contextlib
import http.client
import json
import os
import resource
import selectors
import signal
import socket
import sqlite3
import stat
import threading
import time
import urllib.parse

import pytest

from tests import processes
from tests.functional import commands
from tests.functional import server as api_server

TIMEOUT = 6
#: The client timeouts of the server no test outlasts.
PATIENT = 600
LATE = 15
ADMIN = {'X-Auth-Token': 'admin',
         'OpenStack-API-Version': 'placement latest'}

#: What each kind of stalled client sends, then nothing more.
STALLS = {
    'silent': b'',
    'partial head': b'GET / HTTP/1.1\r\nHost: x\r\n',
    'partial body': (b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
                     b'X-Auth-Token: admin\r\n'
                     b'Content-Type: application/json\r\n'
                     b'Content-Length: 100\r\n\r\n{"name": "'),
    'idle keep-alive': b'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
}


def _timeouts(seconds):
    return [f'--{name}-timeout={seconds}'
            for name in ('header', 'body', 'keepalive')]


def _serving(tmp_path_factory, timeout):
    workdir = tmp_path_factory.mktemp('placement-api-clients')
    process, endpoint = api_server.start_dev(workdir, *_timeouts(timeout))
    try:
        address = urllib.parse.urlsplit(endpoint)
        yield address.hostname, address.port
    finally:
        status = processes.stop(process)
    assert status == 0, (workdir / 'placement-api.log').read_text()


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    """(host, port) of placement-api with the client timeouts at
    TIMEOUT seconds."""
    yield from _serving(tmp_path_factory, TIMEOUT)


@pytest.fixture(scope='module')
def patient_server(tmp_path_factory):
    """(host, port) of placement-api with the client timeouts at
    PATIENT seconds."""
    yield from _serving(tmp_path_factory, PATIENT)


@pytest.fixture(scope='module', autouse=True)
def enough_files():
    """Room for 800 stalled sockets in this process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


class Stalled:
    """A connection that sent ``STALLS[kind]`` (``idle keep-alive``: a
    whole request, whose answer it read) and waits."""

    def __init__(self, address, kind):
        self.kind = kind
        # Before the server's clock of it starts, whatever the load: the
        # time it lived is never less than what the server gave it.
        self.began = time.monotonic()
        self.sock = socket.create_connection(address, timeout=LATE)
        self.sock.sendall(STALLS[kind])
        if kind == 'idle keep-alive':
            response = http.client.HTTPResponse(self.sock)
            response.begin()
            response.read()
        self.closed = None
        self.sock.setblocking(False)

    def check(self):
        """Record the time the server closed it, if it did."""
        try:
            if self.sock.recv(4096):
                return  # an answer; the close comes next
        except BlockingIOError:
            return
        except OSError:
            pass
        self.closed = time.monotonic()


def wait_until_closed(stalled, deadline):
    """Watch ``stalled`` until all are closed or ``deadline``."""
    with selectors.DefaultSelector() as selector:
        for conn in stalled:
            selector.register(conn.sock, selectors.EVENT_READ, conn)
        while selector.get_map() and time.monotonic() < deadline:
            for key, _ in selector.select(0.2):
                key.data.check()
                if key.data.closed is not None:
                    selector.unregister(key.fileobj)


def answered(address, method='GET', path='/', body=None):
    """(status, seconds) of a request from a new connection."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(*address, timeout=LATE)
    try:
        conn.request(method, path, body=body, headers={
            **ADMIN, 'Content-Type': 'application/json'})
        response = conn.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    finally:
        conn.close()


def stalled_clients(address, count):
    """``count`` stalled connections of each kind to ``address``."""
    return [Stalled(address, kind) for kind in STALLS for _ in range(count)]


@pytest.mark.parametrize('count', [40, 200])
def test_stalled_clients_do_not_delay_others(patient_server, count):
    stalled = stalled_clients(patient_server, count)
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(pool.map(
                lambda path: answered(patient_server, path=path),
                ['/', '/resource_providers'] * 16))
        assert [status for status, _ in results] == [200] * 32
        # Answered while every stalled client held on, not after.
        for conn in stalled:
            conn.check()
        assert [conn.kind for conn in stalled if conn.closed] == []
    finally:
        for conn in stalled:
            conn.sock.close()


@pytest.mark.parametrize('count', [40, 200])
def test_stalled_clients_are_closed_at_their_timeouts(server, count):
    stalled = stalled_clients(server, count)
    try:
        wait_until_closed(stalled, time.monotonic() + TIMEOUT + LATE)
        lived = {kind: sorted(round(conn.closed - conn.began, 1)
                              for conn in stalled
                              if conn.kind == kind and conn.closed)
                 for kind in STALLS}
        for kind, seconds in lived.items():
            assert len(seconds) == count, (kind, 'not closed')
            # The server's check runs every second: none early, none
            # left for long.
            assert seconds[0] >= TIMEOUT - 0.5, (kind, seconds)
            assert seconds[-1] <= TIMEOUT + LATE, (kind, seconds)
    finally:
        for conn in stalled:
            conn.sock.close()


def test_a_head_sent_byte_by_byte_is_closed_at_the_header_timeout(server):
    """Never idle, but never done: the timeout is for the whole head."""
    sock = socket.create_connection(server, timeout=LATE)
    head = b'GET / HTTP/1.1\r\nHost: x\r\nX-Padding: ' + b'a' * 1000
    started = time.monotonic()
    with sock:
        try:
            for byte in head:
                sock.sendall(bytes([byte]))
                time.sleep(0.5)
        except OSError:
            pass  # closed by the server
        lasted = time.monotonic() - started
    assert TIMEOUT - 0.5 <= lasted <= TIMEOUT + LATE


def test_a_slow_request_within_the_timeouts_is_served(server):
    """Head and body in pieces, each part within its timeout."""
    body = b'{"name": "slow-but-in-time"}'
    pieces = [b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n',
              b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n',
              b'Content-Length: %d\r\n\r\n' % len(body),
              body[:10], body[10:]]
    with socket.create_connection(server, timeout=LATE) as sock:
        for piece in pieces:
            sock.sendall(piece)
            time.sleep(TIMEOUT / 4)
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 201, response.read()


@pytest.mark.parametrize('head, status', [
    (b'GARBAGE\r\n\r\n', 400),
    (b'GET / HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n' % (b'a' * 300_000),
     431),
    (b'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n',
     501),
])
def test_a_request_the_server_cannot_take_gets_a_json_error(
        server, head, status):
    with socket.create_connection(server, timeout=LATE) as sock:
        with contextlib.suppress(ConnectionResetError):
            sock.sendall(head)
        response = http.client.HTTPResponse(sock)
        response.begin()
        body = json.loads(response.read())
    assert response.status == status
    assert response.getheader('Content-Type') == 'application/json'
    error, = body['errors']
    assert error['status'] == status
    assert error['detail']
    assert error['request_id'] == response.getheader(
        'X-OpenStack-Request-Id')


def _refused_too_large(sock):
    response = http.client.HTTPResponse(sock)
    response.begin()
    error, = json.loads(response.read())['errors']
    assert response.status == 413
    assert error['detail'] == (
        'Request is too large. Larger than max_request_body_size (1000).')


def test_a_body_over_the_limit_is_refused_before_it_is_sent(tmp_path):
    """[oslo_middleware] max_request_body_size: the worker answers 413 on
    the head alone (a body of the limit passes on to the application)."""
    process, endpoint = api_server.start_dev(
        tmp_path, env={'OS_OSLO_MIDDLEWARE__MAX_REQUEST_BODY_SIZE': '1000'})
    address = urllib.parse.urlsplit(endpoint)
    address = (address.hostname, address.port)
    head = (b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
            b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n')
    try:
        with socket.create_connection(address, timeout=LATE) as sock:
            sock.sendall(head + b'Content-Length: 50000000\r\n\r\n')
            _refused_too_large(sock)
        with socket.create_connection(address, timeout=LATE) as sock:
            sock.sendall(head + b'Transfer-Encoding: chunked\r\n\r\n'
                         + b'%x\r\n%s\r\n' % (1001, b' ' * 1001))
            _refused_too_large(sock)
        name = 'n' * (1000 - len('{"name": ""}'))
        status, _ = answered(address, 'POST', '/resource_providers',
                             json.dumps({'name': name}).encode())
        assert status == 400  # the name's schema: too long, not too large
    finally:
        assert processes.stop(process) == 0
    # The stop woke the workers without an error either.
    assert ' ERROR ' not in (tmp_path / 'placement-api.log').read_text()


def test_two_instances_share_nothing(tmp_path):
    """Two instances on one host, one user: stopping one leaves the
    other serving and answering its signals."""
    home = tmp_path / 'home'
    runtime = tmp_path / 'run'
    home.mkdir()
    runtime.mkdir()
    env = {'HOME': str(home), 'XDG_RUNTIME_DIR': str(runtime)}
    instances = []
    try:
        for name in ('a', 'b'):
            workdir = tmp_path / name
            workdir.mkdir()
            instances.append(api_server.start_dev(workdir, env=env))
        (first, first_url), (second, second_url) = instances
        for url in (first_url, second_url):
            assert _status(url) == 200
        # No control socket (gunicorn's is ~/.gunicorn/gunicorn.ctl or
        # $XDG_RUNTIME_DIR/gunicorn.ctl) where every instance of the user
        # would look for it.
        assert _sockets(home) + _sockets(runtime) == []

        assert processes.stop(first) == 0
        assert _status(second_url) == 200

        before = _settled_workers(second)
        second.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            after = api_server.children(second.pid)
            if len(after) == len(before) and not set(after) & set(before):
                break
            time.sleep(0.2)
        assert len(after) == len(before)
        assert not set(after) & set(before), 'SIGHUP replaced no worker'
        assert _status(second_url) == 200
    finally:
        for process, _url in instances:
            if process.poll() is None:
                processes.stop(process)


def test_sigterm_lets_a_request_in_flight_finish(tmp_path):
    """A write waits for the database lock the test holds; SIGTERM comes
    meanwhile. The write is answered, then the server exits 0 without
    waiting for the clients that owe it a head or sit idle."""
    process, endpoint = api_server.start_dev(
        tmp_path, '--workers', '1', *_timeouts(60))
    address = urllib.parse.urlsplit(endpoint)
    address = (address.hostname, address.port)
    try:
        waiting = [Stalled(address, kind)
                   for kind in ('partial head', 'idle keep-alive')]
        lock = sqlite3.connect(tmp_path / 'placement.sqlite',
                               isolation_level=None)
        lock.execute('BEGIN IMMEDIATE')
        result = {}
        writer = threading.Thread(target=lambda: result.update(
            answer=answered(address, 'POST', '/resource_providers',
                            b'{"name": "in-flight"}')))
        writer.start()
        time.sleep(1)  # the request reaches the worker, which waits
        process.send_signal(signal.SIGTERM)
        time.sleep(1)
        assert process.poll() is None, 'exited with a request in flight'
        assert writer.is_alive()
        lock.execute('ROLLBACK')
        lock.close()
        writer.join(LATE)
        assert result['answer'][0] == 200
        assert process.wait(LATE) == 0
        for conn in waiting:
            conn.check()
            assert conn.closed, conn.kind
    finally:
        if process.poll() is None:
            processes.stop(process)
    with contextlib.closing(sqlite3.connect(
            tmp_path / 'placement.sqlite')) as db:
        assert db.execute("SELECT name FROM resource_providers").fetchall() \
            == [('in-flight',)]


def test_sigterm_stops_a_worker_still_waiting_for_its_database(tmp_path):
    """SIGHUP brings workers up with a database that does not answer;
    they wait to try again. SIGTERM then stops them at once (they have
    nothing in progress), not after the graceful timeout."""
    conf = tmp_path / 'placement.conf'
    commands.write_config(conf, placement_database={
        'connection': f'sqlite:///{tmp_path / "placement.sqlite"}'})
    process, _endpoint = api_server.start_dev(
        tmp_path, '--workers', '1', '--graceful-timeout', '600')
    log = tmp_path / 'placement-api.log'
    try:
        commands.write_config(conf, placement_database={
            'connection': 'mysql+pymysql://placement@127.0.0.1:1/placement',
            'max_retries': -1, 'retry_interval': 600})
        process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 60
        while 'not reachable at 127.0.0.1:1' not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
    finally:
        status = processes.stop(process)
    assert status == 0, log.read_text()


def _status(url):
    address = urllib.parse.urlsplit(url)
    return answered((address.hostname, address.port))[0]


def _sockets(directory):
    return [path for path in directory.rglob('*')
            if stat.S_ISSOCK(path.lstat().st_mode)]


def _settled_workers(process):
    """The worker pids once the master has forked them all."""
    expected = min(len(os.sched_getaffinity(0)), 8)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = api_server.children(process.pid)
        if len(workers) == expected:
            return workers
        time.sleep(0.2)
    raise AssertionError(f'{len(workers)} workers, not {expected}')
