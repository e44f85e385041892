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

import contextlib
import dataclasses
import logging
import os
import resource
import sys
import time

import webob
import webob.exc
from gunicorn.workers import base
from oslo_middleware import request_id
from waitress import adjustments
from waitress import channel
from waitress import parser
from waitress import server
from waitress import task
from waitress import utilities
from waitress import wasyncore

from placement import body_limit
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


class _Request(parser.HTTPRequestParser):
    """A request being read, which knows when its head ended."""

    head_ended = None

    def received(self, data):
        consumed = super().received(data)
        if self.headers_finished and self.head_ended is None:
            self.head_ended = time.time()
        return consumed


def _refusal(error, limits):
    """The API's error document (a webob Response, with a request id)
    for waitress's ``error``: a request it could not read or take."""

    def refuse(_req):
        detail = error.body
        if isinstance(error, utilities.RequestEntityTooLarge):
            detail = body_limit.too_large(limits.max_body_bytes)
        raise webob.exc.status_map[error.code](
            detail=detail, body_template='${detail}')

    stack = request_id.RequestId(wsgi_wrapper.PlacementWsgify(refuse))
    return webob.Request.blank('/').get_response(stack)


class _ErrorTask(task.ErrorTask):
    """Answers a malformed or too large request as the API answers bad
    input: JSON, not waitress's plain text."""

    def execute(self):
        response = _refusal(self.request.error, self.channel.server.limits)
        LOG.info('Refused a request from %s: %s %s', self.channel.addr[0],
                 response.status, self.request.error.body)
        self.status = response.status
        self.response_headers.extend(
            (name, value) for name, value in response.headerlist
            if name.lower() != 'content-length')
        self.set_close_on_finish()
        self.content_length = len(response.body)
        self.write(response.body)


class _Task(task.WSGITask):
    """waitress's task, but for the path: waitress makes ``//x`` (and
    ``/%2F``) ``/x``; here, as under gunicorn or uWSGI, the application
    gets the path as sent and decides what it names (nothing)."""

    def get_environment(self):
        environ = super().get_environment()
        if self.request.path.startswith('/'):
            environ['PATH_INFO'] = self.request.path
        return environ


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
            return now - self.last_activity > idle
        if request.head_ended is None:
            return now - self.head_began > limits.header_timeout
        return now - request.head_ended > limits.body_timeout

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
        socket_map = {}
        adj = self._adjustments()
        dispatcher = task.ThreadedTaskDispatcher()
        dispatcher.set_thread_count(self.cfg.threads)
        listeners = [
            _Listener(self.wsgi, socket_map, sock, dispatcher, adj,
                      self.limits)
            for sock in adj.sockets]
        _Wakeup(self.PIPE[0], socket_map)
        while self.alive and self._still_wanted(time.monotonic()):
            wasyncore.loop(timeout=CHECK_INTERVAL, use_poll=True,
                           map=socket_map, count=1)
        self._finish(listeners, socket_map)
        dispatcher.shutdown(timeout=1)
        wasyncore.close_all(socket_map)

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
            wasyncore.loop(timeout=0.1, use_poll=True, map=socket_map,
                           count=1)


def worker_class(limits):
    """The gunicorn worker class that serves within ``limits``."""
    return type('WaitressWorker', (Worker,), {'limits': limits})
