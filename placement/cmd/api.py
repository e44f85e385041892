"""placement-api: serve the API under gunicorn (threads and processes).

    placement-api [--host 127.0.0.1] [--port 8778] [--workers 2]
                  [--threads 8] [--dev] [--config-file PATH]

``--dev`` is for trying the service out: no keystone (noauth2), an SQLite
database file in the current directory whose schema is created on start.
Options given in a config file still win over these defaults.
"""

import logging
import os
import sys

from gunicorn.app import base as gunicorn_base
from oslo_config import cfg

from placement.conf import loading
from placement.metrics import multiprocess

LOG = logging.getLogger(__name__)

_DEV_DATABASE = 'placement.sqlite'

_cli_opts = [
    cfg.HostAddressOpt('host', default='127.0.0.1',
                       help='Address to listen on.'),
    cfg.PortOpt('port', default=8778, help='Port to listen on.'),
    cfg.IntOpt('workers', default=2, min=1, help='Worker processes.'),
    cfg.IntOpt('threads', default=8, min=1, help='Threads per worker.'),
    cfg.BoolOpt('dev', default=False,
                help='Development mode: noauth2 and an SQLite database in '
                     f'./{_DEV_DATABASE}, created on start.'),
]


class _Server(gunicorn_base.BaseApplication):
    def __init__(self, conf, deploy):
        self.conf = conf
        self.deploy = deploy
        super().__init__()

    def load_config(self):
        binds = [f'{self.conf.host}:{self.conf.port}']
        if self.conf.metrics.listen_port is not None:
            binds.append(f'{self.conf.metrics.listen_host}:'
                         f'{self.conf.metrics.listen_port}')
        self.cfg.set('bind', binds)
        self.cfg.set('child_exit', lambda _arbiter, worker: (
            multiprocess.worker_exited(worker.pid)))
        self.cfg.set('workers', self.conf.workers)
        self.cfg.set('threads', self.conf.threads)
        self.cfg.set('worker_class', 'gthread')
        self.cfg.set('accesslog', None)
        # A scheduler's query naming many aggregates or traits runs past
        # gunicorn's 4,094-byte request line; upstream's servers take it
        # (devstack's uWSGI a 64 KiB buffer). 0: no limit of gunicorn's.
        self.cfg.set('limit_request_line', 0)

    def load(self):
        return self.deploy.loadapp(self.conf)


def _set_dev_defaults(conf):
    path = os.path.abspath(_DEV_DATABASE)
    conf.set_default('auth_strategy', 'noauth2', group='api')
    conf.set_default('connection', f'sqlite:///{path}',
                     group='placement_database')
    conf.set_default('sync_on_startup', True, group='placement_database')


def main(argv=None):
    conf = loading.new_conf()
    conf.register_cli_opts(_cli_opts)
    argv = sys.argv[1:] if argv is None else argv
    if '--dev' in argv:
        _set_dev_defaults(conf)
    loading.parse(conf, argv)
    clean_up = multiprocess.prepare()
    try:
        # Imported once the metrics know they are shared by the workers.
        from placement import deploy

        # Fail here, once and loudly, rather than in every worker.
        deploy.prepare_database(conf).dispose()
        multiprocess.forget_this_process()
        LOG.info('Metrics of the workers are in %s', os.environ[
            multiprocess.ENV])
        _Server(conf, deploy).run()
    finally:
        clean_up()
    return 0
