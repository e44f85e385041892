"""Configuration options of the Placement service, registered per ConfigOpts.

There is no global configuration object: callers build a ``cfg.ConfigOpts``,
call :func:`register_opts` on it, and pass it down.
"""

from keystonemiddleware import auth_token
from oslo_config import cfg
from oslo_log import log as logging
from oslo_policy import opts as policy_opts

from placement.conf import api
from placement.conf import database
from placement.conf import middleware
from placement.conf import observability
from placement.conf import placement as placement_opts
from placement.conf import reports

_MODULES = (api, database, observability, placement_opts, reports)


def register_opts(conf: cfg.ConfigOpts) -> None:
    """Register every option Placement reads (ours and the libraries')."""
    for module in _MODULES:
        module.register_opts(conf)
    logging.register_options(conf)
    middleware.register_opts(conf)
    # [oslo_policy] with oslo.policy's own defaults; the enforcer would
    # register it too, but config files and tests set it beforehand.
    policy_opts.set_defaults(conf)
    # keystonemiddleware registers these itself when it starts; doing it
    # here too lets config files and tests set them beforehand.
    for group, opts in auth_token.list_opts():
        conf.register_opts(opts, group=group)
