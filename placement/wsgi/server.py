"""The HTTP server of ``placement-api``: waitress inside gunicorn workers.

gunicorn's master manages the processes (SIGHUP reloads them gracefully,
SIGTERM stops them gracefully, a worker that stops answering its
heartbeat is replaced). In each worker, waitress reads every request,
head and body, in one event loop and hands only complete requests to the
threads that run the application: a client that sends its request
slowly, or not at all, holds a socket, never a thread. The loop closes a
connection whose client is too slow (:class:`ClientLimits`).

gunicorn's own threaded worker reads a request head in one of the
application's threads with a blocking socket: as many clients as threads
that send half a head and wait stop the service.
"""

import collections
import contextlib
import dataclasses
import itertools
import logging
import os
import re
import resource
import select
import socket
import sys
import time

import webob
import webob.exc
from gunicorn.workers import base
from oslo_middleware import request_id
from waitress import adjustments
from waitress import buffers
from waitress import channel
from waitress import parser
from waitress import server
from waitress import task
from waitress import utilities
from waitress import wasyncore

from placement import body_limit
from placement import client_text
from placement import context
from placement import wsgi_wrapper

LOG = logging.getLogger(__name__)

#: The longest request head (request line and headers) taken: a
#: scheduler's query naming many aggregates or traits is long (94 KB for
#: 2,000 aggregates), and upstream's deployments take it.
MAX_HEAD_BYTES = 256 * 1024
#: File descriptors a worker needs besides its clients' connections
#: (database connections, logs, pipes, spooled bodies).
SPARE_FILES = 64
#: How often (seconds) the loop checks its connections' deadlines.
CHECK_INTERVAL = 1
#: Leading small pieces of an answer gathered into one send(2).
GATHER_BYTES = 64 * 1024
#: What a request target may not hold (RFC 9112 3.2: it is a URI, whose
#: characters are all visible; the space ends it).
_CONTROLS = re.compile(r'[\x00-\x1f\x7f]')
_PAST_ASCII = re.compile(rb'[\x80-\xff]')
_LATER_HTTP_1 = re.compile(rb' HTTP/1\.[2-9](?=\s*$)')


@dataclasses.dataclass(frozen=True)
class ClientLimits:
    """What a client may take of a worker, in seconds and connections."""

    #: From connecting (or, on a kept-alive connection, from the first
    #: byte of the next request) to the end of the request head.
    header_timeout: float
    #: From the end of the head to the end of the body.
    body_timeout: float
    #: How long a client may leave its answer unread.
    send_timeout: float
    #: How long a kept-alive connection may stay idle between requests.
    keepalive_timeout: float
    #: Open connections per worker; past them it stops accepting.
    max_connections: int
    #: The largest request body, ``[oslo_middleware]
    #: max_request_body_size``: a larger one is answered 413 before it is
    #: read, as the application itself would answer it.
    max_body_bytes: int


class _VersionNotSupported(utilities.Error):
    code = 505
    reason = 'HTTP Version Not Supported'


