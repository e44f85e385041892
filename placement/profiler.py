"""``[profiler]``: osprofiler, as upstream Placement honours it.

With ``enabled`` and ``hmac_keys`` set, osprofiler's WSGI middleware
traces the requests that carry ``X-Trace-Info`` and ``X-Trace-HMAC``
signed with one of the keys, with each SQL statement as a child span
(osprofiler's SQLAlchemy hook on the engines, when ``trace_sqlalchemy``
is on), and its notifier stores the spans through the driver of
``connection_string`` (``redis://``, ``mongodb://``, ``messaging://``...).
Requests without a valid signature are not traced.
"""

import socket

import sqlalchemy
from osprofiler import initializer
from osprofiler import sqlalchemy as profiler_sqlalchemy
from osprofiler import web

PROJECT = 'placement'
SERVICE = 'placement-api'


def setup(conf, db):
    """Start the notifier and hook the engines of ``db`` when enabled."""
    if not conf.profiler.enabled:
        return
    initializer.init_from_conf(conf=conf, context={}, project=PROJECT,
                               service=SERVICE, host=socket.gethostname())
    if conf.profiler.trace_sqlalchemy:
        for engine in {db.engine, db.reader_engine}:
            profiler_sqlalchemy.add_tracing(sqlalchemy, engine, 'db')


def middleware(conf):
    """osprofiler's WSGI middleware when ``[profiler] enabled``."""
    def wrap(application):
        if not conf.profiler.enabled:
            return application
        return web.WsgiMiddleware(application,
                                  hmac_keys=conf.profiler.hmac_keys,
                                  enabled=True)
    return wrap
