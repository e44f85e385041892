"""placement-api: serve the API (gunicorn's master, waitress in each worker).

    placement-api [--host 127.0.0.1] [--port 8778] [--workers N]
                  [--threads 8] [--header-timeout 20] [--body-timeout 60]
                  [--send-timeout 60] [--keepalive-timeout 5]
                  [--max-connections 1000] [--graceful-timeout 30]
                  [--dev] [--config-file PATH]

It stays in the foreground. SIGHUP reads the configuration files again
and replaces the workers gracefully; SIGTERM stops accepting, lets the
requests in progress finish (``--graceful-timeout``) and exits 0; SIGINT
(Ctrl-C) and SIGQUIT stop at once.
See :mod:`placement.wsgi.server` for how slow clients are kept out.

``--dev`` is for trying the service out: no keystone (noauth2), an SQLite
database file in the current directory whose schema is created on start.
Options given in a config file still win over these defaults.

An address it cannot listen on stops it at once, in one line: exit
status 75 (EX_TEMPFAIL, as an unreachable database) when another process
listens there, since it may be a server still stopping; 78 (EX_CONFIG)
for any other reason (an address of no interface of this host, a port
that needs privileges).
"""

import errno
import gc
import logging
import os
import signal
import socket
import sys

from gunicorn import util as gunicorn_util
from gunicorn.app import base as gunicorn_base
from oslo_config import cfg

from placement import fatal
from placement.conf import loading
from placement.metrics import multiprocess
from placement.wsgi import server

LOG = logging.getLogger(__name__)

_DEV_DATABASE = 'placement.sqlite'
#: Worker processes at most by default: each holds its own database
#: pool and copy of the application; past this, run more hosts.
MAX_DEFAULT_WORKERS = 8

_cli_opts = [
    cfg.HostAddressOpt('host', default='127.0.0.1',
                       help='Address to listen on.'),
    cfg.PortOpt('port', default=8778, help='Port to listen on.'),
    cfg.IntOpt('workers', min=1,
               sample_default=f'CPUs, at most {MAX_DEFAULT_WORKERS}',
               help='Worker processes. Default: one per CPU this process '
                    f'may run on, at most {MAX_DEFAULT_WORKERS}.'),
    cfg.IntOpt('threads', default=8, min=1,
               help='Threads per worker that run the application. They '
                    'get complete requests only: each worker reads '
                    'requests and writes answers in its own event loop. '
                    'Unless [placement_database] max_pool_size is set, '
                    'each worker keeps as many database connections.'),
    cfg.FloatOpt('header-timeout', default=20, min=0.1,
                 help='Seconds a client has to send a complete request '
                      'head (request line and headers), counted from '
                      'connecting, or, on a kept-alive connection, from '
                      'the first byte of the next request. The '
                      'connection is closed then.'),
    cfg.FloatOpt('body-timeout', default=60, min=0.1,
                 help='Seconds a client has to send a request body, '
                      'counted from the end of its head. The connection '
                      'is closed then.'),
    cfg.FloatOpt('send-timeout', default=60, min=0.1,
                 help='Seconds a client may leave its answer unread '
                      '(nothing of it sent) before the connection is '
                      'closed.'),
    cfg.FloatOpt('keepalive-timeout', default=5, min=0.1,
                 help='Seconds a kept-alive connection may stay idle '
                      'between two requests before it is closed.'),
    cfg.IntOpt('max-connections', default=1000, min=1,
               help='Open connections per worker, slow and idle ones '
                    'included; a worker with as many stops accepting '
                    'until one closes. The limit of open files is '
                    'raised to match, as far as its hard limit allows.'),
    cfg.IntOpt('graceful-timeout', default=30, min=1,
               help='Seconds SIGTERM and SIGHUP give the requests in '
                    'progress to finish before their worker is killed.'),
    cfg.BoolOpt('dev', default=False,
                help='Development mode: noauth2 and an SQLite database in '
                     f'./{_DEV_DATABASE}, created on start.'),
]


def _bind(host, port):
    """gunicorn's address of ``host`` (IPv6 in brackets) and ``port``."""
    return f'[{host}]:{port}' if ':' in host else f'{host}:{port}'


def _listeners(conf):
    """``(host, port, host option, port option)`` of each address to
    listen on."""
    yield conf.host, conf.port, '--host', '--port'
    if conf.metrics.listen_port is not None:
        yield (conf.metrics.listen_host, conf.metrics.listen_port,
               '[metrics] listen_host', '[metrics] listen_port')


def _check_can_listen(host, port, host_option, port_option):
    """A FatalError unless ``host:port`` can be bound now.

    gunicorn would try five times, a second apart, log each failure and
    exit 1. The socket is bound as gunicorn binds it (``SO_REUSEADDR``:
    the closing connections of a server just stopped do not count; an
    IPv6 address on an IPv6 socket; a host name resolved by ``bind``)
    and closed before gunicorn binds it.
    """
    address = _bind(host, port)
    family = (socket.AF_INET6 if gunicorn_util.is_ipv6(host)
              else socket.AF_INET)
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise fatal.AddressInUse(
                f'cannot listen on {address}: another process is '
                f'listening there; stop it or choose another '
                f'{port_option}') from None
        raise fatal.ConfigurationError(
            f'cannot listen on {address} ({host_option}, {port_option}): '
            f'{exc.strerror or exc}') from None


