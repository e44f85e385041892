"""Helpers shared by the request handlers."""

import functools
import json

import jsonschema
import orjson
import webob
import webob.exc
from oslo_utils import timeutils
from oslo_utils import uuidutils

from placement import errors
from placement import microversion
from placement import timing

JSON = 'application/json'
# Microversion from which GET responses carry Last-Modified/Cache-Control.
_LAST_MODIFIED_MIN_VERSION = 15
_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks('uuid')
def _uuid_like(value):
    """OpenStack's "uuid-like": also without dashes, upper case, in
    braces or as a ``urn:uuid:``; the object layer stores the canonical
    form.
    """
    return not isinstance(value, str) or uuidutils.is_uuid_like(value)


# Far deeper than any request body (POST /reshaper's go 7 levels deep):
# the schema validator and its messages recurse over what they are given.
_MAX_JSON_DEPTH = 32


def check_accept(*types):
    """406 unless the request's Accept allows one of ``types``.

    A request without Accept gets JSON.
    """
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(req, *args, **kwargs):
            if req.headers.get('Accept') and not (
                    req.accept.acceptable_offers(list(types))):
                raise webob.exc.HTTPNotAcceptable(
                    f"Only {', '.join(types)} is provided")
            return handler(req, *args, **kwargs)
        return wrapper
    return decorator


def require_content(content_type):
    """415 unless the request body is of ``content_type``."""
    def decorator(handler):
        @functools.wraps(handler)
        def wrapper(req, *args, **kwargs):
            if req.content_type != content_type:
                given = req.content_type or 'None'
                raise webob.exc.HTTPUnsupportedMediaType(
                    f'The media type {given} is not supported, use '
                    f'{content_type}')
            return handler(req, *args, **kwargs)
        return wrapper
    return decorator


def _reject_constant(name):
    """NaN and Infinity are not JSON (and no database column takes NaN)."""
    raise ValueError(f'{name} is not a valid JSON value')


def _nested_deeper_than(data, limit):
    """Whether arrays or objects in ``data`` nest more than ``limit`` deep.

    Iterative: the point is to refuse what recursion cannot handle.
    """
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if not isinstance(value, list):
            continue
        if depth > limit:
            return True
        pending.extend((item, depth + 1) for item in value)
    return False


def extract_json(body, schema):
    """The decoded JSON ``body``, validated against ``schema``; else 400.

    ``schema`` is not checked against the metaschema, as
    ``jsonschema.validate`` would on every request (tens of
    milliseconds): the service's schemas are checked by its unit tests.
    The error reported is the one ``jsonschema.validate`` would pick.
    """
    too_deep = webob.exc.HTTPBadRequest(
        f'Malformed JSON: arrays and objects nested deeper than '
        f'{_MAX_JSON_DEPTH} levels')
    try:
        data = json.loads(body, parse_constant=_reject_constant)
    except ValueError as exc:
        raise webob.exc.HTTPBadRequest(f'Malformed JSON: {exc}')
    except RecursionError:
        raise too_deep
    if _nested_deeper_than(data, _MAX_JSON_DEPTH):
        raise too_deep
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=_FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise webob.exc.HTTPBadRequest(f'JSON does not validate: {error}')
    return data


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
    if microversion.at_least(req, _LAST_MODIFIED_MIN_VERSION):
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