class _Request(parser.HTTPRequestParser):
    """A request being read, which knows when its head ended.

    And which refuses (400, closing) what RFC 9112 says a server must
    not take as it is, and waitress takes: a body framed twice
    (Content-Length beside a chunked Transfer-Encoding, which waitress
    reads as chunked and keeps the connection), a Transfer-Encoding in
    an HTTP/1.0 request (which waitress ignores: the body was read as
    the next request), an HTTP/1.1 request without Host and one with
    two. A proxy in front that reads the body otherwise than this
    server does lets a client smuggle a request past it.

    And the request line's rules waitress does not apply: a request
    target holds no control character (waitress took any byte but the
    space), an HTTP version other than 1.x is answered 505 and a start
    line without one (HTTP/0.9) 400 (waitress served both as 1.0).
    """

    head_ended = None
    _version_refused = False

    def received(self, data):
        consumed = super().received(data)
        if self.headers_finished and self.head_ended is None:
            self.head_ended = time.time()
        if self._version_refused and self.error is not None:
            # waitress makes every ParsingError a 400.
            self.error = _VersionNotSupported(self.error.body)
        return consumed

    def parse_header(self, header_plus):
        start, crlf, rest = header_plus.partition(b'\r\n')
        super().parse_header(_as_served(start) + crlf + rest)
        self._check_start_line()
        if self.chunked and 'CONTENT_LENGTH' in self.headers:
            raise parser.ParsingError(
                'Content-Length and Transfer-Encoding given together')
        if 'TRANSFER_ENCODING' in self.headers:
            # waitress reads (and removes) it in HTTP/1.1 only.
            raise parser.ParsingError(
                f'Transfer-Encoding in an HTTP/{self.version} request')
        lines = parser.get_header_lines(rest)
        hosts = sum(line[:5].lower() == b'host:' for line in lines)
        if hosts > 1 or (hosts == 0 and self.version == '1.1'):
            raise parser.ParsingError(
                'Host is missing' if hosts == 0
                else 'Host given more than once')

    def _check_start_line(self):
        if _CONTROLS.search(self.request_uri):
            raise parser.ParsingError(
                'Control character in the request target')
        major = self.version.partition('.')[0]
        if not major:
            raise parser.ParsingError('Start line has no HTTP version')
        if major != '1':
            self._version_refused = True
            raise parser.ParsingError(
                f'HTTP/{self.version} is not served: HTTP/1.1 is')


def _as_served(start_line):
    """The start line as waitress is to read it: the request target's
    bytes past ASCII percent-encoded, as a browser sends them (waitress
    refused them, 400 Bad URI; a server in front of upstream passes them
    on; the application sees the same path and query either way), and a
    later HTTP/1.x read as 1.1 (RFC 9110 2.5; waitress served it as
    1.0)."""
    start_line = _PAST_ASCII.sub(lambda byte: b'%%%02X' % byte[0][0],
                                 start_line)
    return _LATER_HTTP_1.sub(b' HTTP/1.1', start_line)


def _refusal(error, limits):
    """The API's error document (a webob Response, with a request id)
    for waitress's ``error``: a request it could not read or take."""

    def refuse(_req):
        detail = error.body
        if isinstance(error, utilities.RequestEntityTooLarge):
            detail = body_limit.too_large(limits.max_body_bytes)
        raise webob.exc.status_map[error.code](
            detail=detail, body_template='${detail}')

    # The refusal's own request id in oslo.context's store: the log line
    # of the refusal carried the ids and user of the thread's last request.
    stack = request_id.RequestId(
        context.fresh_store(wsgi_wrapper.PlacementWsgify(refuse)))
    return webob.Request.blank('/').get_response(stack)


def _method(request):
    """The method of a request waitress refused: also when it refused
    a header before it read the start line (which it keeps)."""
    command = getattr(request, 'command', None)
    if command is None:
        command = getattr(request, 'first_line', b'').partition(b' ')[0]
        command = command.decode('latin-1')
    return command


class _ErrorTask(task.ErrorTask):
    """Answers a malformed or too large request as the API answers bad
    input: JSON, not waitress's plain text; to a HEAD, the head only
    (waitress sent its body: the client read it as the next answer).
    Its status line says HTTP/1.1, the server's version (RFC 9110 6.2),
    also when the request's own line was not read (waitress said 1.0)."""

    def __init__(self, channel, request):
        super().__init__(channel, request)
        self.version = '1.1'

    def execute(self):
        response = _refusal(self.request.error, self.channel.server.limits)
        # waitress's words quote the header line it refused.
        LOG.info('Refused a request from %s: %s %s', self.channel.addr[0],
                 response.status,
                 client_text.loggable(self.request.error.body))
        self.status = response.status
        self.response_headers.extend(
            (name, value) for name, value in response.headerlist
            if name.lower() != 'content-length')
        self.set_close_on_finish()
        self.content_length = len(response.body)
        self.write(b'' if _method(self.request) == 'HEAD' else response.body)


