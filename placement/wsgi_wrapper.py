"""The webob ``wsgify`` used by every handler of Placement, and its plain
WSGI form for the middlewares that only pass a request on.

Any ``webob.exc.WSGIHTTPException`` raised below it, and any object-layer
:class:`placement.exception.PlacementError` (with its ``status`` and
``code``), is turned into the API-WG error document: ``{"errors":
[{status, title, detail, request_id, code}]}`` (``code`` from
microversion 1.23).
"""

import functools

import webob
import webob.dec
import webob.exc
from oslo_middleware import request_id

from placement import client_text
from placement import errors
from placement import exception
from placement import microversion

# Where the code of the error being rendered is kept.
ERROR_CODE_ENVIRON = 'placement.error_code'
# Request headers that webob's error explanations quote (415: "media type
# ${CONTENT_TYPE}", 406: "content of type ${HTTP_ACCEPT}").
_QUOTED_HEADERS = ('CONTENT_TYPE', 'HTTP_ACCEPT')


def _error_document(body, status, title, environ):
    """webob json_formatter producing the API-WG errors structure."""
    error = {
        'status': int(status.split(None, 1)[0]),
        'title': title,
        'detail': webob.exc.strip_tags(body).strip(),
    }
    req_id = environ.get(request_id.ENV_REQUEST_ID)
    if req_id:
        error['request_id'] = req_id
    version = environ.get(microversion.MICROVERSION_ENVIRON)
    if version is not None and version >= microversion.ERROR_CODES:
        error['code'] = environ.get(ERROR_CODE_ENVIRON) or errors.DEFAULT
    return {'errors': [error]}


def _client_refuses_json(req):
    """True when an explicit Accept header excludes application/json."""
    if not req.headers.get('Accept'):
        return False
    return not req.accept.acceptable_offers(['application/json'])


def _quotable_environ(environ):
    """``environ`` with the quoted headers that are absent set to "None".

    webob leaves a ``${...}`` placeholder in the detail for a header the
    request did not send.
    """
    quotable = dict(environ)
    for name in _QUOTED_HEADERS:
        quotable[name] = environ.get(name) or 'None'
    return quotable


def error_response(req, exc):
    """Render an HTTP exception, as JSON unless the client refuses JSON."""
    # The code travels in ``comment``, which webob would also print into
    # the body: keep it for the error document only.
    req.environ[ERROR_CODE_ENVIRON] = exc.comment
    exc.comment = None
    # What a detail quotes of the client's input (a query value, a path)
    # is one line of it: no line of an error repeats more than a few
    # hundred characters.
    if exc.detail:
        exc.detail = client_text.clip_lines(exc.detail)
    exc.json_formatter = _error_document
    environ = _quotable_environ(req.environ)
    if _client_refuses_json(req):
        return webob.Request(environ).get_response(exc)
    headers = [(name, value) for name, value in exc.headerlist
               if name.lower() not in ('content-type', 'content-length')]
    response = webob.Response(
        body=exc.json_body(environ).encode('utf-8'),
        status=exc.status, headerlist=headers)
    response.content_type = 'application/json'
    return response


def http_error(exc):
    """The webob HTTP error of object-layer exception ``exc``."""
    return webob.exc.status_map[exc.status](str(exc), comment=exc.code)


class PlacementWsgify(webob.dec.wsgify):
    """wsgify whose HTTP and object-layer errors are rendered as Placement
    error documents."""

    def call_func(self, req, *args, **kwargs):
        try:
            return super().call_func(req, *args, **kwargs)
        except webob.exc.WSGIHTTPException as exc:
            return error_response(req, exc)
        except exception.PlacementError as exc:
            return error_response(req, http_error(exc))


def passes_on(method):
    """A middleware's ``method(self, req)`` as a plain WSGI callable.

    ``method`` returns the WSGI application that answers the request (the
    next one, or one wrapping it), or raises an HTTP or object-layer
    error, answered as :class:`PlacementWsgify` answers it. Unlike a
    ``wsgify`` layer it builds no default ``Response`` and does not turn
    the next application's answer into another ``Response``: that answer
    goes out as it came (the innermost ``wsgify``, the router's, made it
    one already).
    """
    @functools.wraps(method)
    def call(self, environ, start_response):
        req = webob.Request(environ)
        try:
            application = method(self, req)
        except webob.exc.WSGIHTTPException as exc:
            application = error_response(req, exc)
        except exception.PlacementError as exc:
            application = error_response(req, http_error(exc))
        return application(environ, start_response)
    return call
