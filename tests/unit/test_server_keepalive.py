"""placement-api's worker keeps an HTTP/1.1 connection alive after a
chunked (streamed) answer, and closes it for every other reason it
closed it before: real sockets, the worker's listener, channel and task
serving a WSGI application in this process."""

import contextlib
import dataclasses
import http.client
import io
import logging
import socket
import time

import pytest
from oslo_context import context
from waitress import utilities

from placement.wsgi import server
from tests import processes
from tests.unit import worker_loop

LIMITS = server.ClientLimits(
    header_timeout=10, body_timeout=10, send_timeout=10,
    keepalive_timeout=10, max_connections=10, max_body_bytes=1024)
#: A streamed body's pieces: several, larger than a socket's buffer.
PIECES = (b'[', b'1,' * 100_000, b'1]')
BODY = b''.join(PIECES)
LAST_CHUNK = b'0\r\n\r\n'
#: How many times ``/large`` repeats its pieces (40 MB).
LARGE = 200


def _application(served):
    """A WSGI application streaming ``PIECES`` without Content-Length
    (``/broken``: raising after the first; ``/large``: the rest ``LARGE``
    times, more than socket buffers hold), which records the client's
    port of each request in ``served``."""

    def application(environ, start_response):
        served.append(environ['REMOTE_PORT'])
        start_response('200 OK', [('Content-Type', 'application/json')])
        yield PIECES[0]
        if environ['PATH_INFO'] == '/broken':
            raise RuntimeError('the stream broke after its head')
        yield from PIECES[1:] * (LARGE if environ['PATH_INFO'] == '/large'
                                 else 1)

    return application


@contextlib.contextmanager
def _serving(limits):
    """(address, the client ports of the requests served, the listener)
    of the worker serving :func:`_application` within ``limits``."""
    served = []
    with worker_loop.serving(_application(served), limits) as (
            address, listener):
        yield address, served, listener


@pytest.fixture
def worker():
    """(address, the client ports of the requests served)."""
    with _serving(LIMITS) as (address, served, _listener):
        yield address, served


@pytest.fixture
def impatient_worker():
    """A worker whose clients must read their answers within a second."""
    with _serving(dataclasses.replace(LIMITS, send_timeout=1)) as serving:
        yield serving


class _Answers:
    """HTTP answers read one after another from one file: http.client's,
    which reads exactly one, then closes the file (not this one)."""

    def __init__(self, file):
        self._file = file

    def makefile(self, _mode):
        return self

    def close(self):
        pass

    def __getattr__(self, name):
        return getattr(self._file, name)

    def answer(self, method='GET'):
        response = http.client.HTTPResponse(self, method=method)
        response.begin()
        return response, response.read()

    def rest(self):
        return self._file.read()


def _sent_until_closed(address, requests):
    """Everything the server sent after ``requests`` (bytes, sent at
    once) until it closed the connection."""
    with socket.create_connection(address, timeout=10) as sock:
        sock.sendall(requests)
        received = []
        while chunk := sock.recv(65536):
            received.append(chunk)
    return _Answers(io.BytesIO(b''.join(received)))


def _get(path='/', version='1.1', headers=''):
    return f'GET {path} HTTP/{version}\r\nHost: x\r\n{headers}\r\n'.encode()


def test_two_streamed_answers_share_one_connection(worker):
    address, served = worker
    answers = processes.answers_on_one_connection(*address, '/')
    for response, body in answers:
        assert response.headers['Transfer-Encoding'] == 'chunked'
        assert response.headers['Connection'] is None
        assert body == BODY
    assert len(served) == 2 and served[0] == served[1]


def test_a_request_pipelined_after_a_streamed_answer_is_served(worker):
    address, served = worker
    wire = _sent_until_closed(
        address, _get() + _get(headers='Connection: close\r\n'))
    first, first_body = wire.answer()
    second, second_body = wire.answer()
    assert first.headers['Transfer-Encoding'] == 'chunked'
    assert first_body == second_body == BODY
    assert second.headers['Connection'] == 'close'
    assert wire.rest() == b''
    assert len(served) == 2


def test_the_clients_connection_close_is_kept(worker):
    address, served = worker
    # A request after it is never served.
    wire = _sent_until_closed(
        address, _get(headers='Connection: close\r\n') + _get())
    response, body = wire.answer()
    assert response.headers['Connection'] == 'close'
    assert body == BODY
    assert wire.rest() == b''
    assert len(served) == 1