class _Task(task.WSGITask):
    """waitress's task, but for the path: waitress makes ``//x`` (and
    ``/%2F``) ``/x``; here, as under gunicorn or uWSGI, the application
    gets the path as sent and decides what it names (nothing).

    And a chunk of a streamed body is framed without copying it: waitress
    makes ``size + data + CRLF`` anew (two copies of the chunk). And the
    head is sent with the body's first piece.

    And an HTTP/1.1 connection is kept alive after a chunked answer.
    """

    def build_response_header(self):
        """waitress's head, without its rule that closes an HTTP/1.1
        connection after every answer without Content-Length: a chunked
        body ends with its last chunk, so the client knows where the next
        answer begins (nova's scheduler reconnected after every streamed
        candidates answer). Every other reason to close stays, and says
        so in the head (``Connection: close``): HTTP/1.0, the client's
        ``Connection: close``, a HEAD (waitress would send a last chunk
        the client does not expect). A stream that breaks after its head
        is still cut: waitress's channel closes the connection, the last
        chunk never sent. (Refusals are ``_ErrorTask``'s: they close.)
        """
        if self.version != '1.1' or self.request.command == 'HEAD':
            return super().build_response_header()
        # waitress's rule applies only to a task not closing already;
        # every other reason to close adds the header.
        self.close_on_finish = True
        try:
            return super().build_response_header()
        finally:
            self.close_on_finish = (
                ('Connection', 'close') in self.response_headers)

    def get_environment(self):
        environ = super().get_environment()
        if self.request.path.startswith('/'):
            environ['PATH_INFO'] = self.request.path
        return environ

    def write(self, data):
        if self.wrote_header:
            self._write_body(data)
            return
        # The head, which decides whether the body is chunked, waits for
        # the body's first piece: one send(2) and one packet for both
        # (waitress sends the head alone, then the body).
        self.channel.holding = True
        try:
            super().write(b'')
        finally:
            self.channel.holding = False
        self._write_body(data)
        if self.channel.total_outbufs_len:
            # A head without a body (a 204, a HEAD, an empty body), or
            # what the socket did not take.
            self.channel.write_soon()

    def _write_body(self, data):
        if data and self.chunked_response and self.has_body:
            self.channel.write_soon(
                b'%X\r\n' % len(data), data, b'\r\n')
        elif data:
            super().write(data)


class _Outbuf:
    """What a connection has to send, kept as it was written.

    waitress's buffer (``OverflowableBuffer``) copies every piece of an
    answer into a BytesIO and copies it out again to send it, and past
    ``outbuf_overflow`` (1 MB) moves it all into a temporary file: a
    1.5 MB answer cost its worker a third of its CPU besides making it.
    Here the pieces are held as they are and sent from memoryviews; the
    bound on memory is waitress's: once more than ``overflow`` bytes
    still wait after a write was sent as far as the socket took it (a
    client reading slower than the answer is made), they go to a
    temporary file (:meth:`bound`), as before.
    """

    def __init__(self, overflow):
        self._overflow = overflow
        self._pieces = collections.deque()
        #: Bytes of the first piece already sent.
        self._sent = 0
        self._length = 0
        #: The file the buffer spilled to, once it has.
        self._file = None

    def __len__(self):
        if self._file is not None:
            return len(self._file)
        return self._length

    def append(self, data):
        if self._file is not None:
            self._file.append(data)
            return
        self._pieces.append(data)
        self._length += len(data)

    def bound(self):
        """Past ``overflow`` bytes waiting, move them to a temporary file
        (called once what could be sent at once was)."""
        if self._file is not None or self._length <= self._overflow:
            return
        self._file = buffers.TempfileBasedBuffer()
        while self._pieces:
            self._file.append(self._first())
            self._pieces.popleft()
            self._sent = 0
        self._length = 0

    def get(self, numbytes=-1, skip=False):
        """Up to ``numbytes`` from the start: the first piece (a view of
        it), or several small ones joined (one send instead of many)."""
        if self._file is not None:
            return self._file.get(numbytes, skip)
        if skip:
            raise NotImplementedError('waitress only skips what it sent')
        if numbytes < 0:
            numbytes = self._length
        first = self._first()
        if len(self._pieces) == 1 or len(first) >= GATHER_BYTES:
            return first[:numbytes]
        gathered, size = [first], len(first)
        for piece in itertools.islice(self._pieces, 1, None):
            if size + len(piece) > min(numbytes, GATHER_BYTES):
                break
            gathered.append(piece)
            size += len(piece)
        return b''.join(gathered)[:numbytes]

    def skip(self, numbytes, allow_prune=False):
        if self._file is not None:
            self._file.skip(numbytes, allow_prune)
            return
        if numbytes > self._length:
            raise ValueError(f'cannot skip {numbytes} of {self._length} '
                             'bytes')
        self._length -= numbytes
        while numbytes:
            left = len(self._pieces[0]) - self._sent
            if numbytes < left:
                self._sent += numbytes
                return
            numbytes -= left
            self._pieces.popleft()
            self._sent = 0

    def close(self):
        if self._file is not None:
            self._file.close()
        self._pieces.clear()
        self._sent = self._length = 0

    def _first(self):
        return memoryview(self._pieces[0])[self._sent:]


