"""What is checked of a request between the router and its handler.

For the routed :class:`~placement.operations.Operation`, at the
request's microversion, in this order (upstream's):

1. the Accept header allows one of ``produces`` (else 406);
2. the Content-Type is one of ``consumes`` (else 415);
3. the ``policy`` rule allows the caller (else 403), unless the
   operation validates its query string first (``query_before_policy``:
   the handler enforces the rule, with a target taken from the query);
4. the body decodes as JSON and validates against the schema of the
   :class:`~placement.operations.Body` whose range holds the
   microversion (else 400); the handler reads it with :func:`body`.

The operation's ``url_check`` (404 for a missing provider, 400 for a
malformed consumer uuid) is what upstream checks of the URL before it
reads the body. The handler checks it too, first thing (the provider
lookup of its own transaction): so :func:`url_checked_first` runs it
only when the request is refused with a 400 (by the body, the query
string or the handler), whose answer it then replaces. A request
accepted pays for one lookup, not for a transaction of its own before
the handler's.

An operation that takes a body at some microversions only (PUT
/resource_classes/{name} before 1.7) checks neither media type where it
takes none.
"""

import contextlib
import functools
import json

import jsonschema
import webob.acceptparse
import webob.exc

from placement import client_text
from placement import exception
from placement import microversion
from placement.schemas import formats

#: Where the validated request body is kept for the handler.
BODY_ENVIRON = 'placement.body'
# Far deeper than any request body (POST /reshaper's go 7 levels deep):
# the schema validator and its messages recurse over what they are given.
_MAX_JSON_DEPTH = 32
_FORMAT_CHECKER = formats.checker()


def before_handler(operation, req):
    """Run the checks above; the body, if any, goes to :func:`body`."""
    version = microversion.of(req)
    schema = operation.body_schema_at(version)
    media_checked = schema is not None or not operation.consumes
    if media_checked:
        _check_accept(operation.produces, req)
        _check_content_type(operation.consumes, req)
    if operation.policy is not None and not operation.query_before_policy:
        req.environ['placement.context'].can(operation.policy)
    if schema is not None:
        req.environ[BODY_ENVIRON] = _decoded(req.body, schema)


@contextlib.contextmanager
def url_checked_first(operation, req):
    """Run the operation's ``url_check`` before a 400 raised inside.

    Upstream finds a missing provider before anything wrong with the
    body or the query string: the check's own error wins.
    """
    check = operation.url_check or (lambda req: None)
    try:
        yield
    except webob.exc.HTTPBadRequest:
        check(req)
        raise
    except exception.PlacementError as exc:
        if exc.status == 400:
            check(req)
        raise


def body(req):
    """The request body, decoded and validated by :func:`before_handler`."""
    return req.environ[BODY_ENVIRON]


def _check_accept(types, req):
    """406 unless an Accept header allows one of ``types``; none: JSON."""
    accept = req.environ.get('HTTP_ACCEPT')
    if types and accept and not _acceptable(accept, types):
        raise webob.exc.HTTPNotAcceptable(
            f"Only {', '.join(types)} is provided")


@functools.lru_cache(maxsize=256)
def _acceptable(accept, types):
    """Whether the Accept header ``accept`` allows one of ``types``,
    remembered: clients send the same few headers, and webob parses one
    anew at every request (15 us)."""
    return bool(webob.acceptparse.create_accept_header(
        accept).acceptable_offers(list(types)))


def _check_content_type(types, req):
    """415 unless the body is of one of ``types`` (none: no body)."""
    if types and req.content_type not in types:
        given = req.content_type or 'None'
        raise webob.exc.HTTPUnsupportedMediaType(
            f"The media type {given} is not supported, use "
            f"{', '.join(types)}")


def _reject_constant(name):
    """NaN and Infinity are not JSON (and no database column takes NaN)."""
    raise ValueError(f'{name} is not a valid JSON value')


def _refuse_unusable(data, limit):
    """400 when arrays or objects in ``data`` nest more than ``limit``
    deep, or when a string in it (a value or a key) cannot be stored.

    Iterative: the point is to refuse what recursion cannot handle.
    """
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            _refuse_unstorable(value)
            continue
        if isinstance(value, dict):
            for key in value:
                _refuse_unstorable(key)
            value = list(value.values())
        if not isinstance(value, list):
            continue
        if depth > limit:
            raise _too_deep(limit)
        pending.extend((item, depth + 1) for item in value)


def _too_deep(limit):
    return webob.exc.HTTPBadRequest(
        f'Malformed JSON: arrays and objects nested deeper than {limit} '
        f'levels')


def _refuse_unstorable(text):
    problem = client_text.unstorable(text)
    if problem is not None:
        raise webob.exc.HTTPBadRequest(
            f'Invalid JSON string {client_text.clip(repr(text))}: '
            f'{problem}.')


def _decoded(data, schema):
    """The JSON ``data`` decoded and validated against ``schema``; else 400.

    ``schema`` is not checked against the metaschema, as
    ``jsonschema.validate`` would on every request (tens of
    milliseconds): the service's schemas are checked by its unit tests.
    The error reported is the one ``jsonschema.validate`` would pick.
    ``data`` is UTF-8, as upstream reads it: ``json.loads`` of bytes
    would take UTF-16 and UTF-32 and a byte order mark too.
    """
    try:
        value = json.loads(data.decode('utf-8'),
                           parse_constant=_reject_constant)
    except ValueError as exc:
        raise webob.exc.HTTPBadRequest(f'Malformed JSON: {exc}')
    except RecursionError:
        raise _too_deep(_MAX_JSON_DEPTH) from None
    _refuse_unusable(value, _MAX_JSON_DEPTH)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=_FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        raise webob.exc.HTTPBadRequest(
            f'JSON does not validate: {client_text.validation_detail(error)}')
    return value
