"""Request metrics, and the management listener's answers.

:func:`middleware` counts every request by method, route template (the
operation table's ``/resource_providers/{uuid}``, never a raw path) and
status, with its duration until the status line, SQL time
(:mod:`placement.timing`) and body sizes (a streamed answer's once it
is sent), and leaves the :class:`~placement.metrics.exposition.Exposition`
in the environ for ``GET /metrics``. :func:`management` answers the
requests ``placement-api`` accepted on ``[metrics] listen_port``.
"""

import webob.exc

from placement import operations
from placement import router
from placement import timing
from placement.metrics import definitions
from placement.metrics import exposition
from placement.wsgi import server

_METHODS = frozenset(
    {'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'})
#: The route of a request that matches no URL template.
UNMATCHED = 'unmatched'
METRICS_PATH = '/metrics'


class _Routes:
    """The route template of a request: the router's, or for a request
    answered before routing (401, /healthcheck) the table's match."""

    def __init__(self, extra_paths):
        self._routes = router.Routes(
            operations.OPERATIONS + operations.REPORTS)
        self._extra = frozenset(extra_paths)

    def of(self, environ):
        route = environ.get(router.ROUTE_ENVIRON)
        if route is not None:
            return route
        path = environ.get('PATH_INFO', '')
        if path in self._extra:
            return path
        found = self._routes.match(path)
        return UNMATCHED if found is None else router.template(found[1])


class _Series:
    """The labelled series of one method, route and status.

    ``prometheus_client`` finds a metric's child for its labels under a
    lock at every ``labels()`` call: they are found once here.
    """

    def __init__(self, labels):
        self.requests = definitions.REQUESTS.labels(*labels)
        self.seconds = definitions.REQUEST_SECONDS.labels(*labels)
        self.sql_seconds = definitions.SQL_SECONDS.labels(*labels)
        self.request_bytes = definitions.REQUEST_BYTES.labels(*labels)
        self.response_bytes = definitions.RESPONSE_BYTES.labels(*labels)


def _observe(environ, series, route, status, response_length):
    """Count the request in ``series`` (``{labels: _Series}``, filled
    as met); its :class:`_Series`, for a streamed body's size."""
    spent = timing.of(environ).split()
    method = environ['REQUEST_METHOD']
    labels = (method if method in _METHODS else 'other', route, status)
    found = series.get(labels)
    if found is None:
        found = series[labels] = _Series(labels)
    found.requests.inc()
    found.seconds.observe(spent['total'])
    found.sql_seconds.observe(spent['sql'])
    found.request_bytes.observe(_integer(environ.get('CONTENT_LENGTH')))
    if response_length is not None:
        found.response_bytes.observe(_integer(response_length))
    return found


class _Sized:
    """A streamed body (no Content-Length): its size is observed once
    the server closes it, after its last byte."""

    def __init__(self, body, series):
        self._body = body
        self._series = series
        self._size = 0

    def __iter__(self):
        for chunk in self._body:
            self._size += len(chunk)
            yield chunk

    def close(self):
        try:
            if hasattr(self._body, 'close'):
                self._body.close()
        finally:
            self._series.response_bytes.observe(self._size)


def _integer(value):
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return 0


def middleware(conf, db, extra_paths):
    """Measure every request; none when ``[metrics] enabled`` is off.

    ``extra_paths`` are served outside the table (``/healthcheck``).
    Inside :func:`placement.timing.middleware`, which times the request.
    """
    def wrap(application):
        if not conf.metrics.enabled:
            return application
        routes = _Routes(extra_paths)
        scrape = exposition.Exposition(conf, db)
        series = {}

        def measured(environ, start_response):
            environ[exposition.ENVIRON] = scrape
            answered = {}

            def start(status, headers, exc_info=None):
                answered['status'] = status.split(None, 1)[0]
                answered['length'] = next(
                    (value for name, value in headers
                     if name.lower() == 'content-length'), None)
                return start_response(status, headers, exc_info)
            definitions.IN_FLIGHT.inc()
            try:
                body = application(environ, start)
            finally:
                definitions.IN_FLIGHT.dec()
                observed = _observe(environ, series, routes.of(environ),
                                    answered.get('status', '500'),
                                    answered.get('length'))
            if answered.get('length') is None:
                body = _Sized(body, observed)
            return body
        return measured
    return wrap


def _local_port(environ):
    """The port the connection came in on, as placement-api's workers
    say it: the only one trusted (a Host header may name any port)."""
    return environ.get(server.LOCAL_PORT)


def management(conf):
    """On ``[metrics] listen_port``: GET /metrics without a token (unless
    ``[metrics] enabled`` is off), 404 for everything else
    (``/healthcheck`` is answered further out)."""
    port = conf.metrics.listen_port

    def wrap(application):
        if port is None:
            return application

        def serve(environ, start_response):
            if _local_port(environ) != port:
                return application(environ, start_response)
            if (exposition.ENVIRON in environ
                    and environ.get('PATH_INFO') == METRICS_PATH
                    and environ['REQUEST_METHOD'] == 'GET'):
                return exposition.response(environ)(environ,
                                                    start_response)
            return webob.exc.HTTPNotFound()(environ, start_response)
        return serve
    return wrap
