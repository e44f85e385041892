"""The router: method and URL to the handler of the operation table.

:data:`placement.operations.OPERATIONS` declares every operation of the
API (and :data:`~placement.operations.REPORTS` those of the reports); as
upstream does, a method never declared for a URL is 405 whatever the
microversion, with an ``Allow`` header naming every declared method; a
declared method requested at a microversion older than its operation's
is 404, the URL not existing yet, or 405 where the operation says so
(DELETE of all inventories before 1.5, allowing the methods of that
microversion). A routed request passes :mod:`placement.request_checks`
(media types, policy, body) before its handler runs; the handler's
:class:`~placement.util.Result` is rendered by :func:`render`.
"""

import contextlib
import logging

import routes
import webob
import webob.exc

from placement import client_text
from placement import gc_pause
from placement import microversion
from placement import operations
from placement import query
from placement import request_checks
from placement import util
from placement import wsgi_wrapper
from placement.conf import api as api_conf
from placement.metrics import definitions as metrics

LOG = logging.getLogger(__name__)

#: Where the router leaves the URL template of the routed request.
ROUTE_ENVIRON = 'placement.route'


def template(methods):
    """The URL template of the ``{method: Operation}`` of a match."""
    return next(iter(methods.values())).path


def _path(req):
    """The request's path as text: WSGI gives its bytes as Latin-1, and
    clients send UTF-8 (``/reports/usage/proj%C3%A9`` is ``projé``).

    A path that is not UTF-8 or holds a NUL names nothing: reading or
    deleting it is a 404, writing it a 400.
    """
    raw = req.environ['PATH_INFO']
    problem = None
    try:
        path = raw.encode('latin-1').decode('utf-8')
    except UnicodeEncodeError:
        # Not a WSGI "bytes as latin-1" string (some in-process clients
        # give decoded text): take it as it is.
        path = raw
    except UnicodeDecodeError:
        # Shown with U+FFFD for what is not UTF-8.
        path = raw.encode('latin-1').decode('utf-8', 'replace')
        problem = 'it is not UTF-8 once percent-decoded'
    problem = problem or client_text.unstorable(path)
    if problem is None:
        return path
    detail = f'The URL path names nothing ({problem})'
    if req.method in ('GET', 'HEAD', 'DELETE'):
        raise _not_found(path, f'{detail}; the resource')
    raise webob.exc.HTTPBadRequest(f'{detail}: {client_text.clip(path)}')


def _not_found(path, what='The resource'):
    return webob.exc.HTTPNotFound(
        f'{what} could not be found: {client_text.clip(path)}')


def render(operation, req, result,
           stream_above_bytes=api_conf.STREAM_ABOVE_BYTES):
    """The success response of ``result``, as ``operation`` declares it.

    The status is the one the operation declares at the microversion
    (``result.status`` where it declares two), the media type its
    ``produces``; from 1.15 a GET, and a ``dated`` write, carries
    Last-Modified and Cache-Control. The body is ``result.data`` as JSON
    (:func:`placement.util.dump_json_chunks`: large arrays in it are
    serialised a chunk at a time): up to ``stream_above_bytes`` (``[api]
    stream_above_bytes``) it is made before the status line and sent
    with its Content-Length; past them the rest is made as the server
    sends it (a :class:`Stream`, without Content-Length). A handler that
    answers a file or a redirect gives its own webob response.
    """
    if isinstance(result, webob.Response):
        return result
    status = result.status or _declared_status(operation, req)
    if result.data is None:
        response = webob.Response(status=status)
        # webob gives every new response a default type; drop it.
        response.content_type = None
    else:
        chunks = util.dump_json_chunks(result.data)
        head, size = [], 0
        for chunk in chunks:
            head.append(chunk)
            size += len(chunk)
            if size > stream_above_bytes:
                body = {'app_iter': Stream(head, chunks, req.environ)}
                break
        else:
            body = {'app_iter': head, 'content_length': size}
        response = webob.Response(
            status=status, content_type=operation.produces[0],
            charset=None, **body)
    if result.location is not None:
        response.location = result.location
    if req.method == 'GET' or result.dated:
        util.add_last_modified(req, response, result.last_modified,
                               result.undated)
    return response


