"""The contract types of the API: what an operation is.

An :class:`Operation` is the whole contract of one method of one URL:
its handler, the microversions it exists at, the policy rule it
enforces, the media types it takes and gives, its query parameters and
request body schemas per microversion range, its success responses per
microversion range and the error statuses and codes it can answer.
The operations themselves are declared in :mod:`placement.operations`
(one module per entity, assembled there).

The router (:mod:`placement.router`) routes by the table, the auth
middleware lets its unauthenticated operations through,
:mod:`placement.request_checks` checks Accept, Content-Type, the policy
rule and the body of each request from it before the handler runs,
:mod:`placement.query` validates its query string, the router renders
the handler's result with the status and media type declared here
(:func:`placement.router.render`), and the OpenAPI document
(:mod:`placement.openapi`) is generated from it.
``tests/functional/test_operation_media_types.py`` checks the declared
406/415 behaviour, ``tests/contract.py`` every response of the gabbits
against the table and ``tests/conformance`` (schemathesis) the running
service against the document.

Ranges are inclusive pairs of :mod:`placement.microversion` names;
``None`` as the upper end means "to the newest microversion".
"""

import dataclasses
import typing

from placement import errors
from placement import microversion as mv

JSON = 'application/json'
#: What a parameter given more than once means (where not every value
#: counts): its last value counts, its first, or it is 400
#: ``placement.query.duplicate_key``. Every value is validated.
LAST = 'last'
FIRST = 'first'
ONCE = 'once'


@dataclasses.dataclass(frozen=True)
class Versions:
    """An inclusive microversion range; ``last`` None: up to the newest."""
    first: typing.Any = mv.BASE
    last: typing.Any = None

    def __contains__(self, version):
        return self.first <= version and (
            self.last is None or version <= self.last)


ALL = Versions()


def since(first):
    return Versions(first)


def before(version):
    """The microversions older than ``version`` (from 1.0)."""
    return Versions(mv.BASE, mv.v1(version.minor - 1))


def between(first, next_first):
    """From ``first`` to the microversion before ``next_first``."""
    return Versions(first, mv.v1(next_first.minor - 1))


@dataclasses.dataclass(frozen=True)
class QueryParam:
    """A query parameter: :mod:`placement.query_values` builds the JSON
    schema of the query string from these and validates it."""
    name: str
    description: str
    #: The schema of one value (query values are strings).
    schema: dict = dataclasses.field(
        default_factory=lambda: {'type': 'string'})
    versions: Versions = ALL
    required: bool = False
    #: From which microversion every value of a repeated parameter counts.
    #: Such a parameter is parsed as the list of its values at every
    #: microversion: before, the list of those ``repeated`` counts
    #: (``ONCE``: all of them, refused by its meaning's parser in words
    #: of its own).
    repeatable_since: typing.Any = None
    #: Which value of a repetition counts (before ``repeatable_since``):
    #: :data:`LAST` or :data:`FIRST`, or :data:`ONCE` (400).
    repeated: str = ONCE
    #: The error code of a value that fails ``schema`` (from 1.23).
    code: str = errors.DEFAULT
    #: ``(Versions, pattern)`` pairs: at those microversions the name may
    #: also end in a suffix matching ``pattern``, which names the request
    #: group the value belongs to
    #: (:meth:`placement.query_values.Params.groups`).
    suffixes: tuple = ()


@dataclasses.dataclass(frozen=True)
class Body:
    """The request body schema over a microversion range."""
    schema: dict
    versions: Versions = ALL


@dataclasses.dataclass(frozen=True)
class Response:
    """A success status and its body schema (None: no body) over a range."""
    status: int
    schema: dict | None = None
    versions: Versions = ALL
    #: Response headers that carry meaning (e.g. Location of a creation).
    headers: tuple = ()


