"""Compose the WSGI application: the middleware stack around the router."""

import logging

from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi

from placement import auth
from placement import body_limit
from placement import context
from placement import fatal
from placement import fault_wrap
from placement import health
from placement import memory
from placement import microversion_middleware
from placement import policy
from placement import profiler
from placement import redirects
from placement import request_ids
from placement import requestlog
from placement import router
from placement import timing
from placement.db import api as db_api
from placement.db import migration
from placement.db import standard_data
from placement.metrics import http as metrics_http
from placement.reports import zones

LOG = logging.getLogger(__name__)


def _cors(conf):
    """CORS, only when ``[cors] allowed_origin`` names an origin.

    oslo.middleware's CORS answers every OPTIONS request with 200, even
    to unknown URLs and unauthenticated clients; without allowed origins
    OPTIONS must get the router's 404/405 (and auth's 401) instead.
    """
    def middleware(application):
        wrapped = cors.CORS(application, conf)
        return wrapped if wrapped.allowed_origins else application
    return middleware


def _proxy_headers(conf):
    """oslo.middleware's proxy headers, only when ``[oslo_middleware]
    enable_proxy_headers_parsing`` is on: off, it changes nothing and
    costs a webob layer per request (the workers are replaced to read a
    changed configuration)."""
    conf.register_opts(http_proxy_to_wsgi.OPTS, group='oslo_middleware')

    def middleware(application):
        if not conf.oslo_middleware.enable_proxy_headers_parsing:
            return application
        return http_proxy_to_wsgi.HTTPProxyToWSGI(application, conf)
    return middleware


def build_stack(conf, db, enforcer):
    """The middleware around the router, innermost first.

    A malformed ``[reports] availability_zones`` stops it (ZoneMapError).
    """
    zones.Zones.from_conf(conf)
    profiler.setup(conf, db)
    application = router.Router(
        stream_above_bytes=conf.api.stream_above_bytes)
    for middleware in (
            microversion_middleware.MicroversionMiddleware,
            context.make_middleware(conf, db, enforcer),
            auth.make_middleware(conf),
            _cors(conf),
            fault_wrap.FaultWrapper,
            requestlog.middleware(conf),
            # Outside everything that logs or reads who the client is.
            auth.strip_identity(conf),
            body_limit.middleware(conf),
            context.fresh_store,
            request_ids.RequestId,
            _proxy_headers(conf),
            metrics_http.management(conf),
            health.middleware(conf),
            metrics_http.middleware(conf, db, [health.PATH]),
            timing.middleware(conf),
            profiler.middleware(conf),
            # Outermost: no webob layer may make Location absolute again.
            redirects.middleware,
    ):
        application = middleware(application)
    return application


def prepare_database(conf):
    """Connect, migrate if asked to, and seed the standard names.

    A FatalError when no connection is configured, when the database
    cannot be used or reached, when the schema is at a revision this code
    does not know, or when it is not current and ``sync_on_startup`` is
    off.
    """
    db_conf = conf.placement_database
    db = db_api.connected(db_conf, writable=True)
    current = migration.current_version(db.engine)
    unknown = migration.unknown_revision(current)
    if unknown:
        raise fatal.FatalError(str(unknown))
    if db_conf.sync_on_startup:
        migration.upgrade(db.engine)
    elif current != migration.head_version():
        raise fatal.FatalError(
            f'The placement database schema is not current (at {current}, '
            f'code needs {migration.head_version()}): run '
            f'"placement-manage db sync".')
    standard_data.sync(db)
    return db


def check(conf):
    """Raise the FatalError that :func:`loadapp` would raise, if any.

    For a server that loads the application in each worker: the
    operator reads the one line once, before any worker starts.
    """
    policy.make_enforcer(conf)
    zones.Zones.from_conf(conf)
    prepare_database(conf).dispose()
    auth.check(conf)


def loadapp(conf):
    """The complete WSGI application for the configuration ``conf``."""
    memory.map_large_blocks()
    # The policy file first: it needs no database to be found wrong.
    enforcer = policy.make_enforcer(conf)
    return build_stack(conf, prepare_database(conf), enforcer)