class _Channel(channel.HTTPChannel):
    """A connection that knows since when its client owes it what.

    waitress's own check closes a connection after a time without any
    byte, which a client sending one byte now and then never reaches.
    """

    parser_class = _Request
    task_class = _Task
    error_task_class = _ErrorTask
    #: When the head of the request being read began to be owed.
    head_began = None
    #: Whether a request of this connection was served (kept alive).
    served = False
    #: Whether the task's thread is in :meth:`write_soon`, past waiting.
    task_writing = False
    #: Whether :meth:`write_soon` only queues (set by the task's thread).
    holding = False

    def __init__(self, server, sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map)
        self.outbufs = [_Outbuf(adj.outbuf_overflow)]

    def writable(self):
        """waitress's, but not while the task's thread is queuing and
        sending (:meth:`write_soon`): it holds the buffers' lock, and
        the loop, told the socket is writable at every turn, tried the
        lock and polled again, hundreds of turns a request while that
        thread waited for a CPU and the GIL. The thread sends what it
        queued itself, and wakes the loop for what the socket did not
        take."""
        return not self.task_writing and super().writable()

    def write_soon(self, *pieces):
        """waitress's ``write_soon``, of several pieces at once and into
        an :class:`_Outbuf`: queued, then sent as far as the socket
        takes them now (the loop sends the rest), unless ``holding``.
        Without pieces: sends what is queued."""
        if not self.connected:
            # The task stops making an answer nobody reads.
            raise channel.ClientDisconnected
        size = sum(len(piece) for piece in pieces)
        # The loop may be sending from the buffers: this (task) thread
        # may wait for it.
        with self.outbuf_lock:
            self._flush_outbufs_below_high_watermark()
            if not self.connected:
                raise channel.ClientDisconnected
            self.task_writing = True
            try:
                self._queue(pieces, size)
                if not self.holding:
                    self._send_queued()
            finally:
                self.task_writing = False
            self.outbufs[-1].bound()
        return size

    def _queue(self, pieces, size):
        if not size:
            return
        if isinstance(pieces[0], buffers.ReadOnlyFileBasedBuffer):
            # wsgi.file_wrapper: sent from its file.
            self.outbufs.append(pieces[0])
            self.outbufs.append(_Outbuf(self.adj.outbuf_overflow))
            self.current_outbuf_count = 0
        else:
            if self.current_outbuf_count >= self.adj.outbuf_high_watermark:
                # A new answer (waitress's service() sets the count so),
                # or a long one: a new buffer, so that a kept-alive
                # connection's buffer is let go.
                self.outbufs.append(_Outbuf(self.adj.outbuf_overflow))
                self.current_outbuf_count = 0
            for piece in pieces:
                self.outbufs[-1].append(piece)
            self.current_outbuf_count += size
        self.total_outbufs_len += size

    def _send_queued(self):
        """Send from the task's thread; the loop sends the rest."""
        if self.total_outbufs_len >= self.adj.send_bytes:
            flushed, exception = self._flush_exception(
                self._flush_some, do_close=False)
            if (exception or not flushed
                    or self.total_outbufs_len >= self.adj.send_bytes):
                self.server.pull_trigger()

    def received(self, data):
        if self.request is None:
            # The first request is owed since the client connected; the
            # next ones since their first byte.
            self.head_began = time.time() if self.served else (
                self.creation_time)
        return super().received(data)

    def service(self):
        self.served = True
        super().service()

    def send_continue(self):
        """waitress's ``100 Continue``, only for a body still to read.

        waitress sends it for any request that asks, and then waits for
        a body: a request without one (a GET, ``Content-Length: 0``), or
        one already refused on its head (a body over the limit), was
        answered only when its body timeout closed the connection.
        """
        if self.request.completed:
            self.request.expect_continue = False
            return
        super().send_continue()

    def expired(self, limits, now):
        """Whether the client has been too slow for ``limits``."""
        if self.total_outbufs_len:
            return now - self.last_activity > limits.send_timeout
        if self.requests:
            return False  # being served
        request = self.request
        if request is None:
            idle = limits.keepalive_timeout if self.served else (
                limits.header_timeout)
            return now - self.last_activity > idle and not self._unread()
        if request.head_ended is None:
            return now - self.head_began > limits.header_timeout
        return now - request.head_ended > limits.body_timeout

    def _unread(self):
        """Whether the client sent bytes the loop has not read yet: a
        request that arrived as the connection's idle time ran out is
        served, not cut (its client would see the connection closed
        without an answer; the simulated cloud counted one in 230,000
        requests)."""
        try:
            return bool(self.socket.recv(
                1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except OSError:
            return False  # nothing waiting

    def idle(self):
        """Whether nothing but its client can change what the loop
        polls it for (readable, not writable): no request being served,
        no answer waiting, not closing. ``requests`` is read first: a
        task empties it after it set ``close_when_flushed``."""
        return not (self.requests or self.total_outbufs_len
                    or self.will_close or self.close_when_flushed)

    def stoppable(self):
        """Whether a stopping worker may close it at once: nothing being
        served or answered, and no request past its head (a client
        retries a request the server never had)."""
        return (not self.requests and not self.total_outbufs_len
                and (self.request is None
                     or self.request.head_ended is None))


#: The environ key of the port a request came in on: unlike SERVER_PORT
#: behind a proxy, or a Host header, the client cannot choose it.
LOCAL_PORT = 'placement.local_port'


class _Listener(server.TcpWSGIServer):
    """Accepts on a socket gunicorn's master bound, closes slow clients."""

    channel_class = _Channel

    def __init__(self, application, socket_map, sock, dispatcher, adj,
                 limits):
        self.limits = limits
        port = sock.getsockname()[1]

        def on_this_port(environ, start_response):
            environ[LOCAL_PORT] = port
            return application(environ, start_response)

        super().__init__(
            on_this_port, socket_map, _sock=sock, dispatcher=dispatcher,
            adj=adj, bind_socket=False,
            sockinfo=(sock.family, sock.type, sock.proto,
                      sock.getsockname()))

    def maintenance(self, now):
        for conn in list(self.active_channels.values()):
            if conn.expired(self.limits, now):
                conn.will_close = True
                self._map.watch(conn._fileno)
                # The loop closes a connection once its socket is
                # writable or hung up: a client that stopped reading
                # leaves it full, and its answer's thread waiting,
                # until shut down here.
                with contextlib.suppress(OSError):
                    conn.socket.shutdown(socket.SHUT_RDWR)


class Dispatchers(dict):
    """The worker's socket map (descriptor: wasyncore dispatcher), and
    its loop: :meth:`poll` is one turn of wasyncore's ``poll2``, without
    its cost per open connection.

    ``poll2`` makes a poll object at each turn and asks every dispatcher
    whether it is readable and writable, several turns a request: a
    worker holding a thousand idle kept-alive connections (computes
    whose next request is a minute away, until ``keepalive_timeout``)
    spent 0.6 ms of CPU a request on them. Here the poll object is kept
    and a connection is asked again only when something may have
    changed its answer: it is new, an event came on its socket, a
    request of it is being served or its answer waits to be sent (it is
    asked at each turn until neither), or the maintenance is closing
    it. An idle connection's answer (readable, not writable) changes
    only by one of these. The other dispatchers (the listeners, the
    triggers) are asked at each turn, as by ``poll2``.

    The wait is epoll's where the kernel has it (Linux): poll(2) looks
    at every descriptor registered at each turn, the idle ones too
    (:func:`_poller`).
    """

    def __init__(self):
        super().__init__()
        self._poll, self._timeout_unit = _poller()
        #: The flags each descriptor is registered with.
        self._registered = {}
        #: The connections to ask at the next turn.
        self._watched = set()
        #: The other dispatchers' descriptors.
        self._others = set()

    def __setitem__(self, fd, dispatcher):
        if self._registered.pop(fd, None) is not None:
            # The descriptor of a dispatcher that closed it without
            # leaving the map, taken again: registered anew.
            self._unregister(fd)
        super().__setitem__(fd, dispatcher)
        if isinstance(dispatcher, _Channel):
            self._watched.add(fd)
        else:
            self._others.add(fd)

    def __delitem__(self, fd):
        super().__delitem__(fd)
        self._watched.discard(fd)
        self._others.discard(fd)
        if self._registered.pop(fd, None) is not None:
            self._unregister(fd)

    def watch(self, fd):
        """Ask the connection of ``fd`` again at the next turn."""
        if fd in self and fd not in self._others:
            self._watched.add(fd)

    def poll(self, timeout):
        """One turn: wait up to ``timeout`` seconds for events, and hand
        them to their dispatchers as ``poll2`` does."""
        for fd in [*self._others, *self._watched]:
            dispatcher = self.get(fd)
            if dispatcher is None:
                continue
            if fd in self._watched and dispatcher.idle():
                # Before its flags: a task's thread makes a connection
                # idle, never busy again.
                self._watched.discard(fd)
            flags = 0
            if dispatcher.readable():
                flags |= select.POLLIN | select.POLLPRI
            # Accepting sockets should not be writable (poll2's rule).
            if dispatcher.writable() and not dispatcher.accepting:
                flags |= select.POLLOUT
            self._register(fd, flags)
        for fd, flags in self._poll.poll(timeout * self._timeout_unit):
            dispatcher = self.get(fd)
            if dispatcher is None:
                continue
            self.watch(fd)
            wasyncore.readwrite(dispatcher, flags)

    def _register(self, fd, flags):
        registered = self._registered.get(fd)
        if registered == flags or (registered is None and not flags):
            return
        if not flags:
            # Not polled at all, as by poll2: not even for a hang-up.
            del self._registered[fd]
            self._unregister(fd)
        elif registered is None:
            self._registered[fd] = flags
            self._poll.register(fd, flags)
        else:
            self._registered[fd] = flags
            self._poll.modify(fd, flags)

    def _unregister(self, fd):
        # A descriptor closed while registered has left epoll's set by
        # itself (unregistering it is EBADF); poll's keeps it.
        with contextlib.suppress(OSError):
            self._poll.unregister(fd)

    def close(self):
        """Release the wait's descriptor (epoll's)."""
        close = getattr(self._poll, 'close', None)
        if close is not None:
            close()


def _poller():
    """``(object, timeout unit)``: an epoll object (Linux) or a poll
    one, both with ``register``, ``modify``, ``unregister`` and ``poll``
    and the same event bits; epoll's timeout is in seconds, poll's in
    milliseconds.

    At 390 requests/s of computes each connection stays open
    ``keepalive_timeout`` after its request: a worker holds hundreds of
    idle ones, which poll(2) scanned at every turn of the loop, several
    turns a request: with 1,000 of them the kernel's time per request
    was 0.57-0.85 ms, and is 0.08-0.11 ms with epoll, whose wait costs
    what is ready (``tools/results/2026-12-05-epoll.rst``).
    """
    if hasattr(select, 'epoll'):
        return select.epoll(), 1
    return select.poll(), 1000


class _Wakeup(wasyncore.file_dispatcher):
    """Reads the pipe gunicorn's signal handling writes to, so that the
    loop wakes up at once on SIGTERM or SIGQUIT."""

    def writable(self):
        return False

    def handle_read(self):
        # The pipe is non-blocking: drained, it raises.
        with contextlib.suppress(BlockingIOError):
            while self.recv(512):
                pass


class Worker(base.Worker):
    """A gunicorn worker serving through waitress; see the module doc.

    Subclassed by :func:`worker_class` with the :class:`ClientLimits`.
    """

    limits = None

    def init_process(self):
        self._open_enough_files()
        # waitress warns whenever more requests are ready than idle
        # threads, which is every burst, not a fault.
        logging.getLogger('waitress.queue').setLevel(logging.ERROR)
        super().init_process()

    def handle_exit(self, sig, frame):
        """SIGTERM: a worker still loading the application (waiting for
        its database, say) has nothing in progress, and stops at once
        rather than when the master's graceful timeout kills it."""
        super().handle_exit(sig, frame)
        if not self.booted:
            sys.exit(0)

    def _open_enough_files(self):
        """Raise the soft limit of open files to what
        ``max_connections`` needs, as far as the hard limit allows."""
        wanted = self.limits.max_connections + SPARE_FILES
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY or soft >= wanted:
            return
        if hard != resource.RLIM_INFINITY:
            wanted = min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))

    def _connection_limit(self):
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if (soft != resource.RLIM_INFINITY
                and soft - SPARE_FILES < self.limits.max_connections):
            LOG.warning('Only %d connections per worker: the limit of open '
                        'files is %d', soft - SPARE_FILES, soft)
            return max(1, soft - SPARE_FILES)
        return self.limits.max_connections

    def _adjustments(self):
        return adjustments.Adjustments(
            sockets=[listener.sock for listener in self.sockets],
            threads=self.cfg.threads,
            backlog=self.cfg.backlog,
            connection_limit=self._connection_limit(),
            cleanup_interval=CHECK_INTERVAL,
            max_request_header_size=MAX_HEAD_BYTES,
            # waitress refuses a body of its limit; the application a
            # body over it.
            max_request_body_size=self.limits.max_body_bytes + 1,
            # The application has its own request log and error pages.
            ident=None,
            expose_tracebacks=False,
            # X-Forwarded-* are for [oslo_middleware]
            # enable_proxy_headers_parsing to trust or not.
            clear_untrusted_proxy_headers=False,
            # poll(2): no limit of 1,024 descriptors as with select(2).
            asyncore_use_poll=True,
        )

    def run(self):
        socket_map = Dispatchers()
        adj = self._adjustments()
        dispatcher = task.ThreadedTaskDispatcher()
        dispatcher.set_thread_count(self.cfg.threads)
        listeners = [
            _Listener(self.wsgi, socket_map, sock, dispatcher, adj,
                      self.limits)
            for sock in adj.sockets]
        _Wakeup(self.PIPE[0], socket_map)
        while self.alive and self._still_wanted(time.monotonic()):
            socket_map.poll(CHECK_INTERVAL)
        self._finish(listeners, socket_map)
        dispatcher.shutdown(timeout=1)
        wasyncore.close_all(socket_map)
        socket_map.close()

    #: When the master was last told that this worker is alive.
    _told_alive = None

    def _still_wanted(self, now):
        """Tell gunicorn's master that this worker is alive, at most once
        per CHECK_INTERVAL, and whether the master is still there.

        The master replaces a worker silent for its timeout (30 s): each
        turn of the loop told it (a file's ``utime``, and a
        ``getppid``), and a request takes several turns.
        """
        if (self._told_alive is not None
                and now - self._told_alive < CHECK_INTERVAL):
            return True
        self._told_alive = now
        self.notify()
        if self.ppid != os.getppid():
            self.log.info('Parent changed, shutting down: %s', self)
            return False
        return True

    def _finish(self, listeners, socket_map):
        """Stop accepting, and serve what is in progress until done or
        until the graceful timeout; other connections are closed as
        soon as they are stoppable."""
        for listener in listeners:
            listener.accepting = False
        deadline = time.monotonic() + max(1, self.cfg.graceful_timeout - 1)
        while time.monotonic() < deadline:
            busy = False
            for listener in listeners:
                for conn in list(listener.active_channels.values()):
                    if conn.stoppable():
                        conn.handle_close()
                    else:
                        busy = True
            if not busy:
                return
            self.notify()
            socket_map.poll(0.1)


def worker_class(limits):
    """The gunicorn worker class that serves within ``limits``."""
    return type('WaitressWorker', (Worker,), {'limits': limits})