@dataclasses.dataclass(frozen=True)
class Operation:
    method: str
    path: str
    handler: typing.Callable
    summary: str = ''
    #: The oslo.policy rule enforced (None where ``authenticated`` is not).
    policy: str | None = None
    #: True: the query string is validated before the policy rule, whose
    #: target it gives (GET /usages, the reports); the handler enforces
    #: the rule. False: the rule is enforced before the handler runs,
    #: with the requester's own project as the target.
    query_before_policy: bool = False
    #: False: served without a token (the auth middleware lets it through).
    authenticated: bool = True
    #: The microversions at which the operation exists.
    versions: Versions = ALL
    #: The status before ``versions.first``: 404 (the URL does not exist
    #: yet) or 405 (the URL exists, this method does not yet).
    too_early_status: int = 404
    #: The media types of the request body (415 for others); () no body.
    consumes: tuple = ()
    #: The media types the Accept header must allow (else 406), and of
    #: the success bodies; () where Accept is not checked.
    produces: tuple = (JSON,)
    query: tuple = ()
    bodies: tuple = ()
    #: What upstream checks of the URL before the body (404 for a
    #: missing provider, 400 for a malformed consumer uuid), whose error
    #: wins: run when the request is refused with a 400
    #: (:func:`placement.request_checks.url_checked_first`).
    url_check: typing.Callable | None = None
    #: True: an answer may hold hundreds of thousands of objects; the
    #: cycle collector is paused while it is built and serialised
    #: (:func:`placement.gc_pause.no_cycle_collection`).
    large_answer: bool = False
    responses: tuple = ()
    #: ``{status: (code, ...)}`` of the errors this operation answers
    #: besides those of every operation (:data:`COMMON_ERRORS`).
    errors: dict = dataclasses.field(default_factory=dict)

    def body_schema_at(self, version):
        """The request body schema at ``version``; None: no body."""
        for body in self.bodies:
            if version in body.versions:
                return body.schema
        return None


#: Errors any operation may answer: a malformed OpenStack-API-Version
#: (400) or an unsupported one (406), and, behind authentication, no or
#: a bad token (401) and a refused policy rule (403).
COMMON_ERRORS = {400: (errors.DEFAULT,), 406: (errors.DEFAULT,)}
AUTH_ERRORS = {401: (errors.DEFAULT,), 403: (errors.DEFAULT,)}

#: The variables of the URL templates: ``(description, schema, example)``.
#: The examples name what ``tests/conformance`` creates before its run.
EXAMPLE_PROVIDER = 'b8c3c3c4-8e26-4e1a-9b8a-2b6c9f1f4a11'
EXAMPLE_CONSUMER = '6a2b4c1e-3d5f-4e7a-8b9c-0d1e2f3a4b5c'
EXAMPLE_NAME = 'CUSTOM_GOLD'
PATH_PARAMETERS = {
    'uuid': ('The uuid of a resource provider.', {'type': 'string'},
             EXAMPLE_PROVIDER),
    'consumer_uuid': ('The uuid of a consumer.', {'type': 'string'},
                      EXAMPLE_CONSUMER),
    'resource_class': ('The name of a resource class.', {'type': 'string'},
                       'VCPU'),
    'name': ('The name of a resource class or trait.', {'type': 'string'},
             EXAMPLE_NAME),
    'project_id': ('The id of a project (reports).', {'type': 'string'},
                   'admin'),
}

#: The error codes of operations and their uses.
BAD = (errors.DEFAULT,)
NOT_FOUND = {404: BAD}
BAD_BODY = {400: BAD, 415: BAD}
CONFLICT = (errors.DEFAULT, errors.CONCURRENT_UPDATE)
INVENTORY_CONFLICT = (*CONFLICT, errors.INVENTORY_INUSE)
QUERY_ERRORS = (errors.DEFAULT, errors.ILLEGAL_DUPLICATE_QUERYPARAM,
                errors.QUERYPARAM_BAD_VALUE, errors.QUERYPARAM_MISSING_VALUE)
#: The headers of a creation.
CREATED = ('Location',)


def per_version(build, first, *changes):
    """Body variants of ``build(version)``, which changes at ``changes``."""
    starts = (first, *changes)
    return tuple(
        Body(build(start),
             Versions(start, None if following is None
                      else mv.v1(following.minor - 1)))
        for start, following in zip(starts, (*changes, None), strict=True))