@pytest.mark.parametrize('headers', ['', 'Connection: keep-alive\r\n'])
def test_http_1_0_ends_a_streamed_answer_by_closing(worker, headers):
    address, served = worker
    wire = _sent_until_closed(address, _get(version='1.0', headers=headers)
                              + _get(version='1.0', headers=headers))
    response, body = wire.answer()
    assert response.headers['Transfer-Encoding'] is None
    assert response.headers['Content-Length'] is None
    assert body == BODY
    assert len(served) == 1


def test_a_head_without_content_length_closes(worker):
    address, served = worker
    wire = _sent_until_closed(address, b'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n'
                              + _get())
    response, _body = wire.answer(method='HEAD')
    assert response.headers['Connection'] == 'close'
    assert len(served) == 1


def test_a_stream_broken_after_its_head_closes_the_connection(worker):
    address, served = worker
    wire = _sent_until_closed(address, _get('/broken') + _get())
    response = http.client.HTTPResponse(wire)
    response.begin()
    assert response.status == 200
    with pytest.raises(http.client.IncompleteRead):
        response.read()
    assert not wire.getvalue().endswith(LAST_CHUNK)
    # The pipelined request was dropped with the connection ...
    assert len(served) == 1
    # ... and a new connection is served.
    wire = _sent_until_closed(address, _get(headers='Connection: close\r\n'))
    assert wire.answer()[1] == BODY


#: Requests refused with a status of their own, and the words it says.
#: HTTP/2 is not framed as text: such a line comes from a client that
#: took the server for another (waitress served it as 1.0).
REFUSED = {
    'unknown coding': (_get(headers='Transfer-Encoding: gzip\r\n'), 501,
                       b'Transfer-Encoding requested is not supported'),
    'HTTP/2.0': (_get(version='2.0'), 505, b'HTTP/2.0 is not served'),
}


@pytest.mark.parametrize('request_, status, words', REFUSED.values(),
                         ids=REFUSED)
def test_a_refused_request_closes(worker, request_, status, words):
    address, served = worker
    wire = _sent_until_closed(address, request_ + _get())
    response, body = wire.answer()
    assert (response.status, response.version) == (status, 11)
    assert response.headers['Connection'] == 'close'
    assert words in body
    assert wire.rest() == b''
    assert not served


