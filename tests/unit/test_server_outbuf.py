"""How placement-api's worker sends an answer: from the bytes the
application wrote (no copy into a buffer or a file while the client
reads), the head with the body's first piece, into a temporary file past
``outbuf_overflow`` bytes waiting (a client that does not read), and cut
at ``send_timeout``; the loop keeps off what the task's thread sends."""

import socket
import tempfile
import time
import types

import pytest
from waitress import adjustments

from placement.wsgi import server


class _Socket:
    """A connected socket that takes at most ``room`` bytes per send,
    and records them."""

    def __init__(self, room=None):
        self.room = room
        #: What each send was given, as given.
        self.given = []
        self.wire = bytearray()

    #: Called at each send (the task's thread is sending).
    on_send = None

    def send(self, data):
        if self.on_send:
            self.on_send()
        self.given.append(data)
        taken = len(data) if self.room is None else min(self.room,
                                                        len(data))
        self.wire += data[:taken]
        return taken


@pytest.fixture
def connection():
    """A worker's connection whose socket is a :class:`_Socket`."""
    ours, theirs = socket.socketpair()
    adj = adjustments.Adjustments()
    listener = types.SimpleNamespace(pull_trigger=lambda: None,
                                     active_channels={}, adj=adj)
    conn = server._Channel(listener, ours, ('127.0.0.1', 1), adj, map={})
    conn.socket = _Socket()
    yield conn
    ours.close()
    theirs.close()


@pytest.fixture
def spills(monkeypatch):
    """The temporary files the buffers make."""
    made = []
    real = tempfile.TemporaryFile

    def temporary_file(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tempfile, 'TemporaryFile', temporary_file)
    return made


def test_an_answer_read_at_once_is_sent_from_its_bytes(connection, spills):
    body = bytes(range(256)) * 6000  # 1.5 MB, over outbuf_overflow
    assert connection.write_soon(body) == len(body)
    assert bytes(connection.socket.wire) == body
    # Views of it, as much as the socket's buffer takes a time.
    assert all(view.obj is body for view in connection.socket.given)
    assert not spills
    assert connection.total_outbufs_len == 0


def test_small_pieces_are_sent_together(connection):
    body = b'x' * server.GATHER_BYTES
    connection.write_soon(b'1F\r\n', b'{', body, b'}\r\n')
    assert connection.socket.given[0] == b'1F\r\n{'
    assert connection.socket.given[1].obj is body
    assert bytes(connection.socket.wire) == b'1F\r\n{' + body + b'}\r\n'


def _task(connection, status='200 OK', headers=()):
    """A task of ``GET /`` whose application answered ``status``."""
    request = server._Request(connection.adj)
    request.received(b'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    task = server._Task(connection, request)
    task.status = status
    task.response_headers = [('Content-Type', 'application/json'),
                             *headers]
    task.complete = True
    return task


def test_a_small_answer_is_one_send(connection):
    task = _task(connection, headers=[('Content-Length', '2')])
    task.write(b'{}')
    task.finish()
    assert len(connection.socket.given) == 1
    head, body = bytes(connection.socket.wire).split(b'\r\n\r\n', 1)
    assert head.startswith(b'HTTP/1.1 200 OK\r\n')
    assert b'Content-Length: 2' in head
    assert body == b'{}'
    assert connection.total_outbufs_len == 0


def test_the_head_of_an_answer_without_body_is_sent(connection):
    task = _task(connection, status='204 No Content')
    task.finish()
    assert bytes(connection.socket.wire).startswith(
        b'HTTP/1.1 204 No Content\r\n')
    assert bytes(connection.socket.wire).endswith(b'\r\n\r\n')
    assert connection.total_outbufs_len == 0


def test_the_loop_does_not_poll_to_send_what_the_task_sends(connection):
    """The loop would find the buffers' lock taken, and poll again at
    once, as long as the task's thread holds it."""
    seen = []
    connection.socket.on_send = lambda: seen.append(connection.writable())
    connection.requests = ['being served']
    task = _task(connection, headers=[('Content-Length', '2')])
    task.write(b'{}')
    connection.socket.room = 0
    connection.write_soon(b'more')
    assert seen and not any(seen)
    # What the socket did not take, the loop sends.
    assert connection.writable()


def test_a_streamed_chunk_is_framed_without_a_copy(connection):
    task = _task(connection)
    chunk = b'[' + b'1,' * 50000 + b'1]'
    task.write(chunk)
    task.write(b'[]')
    task.finish()
    wire = bytes(connection.socket.wire)
    head, body = wire.split(b'\r\n\r\n', 1)
    assert b'Transfer-Encoding: chunked' in head
    assert body == (b'%X\r\n' % len(chunk) + chunk + b'\r\n'
                    + b'2\r\n[]\r\n0\r\n\r\n')
    assert any(getattr(view, 'obj', None) is chunk
               for view in connection.socket.given)


def test_a_client_reading_little_at_a_time_gets_every_byte(connection):
    connection.socket.room = 1000
    pieces = [bytes([n]) * size for n, size in
              enumerate([7, 70_000, 2, 300_000, 9, 1, 900_000])]
    for piece in pieces:
        connection.write_soon(piece)
    while connection.total_outbufs_len:
        connection._flush_some()
    assert bytes(connection.socket.wire) == b''.join(pieces)


def test_an_unread_answer_waits_in_a_file_and_is_cut_in_time(
        connection, spills):
    connection.socket.room = 0
    overflow = connection.adj.outbuf_overflow
    pieces = [b'a' * (overflow // 2), b'b' * (overflow // 2), b'c' * 10]
    for piece in pieces:
        connection.write_soon(piece)
    assert len(spills) == 1
    assert connection.total_outbufs_len == sum(map(len, pieces))
    limits = types.SimpleNamespace(send_timeout=5)
    assert not connection.expired(limits, time.time())
    assert connection.expired(limits, time.time() + 6)
    # Read at last, the file gives what was written, in order.
    connection.socket.room = None
    while connection.total_outbufs_len:
        connection._flush_some()
    assert bytes(connection.socket.wire) == b''.join(pieces)
