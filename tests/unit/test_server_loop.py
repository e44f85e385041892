"""The worker's loop (``server.Dispatchers``) asks an idle kept-alive
connection nothing at each of its turns, and still serves it when its
client sends again, and closes it at ``keepalive_timeout``."""

import collections
import http.client
import os
import select
import socket
import time

import pytest
from waitress import wasyncore

from placement.wsgi import server
from tests.unit import worker_loop

LIMITS = server.ClientLimits(
    header_timeout=10, body_timeout=10, send_timeout=10,
    keepalive_timeout=1, max_connections=10, max_body_bytes=1024)


def _application(environ, start_response):
    start_response('200 OK', [('Content-Type', 'application/json'),
                              ('Content-Length', '2')])
    return [b'{}']


@pytest.fixture
def asked(monkeypatch):
    """How often the loop asked each connection (by its client's port)
    whether it is readable."""
    counts = collections.Counter()
    readable = server._Channel.readable

    def counted(channel):
        counts[channel.addr[1]] += 1
        return readable(channel)

    monkeypatch.setattr(server._Channel, 'readable', counted)
    return counts


def _get(connection):
    connection.request('GET', '/')
    response = connection.getresponse()
    assert (response.status, response.read()) == (200, b'{}')


def test_idle_connections_are_not_asked_at_each_turn(asked):
    with worker_loop.serving(_application, LIMITS) as (address, _listener):
        clients = [http.client.HTTPConnection(*address) for _ in range(3)]
        for client in clients:
            _get(client)
        ports = [client.sock.getsockname()[1] for client in clients]
        # The loop turns at least every 0.05 s.
        time.sleep(0.3)
        asked.clear()
        for _ in range(5):
            _get(clients[0])
        time.sleep(0.3)
        assert asked[ports[0]] > 0
        assert (asked[ports[1]], asked[ports[2]]) == (0, 0)
        # Idle, still served.
        _get(clients[1])
        assert asked[ports[1]] > 0
        # And closed once idle for keepalive_timeout.
        time.sleep(LIMITS.keepalive_timeout + 1.5)
        clients[2].sock.settimeout(5)
        assert clients[2].sock.recv(1) == b''
        for client in clients:
            client.close()


def test_the_wait_is_epoll_where_the_kernel_has_it():
    # Linux's, where poll(2) scanned every idle kept-alive connection at
    # each turn of the loop.
    socket_map = server.Dispatchers()
    try:
        assert isinstance(socket_map._poll, select.epoll)
    finally:
        socket_map.close()


class _Readable(wasyncore.dispatcher):
    """A dispatcher of one end of a socket pair, noting its reads."""

    def __init__(self, sock, socket_map):
        super().__init__(sock, socket_map)
        self.reads = 0

    def readable(self):
        return True

    def writable(self):
        return False

    def handle_read(self):
        self.reads += 1
        self.recv(64)


def test_a_descriptor_closed_in_the_map_and_taken_again_is_served():
    socket_map = server.Dispatchers()
    ours, theirs = socket.socketpair()
    try:
        first = _Readable(ours, socket_map)
        socket_map.poll(0)
        fd = first._fileno
        # Closed without leaving the map: epoll forgets it by itself.
        os.close(ours.detach())
        again, other = socket.socketpair()
        assert again.fileno() == fd
        second = _Readable(again, socket_map)
        other.send(b'x')
        socket_map.poll(1)
        assert second.reads == 1
    finally:
        wasyncore.close_all(socket_map)
        socket_map.close()
        theirs.close()
        other.close()
