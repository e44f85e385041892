"""placement-api's worker and ``Expect: 100-continue``: the interim
``100 Continue`` only for a body it will read; a request without a body,
or one refused on its head, is answered at once (it hung until the body
timeout: waitress 3.0 sent the 100 and waited for a body)."""

import socket

import pytest

from placement.wsgi import server
from tests.unit import worker_loop

LIMITS = server.ClientLimits(
    header_timeout=10, body_timeout=10, send_timeout=10,
    keepalive_timeout=10, max_connections=10, max_body_bytes=1024)
#: Far below the body timeout: an answer that waits for it is late.
PROMPT = 5


def _echo(environ, start_response):
    """Answers the length of the body it read."""
    body = environ['wsgi.input'].read()
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'%d' % len(body)]


@pytest.fixture
def address():
    with worker_loop.serving(_echo, LIMITS) as (address, _listener):
        yield address


def _status_lines(sock):
    """The status lines of the answers read until the server closes."""
    received = b''
    while chunk := sock.recv(65536):
        received += chunk
    return [line for line in received.split(b'\r\n')
            if line.startswith(b'HTTP/1.1 ')], received


@pytest.mark.parametrize('head', [
    b'GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n'
    b'Connection: close\r\n\r\n',
    b'PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n'
    b'Content-Length: 0\r\nConnection: close\r\n\r\n',
])
def test_a_request_without_a_body_is_answered_at_once(address, head):
    with socket.create_connection(address, timeout=PROMPT) as sock:
        sock.sendall(head)
        statuses, received = _status_lines(sock)
    assert statuses == [b'HTTP/1.1 200 OK'], received
    assert received.endswith(b'\r\n\r\n0')


def test_a_body_over_the_limit_is_refused_without_a_continue(address):
    with socket.create_connection(address, timeout=PROMPT) as sock:
        sock.sendall(b'POST / HTTP/1.1\r\nHost: x\r\n'
                     b'Expect: 100-continue\r\nContent-Length: 5000\r\n\r\n')
        statuses, received = _status_lines(sock)
    assert statuses == [b'HTTP/1.1 413 Request Entity Too Large'], received


def test_a_body_is_read_after_the_continue(address):
    with socket.create_connection(address, timeout=PROMPT) as sock:
        sock.sendall(b'POST / HTTP/1.1\r\nHost: x\r\n'
                     b'Expect: 100-continue\r\nContent-Length: 3\r\n'
                     b'Connection: close\r\n\r\n')
        assert sock.recv(65536) == b'HTTP/1.1 100 Continue\r\n\r\n'
        sock.sendall(b'abc')
        statuses, received = _status_lines(sock)
    assert statuses == [b'HTTP/1.1 200 OK'], received
    assert received.endswith(b'\r\n\r\n3')