#: Requests RFC 9112 says a server must refuse (or, for the first two,
#: at least close after): where the body ends, or which host is meant,
#: is ambiguous; a proxy in front may have read them otherwise, and
#: taken the body for the next request (smuggling).
AMBIGUOUS = {
    'Content-Length beside chunked': (
        b'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n'
        b'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
    'chunked in HTTP/1.0': (
        b'POST / HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n'
        b'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
    'no Host in HTTP/1.1': b'GET / HTTP/1.1\r\n\r\n',
    'two Hosts': b'GET / HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n',
}


#: Start lines RFC 9112 3 does not allow: a request target is a URI,
#: whose characters are all visible; the version is not optional.
BAD_START_LINES = {
    'SOH in the target': b'GET /\x01 HTTP/1.1\r\nHost: x\r\n\r\n',
    'tab in the target': b'GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n',
    'DEL in the query': b'GET /?a=\x7f HTTP/1.1\r\nHost: x\r\n\r\n',
    'no version (HTTP/0.9)': b'GET /\r\nHost: x\r\n\r\n',
    'a bad header in HTTP/1.0': b'GET / HTTP/1.0\r\nX-Bad: a\x01b\r\n\r\n',
}


@pytest.mark.parametrize('request_', [*AMBIGUOUS.values(),
                                      *BAD_START_LINES.values()],
                         ids=[*AMBIGUOUS, *BAD_START_LINES])
def test_an_ambiguous_request_is_refused_and_closes(worker, request_):
    address, served = worker
    wire = _sent_until_closed(address, request_ + _get())
    response, body = wire.answer()
    assert response.status == 400
    # The server's version (RFC 9110 6.2), whatever the request said.
    assert response.version == 11
    assert response.headers['Connection'] == 'close'
    assert response.headers['Content-Type'] == 'application/json'
    assert b'"errors"' in body
    assert wire.rest() == b''
    assert not served


#: HEAD requests refused before the application: waitress's parser
#: found a bad header (before it read the method), or a coding it
#: does not take.
REFUSED_HEADS = {
    'bad header': b'HEAD / HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n',
    'unknown coding': (b'HEAD / HTTP/1.1\r\nHost: x\r\n'
                       b'Transfer-Encoding: gzip\r\n\r\n'),
}


@pytest.mark.parametrize('request_', REFUSED_HEADS.values(),
                         ids=REFUSED_HEADS)
def test_a_refused_head_is_answered_without_a_body(worker, request_):
    """RFC 9110 9.3.2: no content in an answer to HEAD; a client takes
    what follows the head for the next answer."""
    address, served = worker
    wire = _sent_until_closed(address, request_)
    response, _body = wire.answer(method='HEAD')
    assert response.status in (400, 501)
    assert response.headers['Connection'] == 'close'
    assert int(response.headers['Content-Length']) > 0
    assert wire.rest() == b''
    assert not served


def test_a_refused_header_line_is_logged_without_its_controls(
        worker, caplog):
    """waitress's words quote the line it refused: its bare LF started a
    forged log line, its ESC drove the terminal showing the log."""
    address, _served = worker
    with caplog.at_level(logging.INFO, logger='placement.wsgi.server'):
        _sent_until_closed(address, b'GET / HTTP/1.1\r\nHost: x\r\n'
                           b'X-A: \x1b[31m\n2026-01-01 forged\r\n\r\n')
    [line] = [record.getMessage() for record in caplog.records
              if record.getMessage().startswith('Refused')]
    assert 'X-A: %1B[31m%0A2026-01-01 forged' in line, line


def test_a_later_http_1_minor_version_is_served_as_1_1(worker):
    """Its chunked body read as in 1.1, its connection kept alive."""
    address, served = worker
    wire = _sent_until_closed(
        address, b'POST / HTTP/1.2\r\nHost: x\r\nTransfer-Encoding: chunked'
        b'\r\n\r\n2\r\n{}\r\n0\r\n\r\n'
        + _get(version='1.2', headers='Connection: close\r\n'))
    for _ in range(2):
        response, body = wire.answer()
        assert (response.status, response.version) == (200, 11)
        assert body == BODY
    assert len(served) == 2


def test_a_refusal_is_logged_with_its_own_request_id():
    """oslo.log prefixes the refusal's log line with the thread's stored
    context: it was the last request's (its ids and user)."""
    context.RequestContext(request_id='req-previous', user_id='someone')
    response = server._refusal(utilities.BadRequest('Invalid header'), LIMITS)
    stored = context.get_current()
    assert stored.request_id == response.headers['X-Openstack-Request-Id']
    assert stored.user_id is None


def test_one_host_and_http10_without_host_are_served(worker):
    address, served = worker
    wire = _sent_until_closed(
        address, b'GET / HTTP/1.0\r\n\r\n')
    assert wire.answer()[0].status == 200
    wire = _sent_until_closed(address, _get(headers='Connection: close\r\n'))
    assert wire.answer()[0].status == 200
    assert len(served) == 2


def test_a_kept_alive_client_that_stops_reading_is_closed(
        impatient_worker):
    address, served, listener = impatient_worker
    with socket.socket() as sock:
        # Room for little of the answer it will not read.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        sock.connect(address)
        sock.sendall(_get() + _get('/large'))
        # It reads the first answer and the head of the second ...
        answers = _Answers(sock.makefile('rb'))
        assert answers.answer()[1] == BODY
        second = http.client.HTTPResponse(answers)
        second.begin()
        assert second.status == 200
        # ... then nothing, until the server gave up sending.
        deadline = time.monotonic() + 30
        while listener.active_channels and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not listener.active_channels
        with pytest.raises(http.client.IncompleteRead):
            second.read()
    assert len(served) == 2


def test_a_request_arriving_as_the_idle_time_runs_out_is_not_cut():
    """A kept-alive connection idle past its time is closed, unless the
    client's next request is already waiting, unread, in its socket (the
    loop had not read it yet): its client would see the connection
    closed without an answer."""
    with _serving(LIMITS) as (_address, _served, listener):
        ours, clients = socket.socketpair()
        with clients:
            channel = server._Channel(listener, ours, ('127.0.0.1', 1),
                                      listener.adj, map={})
            try:
                channel.served = True
                later = channel.last_activity + LIMITS.keepalive_timeout + 1
                assert channel.expired(LIMITS, later)
                clients.sendall(_get())
                assert not channel.expired(LIMITS, later)
                channel.recv(4096)  # read, as the loop would
                clients.shutdown(socket.SHUT_WR)
                assert channel.expired(LIMITS, later)  # only its end waits
            finally:
                channel.close()
