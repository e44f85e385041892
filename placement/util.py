"""Helpers shared by the request handlers."""

import orjson
import webob
import webob.exc
from oslo_utils import timeutils

from placement import errors
from placement import microversion
from placement import timing

JSON = 'application/json'


def path_arg(req, name):
    """A variable of the matched route, e.g. the provider ``uuid``."""
    return req.environ['wsgiorg.routing_args'][1][name]


def dump_json(data):
    """``data`` as JSON bytes (orjson: no per-object Python work)."""
    with timing.serialising():
        return orjson.dumps(data)


def json_response(req, data, status=200, last_modified=None):
    """A JSON response; from 1.15 GETs carry Last-Modified and no-cache.

    ``last_modified`` is the newest timestamp of what the body shows;
    None means "composed now".
    """
    response = webob.Response(
        status=status, content_type=JSON, charset=None,
        body=dump_json(data))
    if req.method == 'GET':
        add_last_modified(req, response, last_modified)
    return response


def add_last_modified(req, response, last_modified=None):
    """From 1.15: Last-Modified (``last_modified``, else now), no-cache."""
    if microversion.at_least(req, microversion.LAST_MODIFIED):
        response.last_modified = (
            last_modified or timeutils.utcnow(with_timezone=True))
        response.cache_control = 'no-cache'


def empty_response(status=204, location=None):
    """A response without body or content type (a 201 or a 204)."""
    response = webob.Response(status=status)
    # webob gives every new response a default type; drop it.
    response.content_type = None
    if location is not None:
        response.location = location
    return response


def query_params(req, allowed, repeatable=()):
    """The query string as ``{name: value}`` (a list for ``repeatable``).

    Unknown parameters are 400; a parameter given twice that may appear
    only once is 400 ``placement.query.duplicate_key``.
    """
    try:
        items = list(req.GET.items())
    except UnicodeDecodeError as exc:
        raise webob.exc.HTTPBadRequest(
            f'Invalid query string parameters: {exc}')
    params = {}
    for name, value in items:
        if name not in allowed:
            raise webob.exc.HTTPBadRequest(
                f'Invalid query string parameters: {name!r} is not one '
                f'of {", ".join(sorted(allowed))}')
        if name in repeatable:
            params.setdefault(name, []).append(value)
        elif name in params:
            raise webob.exc.HTTPBadRequest(
                f'Query parameter {name!r} may only be given once.',
                comment=errors.ILLEGAL_DUPLICATE_QUERYPARAM)
        else:
            params[name] = value
    return params