class Stream:
    """A streamed body: its first chunks, made before the status line,
    then the rest, made as the WSGI server asks for them.

    What fails once the status line is sent cannot become an error
    answer: it is logged, counted
    (``placement_responses_cut_total``) and raised again, so that the
    server drops the connection and the client reads an incomplete body
    (a chunked one without its last chunk, and JSON that does not
    parse), never a complete-looking wrong one. What the body holds
    until it is closed (the request's pause of the cycle collector) is
    released by :meth:`close`, which every WSGI server calls.
    """

    def __init__(self, head, rest, environ):
        self._head = head
        self._rest = rest
        self._environ = environ
        #: Released on close.
        self.held = contextlib.ExitStack()

    def __iter__(self):
        head, self._head = self._head, None
        yield from head
        del head
        try:
            yield from self._rest
        except Exception:
            metrics.RESPONSES_CUT.inc()
            LOG.exception('A streamed answer to %s %s failed after its '
                          'first byte: the connection is dropped',
                          self._environ.get('REQUEST_METHOD'),
                          client_text.loggable_url(self._environ))
            raise

    def close(self):
        self.held.close()


def _declared_status(operation, req):
    """The one success status of ``operation`` at the microversion."""
    version = microversion.of(req)
    statuses = {response.status for response in operation.responses
                if version in response.versions}
    if len(statuses) != 1:
        raise ValueError(
            f'{operation.method} {operation.path} declares {statuses} at '
            f'{version}: the handler must choose')
    return statuses.pop()


class Routes:
    """The operations of a table by URL."""

    def __init__(self, table):
        #: ``{path template: {method: Operation}}``.
        self._by_path = {}
        for operation in table:
            self._by_path.setdefault(
                operation.path, {})[operation.method] = operation
        self._mapper = routes.Mapper()
        for path in self._by_path:
            self._mapper.connect(path, route_path=path)

    def match(self, path, environ=None):
        """``(URL variables, {method: Operation})`` of ``path``; None
        when no template matches."""
        match = self._mapper.match(path or '/', environ=environ)
        # routes' patterns end in ``$``, which also matches before a final
        # newline: /traits/X%0A would otherwise be served as /traits/X.
        if match is None or path.endswith('\n'):
            return None
        return match, self._by_path[match.pop('route_path')]


def _check_body_headers(req):
    """400 for a body without a Content-Type or a bad Content-Length.

    Checked before routing, whatever the method and path, as upstream
    does: what a body without a type means is never guessed.
    """
    length = req.environ.get('CONTENT_LENGTH')
    if not length:
        return
    try:
        length = int(length)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'content-length header must be an integer')
    if length > 0 and not req.environ.get('CONTENT_TYPE'):
        raise webob.exc.HTTPBadRequest(
            'content-type header required when content-length > 0')


class Router:
    """Dispatch a request to its handler, or answer 404/405."""

    def __init__(self, table=None,
                 stream_above_bytes=api_conf.STREAM_ABOVE_BYTES):
        self._routes = Routes(
            table or operations.OPERATIONS + operations.REPORTS)
        #: ``[api] stream_above_bytes``: see :func:`render`.
        self._stream_above_bytes = stream_above_bytes

    @staticmethod
    def _available(methods, req):
        """The methods of ``methods`` that exist at the request's version."""
        version = microversion.of(req)
        return sorted(method for method, operation in methods.items()
                      if version in operation.versions)

    @wsgi_wrapper.PlacementWsgify
    def __call__(self, req):
        _check_body_headers(req)
        # Mounted under a prefix, the prefix alone (empty PATH_INFO) is
        # the version document that clients discover versions from.
        path = _path(req)
        found = self._routes.match(path, req.environ)
        if found is None:
            raise _not_found(path)
        match, methods = found
        req.environ[ROUTE_ENVIRON] = template(methods)
        route = methods.get(req.method)
        allow = sorted(methods)
        if route is not None and (
                microversion.of(req) < route.versions.first):
            if route.too_early_status == 404:
                raise _not_found(path)
            allow = self._available(methods, req)
            route = None
        if route is None:
            allow = ', '.join(allow)
            raise webob.exc.HTTPMethodNotAllowed(
                f'The method specified is not allowed for this resource. '
                f'Allowed: {allow}', headers=[('Allow', allow)])
        req.environ['wsgiorg.routing_args'] = ((), match)
        if not route.large_answer:
            return self._respond(route, req)
        # Resumed once the answer's objects are freed (a streamed one's
        # when the server closes it), the collector has no pass over
        # them to make.
        with contextlib.ExitStack() as paused:
            paused.enter_context(gc_pause.no_cycle_collection())
            response = self._respond(route, req)
            if isinstance(response.app_iter, Stream):
                response.app_iter.held.push(paused.pop_all())
            return response

    def _respond(self, route, req):
        """The response of ``route``'s handler to ``req``."""
        with request_checks.url_checked_first(route, req):
            request_checks.before_handler(route, req)
            req.environ[query.ENVIRON] = query.parse(route, req)
            result = route.handler(req)
        return render(route, req, result, self._stream_above_bytes)
