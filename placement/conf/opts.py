"""Entry points for oslo-config-generator."""

from oslo_config import cfg
from oslo_middleware.healthcheck import opts as healthcheck_opts

from placement.conf import api
from placement.conf import database
from placement.conf import middleware
from placement.conf import observability
from placement.conf import placement as placement_opts
from placement.conf import reports


def list_opts():
    """Placement's own groups, for the ``placement.conf`` namespace, and
    the library options whose default it changes."""
    opts = {}
    for module in (api, placement_opts, database, reports, middleware,
                   observability):
        opts.update(module.list_opts())
    return [(group, options) for group, options in opts.items()]


def set_library_defaults():
    """The library options' defaults as the service sets them, for the
    sample file (``oslo.config.opts.defaults``): the healthcheck's
    database backend."""
    cfg.set_defaults(healthcheck_opts.HEALTHCHECK_OPTS,
                     backends=[observability.DATABASE_BACKEND])
