"""Building the ConfigOpts of a process: WSGI app or command."""

import contextlib
import importlib.metadata
import io
import logging as std_logging
import os
import re
import sys

from oslo_config import cfg
from oslo_log import log as logging

from placement import conf as placement_conf
from placement import fatal
from placement.conf import unknown

CONFIG_DIR_ENV = 'OS_PLACEMENT_CONFIG_DIR'
#: The distribution the commands belong to (pyproject.toml).
DISTRIBUTION = 'placement-service'
LOG = std_logging.getLogger(__name__)


def default_config_files():
    """``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` when that is set.

    Otherwise None, which lets oslo.config search its standard locations
    (``~/.placement/``, ``/etc/placement/``, ...) for ``placement.conf``.
    A directory that does not exist is a ConfigurationError.
    """
    config_dir = os.environ.get(CONFIG_DIR_ENV)
    if not config_dir:
        return None
    if not os.path.isdir(config_dir):
        raise fatal.ConfigurationError(
            f'{CONFIG_DIR_ENV}={config_dir}: no such directory (it should '
            f'hold placement.conf)')
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


def _installed_version():
    """The installed distribution's version, which ``--version`` prints;
    None (no ``--version``) for code run from a checkout not installed
    (``PYTHONPATH=.``)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def parse(conf, argv, default_files=None):
    """Parse ``argv`` and the config files, then set up logging.

    A file that is missing or does not parse, and an option whose value
    is not valid, are a ConfigurationError naming it; options and
    sections that nothing reads are logged as warnings.
    """
    try:
        with _usage_errors(conf):
            conf(argv, project='placement', version=_installed_version(),
                 default_config_files=(default_files
                                       if default_files is not None
                                       else default_config_files()))
    except cfg.ConfigFilesNotFoundError as exc:
        raise fatal.ConfigurationError(
            f'configuration file not found: '
            f'{", ".join(exc.config_files)}') from exc
    except cfg.ConfigFilesPermissionDeniedError as exc:
        raise fatal.ConfigurationError(
            f'configuration file not readable (permission denied): '
            f'{", ".join(exc.config_files)}') from exc
    except cfg.ConfigDirNotFoundError as exc:
        raise fatal.ConfigurationError(
            f'configuration directory not found: {exc.config_dir}') from exc
    except cfg.ConfigFileParseError as exc:
        raise fatal.ConfigurationError(str(exc)) from exc
    _check_values(conf)
    try:
        logging.setup(conf, 'placement')
    except (logging.LogConfigError, OSError) as exc:
        raise fatal.ConfigurationError(
            f'[DEFAULT] log_config_append, log_file or log_dir: '
            f'{fatal.one_line(exc)}') from exc
    for warning in unknown.options(conf):
        LOG.warning('%s', warning)
    return conf


@contextlib.contextmanager
def _usage_errors(conf):
    """A command-line value that oslo.config cannot convert is a usage
    error as argparse reports the others: the usage, the program's name
    and the reason on stderr, exit status 2 (oslo.config writes the
    reason alone and exits 1)."""
    written = io.StringIO()
    try:
        with contextlib.redirect_stderr(written):
            yield
    except SystemExit as exc:
        reason = written.getvalue()
        if exc.code != 1 or not reason.startswith('argument --'):
            sys.stderr.write(reason)
            raise
        conf.print_usage(sys.stderr)
        sys.stderr.write(f'{conf.prog}: error: {reason}')
        raise SystemExit(2) from None
    sys.stderr.write(written.getvalue())


# How oslo.config says where a value it cannot convert comes from.
_BAD_VALUE = re.compile(
    r".*LocationInfo\(.*detail='(?P<file>[^']*)'\) is not valid: "
    r"(?P<cause>.*)", re.DOTALL)


def _check_values(conf):
    """Read every registered option once: oslo.config converts a value
    when it is read, so that a bad one would otherwise stop a worker
    only when a request needs it."""
    for key in list(conf):
        group = None
        try:
            value = conf[key]
            if isinstance(value, cfg.ConfigOpts.GroupAttr):
                group = key
                for name in list(value):
                    key = name
                    value[name]
        except (cfg.Error, ValueError) as exc:
            where = _BAD_VALUE.match(str(exc))
            cause = (f'{where["cause"]} (in {where["file"]})' if where
                     else str(exc))
            raise fatal.ConfigurationError(
                f'[{group or "DEFAULT"}] {key}: invalid value: '
                f'{fatal.one_line(cause)}') from exc
