"""Building the ConfigOpts of a process: WSGI app or command."""

import os

from oslo_config import cfg
from oslo_log import log as logging

from placement import conf as placement_conf

CONFIG_DIR_ENV = 'OS_PLACEMENT_CONFIG_DIR'


def default_config_files():
    """``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` when that is set.

    Otherwise None, which lets oslo.config search its standard locations
    (``~/.placement/``, ``/etc/placement/``, ...) for ``placement.conf``.
    """
    config_dir = os.environ.get(CONFIG_DIR_ENV)
    if not config_dir:
        return None
    path = os.path.join(config_dir, 'placement.conf')
    return [path] if os.path.exists(path) else []


def new_conf():
    """A ConfigOpts with every option of the service registered."""
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    # Without a log file oslo.log would log to stdout, mixing log lines
    # into command output (``placement-manage db version``); stderr is
    # where commands and WSGI servers are expected to log.
    conf.set_default('use_stderr', True)
    return conf


def parse(conf, argv, default_files=None):
    """Parse ``argv`` and the config files, then set up logging."""
    conf(argv, project='placement',
         default_config_files=(default_files if default_files is not None
                               else default_config_files()))
    logging.setup(conf, 'placement')
    return conf