def _listeners_inherited():
    """Whether gunicorn takes its listening sockets bound already: from
    the master it replaces (SIGUSR2 re-executes it with ``GUNICORN_PID``
    and ``GUNICORN_FD``) or from systemd's socket activation
    (``LISTEN_FDS`` for this process). Their addresses are then in use
    by design."""
    return (os.environ.get('LISTEN_PID') == str(os.getpid())
            or {'GUNICORN_PID', 'GUNICORN_FD'} <= os.environ.keys())


def default_workers():
    """One per CPU this process may run on, at most MAX_DEFAULT_WORKERS."""
    return min(len(os.sched_getaffinity(0)), MAX_DEFAULT_WORKERS)


class _Server(gunicorn_base.BaseApplication):
    """gunicorn's master with the workers of :mod:`placement.wsgi.server`.

    Nothing of it is shared with another instance on the host: no
    control socket (manage it with signals), no pid file.
    """

    def __init__(self, conf, deploy):
        self.conf = conf
        self.deploy = deploy
        super().__init__()

    def load_config(self):
        conf = self.conf
        self.cfg.set('bind', [_bind(host, port)
                              for host, port, *_options in _listeners(conf)])
        self.cfg.set('child_exit', lambda _arbiter, worker: (
            multiprocess.worker_exited(worker.pid)))
        self.cfg.set('workers', conf.workers or default_workers())
        self.cfg.set('threads', conf.threads)
        self.cfg.set('worker_class', server.worker_class(server.ClientLimits(
            header_timeout=conf.header_timeout,
            body_timeout=conf.body_timeout,
            send_timeout=conf.send_timeout,
            keepalive_timeout=conf.keepalive_timeout,
            max_connections=conf.max_connections,
            max_body_bytes=conf.oslo_middleware.max_request_body_size)))
        self.cfg.set('graceful_timeout', conf.graceful_timeout)
        self.cfg.set('accesslog', None)
        # gunicorn 24 and later listen on one control socket per user
        # (~/.gunicorn/gunicorn.ctl): a second instance took it over.
        if 'control_socket_disable' in self.cfg.settings:
            self.cfg.set('control_socket_disable', True)

    def reload(self):
        """SIGHUP: the configuration files again, for the new workers."""
        self.conf.reload_config_files()
        super().reload()

    def load(self):
        """The application, its objects then left out of the cycle
        collector's passes (``gc.freeze``).

        A worker holds about 130,000 tracked objects once loaded
        (modules, the schema, the policy rules) that live as long as it
        does; every full collection walked them all, 80 ms of CPU that
        stopped every thread of the worker (200-260 ms of wall time on
        a loaded machine), found nothing to free, and made those
        requests the simulated cloud's slowest. Frozen, a full
        collection walks only what was made since.
        """
        application = self.deploy.loadapp(self.conf)
        gc.freeze()
        return application


def _size_database_pool(conf):
    """A database connection kept per thread, unless ``[placement_database]
    max_pool_size`` says otherwise.

    SQLAlchemy's default pool keeps 5 and opens the others it lends
    (``max_overflow``) for one use: with 8 threads busy, a request in
    three or four opened and closed a connection of its own, and PyMySQL
    spends about 20 ms of CPU opening one (it makes a TLS context each
    time), more than the request itself.
    """
    conf.set_default('max_pool_size', conf.threads,
                     group='placement_database')


def _set_dev_defaults(conf):
    path = os.path.abspath(_DEV_DATABASE)
    conf.set_default('auth_strategy', 'noauth2', group='api')
    conf.set_default('connection', f'sqlite:///{path}',
                     group='placement_database')
    conf.set_default('sync_on_startup', True, group='placement_database')


def _stop_while_starting(signum, frame):
    """SIGTERM before gunicorn's master takes the signals over (while
    the database is checked or waited for): stop as it would later,
    with status 0 and what start-up made removed, rather than die at
    once and leave the metrics' directory behind."""
    sys.exit(0)


@fatal.exits_cleanly()
def main(argv=None):
    signal.signal(signal.SIGTERM, _stop_while_starting)
    conf = loading.new_conf()
    conf.register_cli_opts(_cli_opts)
    argv = sys.argv[1:] if argv is None else argv
    if '--dev' in argv:
        _set_dev_defaults(conf)
    clean_up = multiprocess.prepare()
    try:
        # Imported once the metrics know they are shared by the workers,
        # and before logging is set up: alembic logs its plugins as it
        # loads.
        from placement import deploy

        loading.parse(conf, argv)
        _size_database_pool(conf)
        if not _listeners_inherited():
            for listener in _listeners(conf):
                _check_can_listen(*listener)
        # Fail here, once and in one line, rather than in every worker.
        deploy.check(conf)
        multiprocess.forget_this_process()
        LOG.info('Metrics of the workers are in %s', os.environ[
            multiprocess.ENV])
        _Server(conf, deploy).run()
    finally:
        clean_up()
    return 0
