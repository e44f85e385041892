"""The Placement API, one entry per operation (method + URL).

An :class:`Operation` is the whole contract of one method of one URL:
its handler, the microversions it exists at, the policy rule it
enforces, the media types it takes and gives, its query parameters and
request body schemas per microversion range, its success responses per
microversion range and the error statuses and codes it can answer.

The router (:mod:`placement.handler`) routes by this table, the auth
middleware lets its unauthenticated operations through,
:mod:`placement.request_checks` checks Accept, Content-Type, the policy
rule and the body of each request from it before the handler runs,
:mod:`placement.query` validates its query string, the router renders
the handler's result with the status and media type declared here
(:func:`placement.handler.render`), and the OpenAPI document
(:mod:`placement.openapi`) is generated from it.
``tests/functional/test_operation_media_types.py`` checks the declared
406/415 behaviour, ``tests/contract.py`` every response of the gabbits
against this table and ``tests/conformance`` (schemathesis) the running
service against the document.

Ranges are inclusive pairs of :mod:`placement.microversion` names;
``None`` as the upper end means "to the newest microversion".
"""

import dataclasses
import typing

from placement import errors
from placement import microversion as mv
from placement import query
from placement.handlers import aggregate
from placement.handlers import allocation
from placement.handlers import allocation_candidate
from placement.handlers import api_document
from placement.handlers import inventory
from placement.handlers import metrics
from placement.handlers import provider_trait
from placement.handlers import reports
from placement.handlers import reshaper
from placement.handlers import resource_class
from placement.handlers import resource_provider
from placement.handlers import root
from placement.handlers import trait
from placement.handlers import usage
from placement.policies import aggregate as aggregate_policies
from placement.policies import allocation as allocation_policies
from placement.policies import allocation_candidate as candidate_policies
from placement.policies import inventory as inventory_policies
from placement.policies import metrics as metrics_policies
from placement.policies import reports as report_policies
from placement.policies import reshaper as reshaper_policies
from placement.policies import resource_class as resource_class_policies
from placement.policies import resource_provider as provider_policies
from placement.policies import trait as trait_policies
from placement.policies import usage as usage_policies
from placement.reports import audit
from placement.reports import documents
from placement.reports import explain
from placement.schemas import aggregate as aggregate_schema
from placement.schemas import allocation as allocation_schema
from placement.schemas import inventory as inventory_schema
from placement.schemas import provider_trait as provider_trait_schema
from placement.schemas import reshaper as reshaper_schema
from placement.schemas import resource_class as resource_class_schema
from placement.schemas import resource_provider as provider_schema
from placement.schemas import response
from placement.schemas import usage as usage_schema

JSON = 'application/json'


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
    """A query parameter: :mod:`placement.query` builds the JSON schema
    of the query string from these and validates it."""
    name: str
    description: str
    #: The schema of one value (query values are strings).
    schema: dict = dataclasses.field(
        default_factory=lambda: {'type': 'string'})
    versions: Versions = ALL
    required: bool = False
    #: From which microversion every value of a repeated parameter counts.
    #: Such a parameter is parsed as the list of its values at every
    #: microversion (what a repetition means before: its parser's call).
    repeatable_since: typing.Any = None
    #: Without ``repeatable_since``: which value of a repetition counts,
    #: :data:`placement.query.LAST` or ``FIRST``, or ``ONCE`` (400).
    repeated: str = query.ONCE
    #: The error code of a value that fails ``schema`` (from 1.23).
    code: str = errors.DEFAULT
    #: ``(Versions, pattern)`` pairs: at those microversions the name may
    #: also end in a suffix matching ``pattern`` (a request group).
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
    #: Called with the request when it is refused with a 400: what
    #: upstream checks of the URL before the body (404 for a missing
    #: provider, 400 for a malformed consumer uuid), whose error wins.
    #: The handler checks it first itself (see
    #: :func:`placement.request_checks.url_checked_first`).
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

_BAD = (errors.DEFAULT,)
_NOT_FOUND = {404: _BAD}
_BAD_BODY = {400: _BAD, 415: _BAD}
_CONFLICT = (errors.DEFAULT, errors.CONCURRENT_UPDATE)
_INVENTORY_CONFLICT = (*_CONFLICT, errors.INVENTORY_INUSE)
_QUERY_ERRORS = (errors.DEFAULT, errors.ILLEGAL_DUPLICATE_QUERYPARAM,
                 errors.QUERYPARAM_BAD_VALUE, errors.QUERYPARAM_MISSING_VALUE)


def _per_version(build, first, *changes):
    """Body variants of ``build(version)``, which changes at ``changes``."""
    starts = (first, *changes)
    return tuple(
        Body(build(start),
             Versions(start, None if following is None
                      else mv.v1(following.minor - 1)))
        for start, following in zip(starts, (*changes, None), strict=True))


_MEMBER_OF = ('An aggregate uuid, or ``in:`` and a comma-separated list '
              'of them (member of any); ``!`` in front forbids (from 1.32).')
_REQUIRED = ('Comma-separated trait names a provider must have; ``!`` in '
             'front forbids (from 1.22), ``in:`` lists alternatives '
             '(from 1.39).')
_RESOURCES = ('Comma-separated ``CLASS:AMOUNT`` pairs, e.g. '
              '``VCPU:4,MEMORY_MB:2048``.')
_UUID = {'type': 'string', 'format': 'uuid'}
#: The suffixes of granular request groups: digits from 1.25, up to 64
#: of ``[a-zA-Z0-9_-]`` from 1.33 (written as upstream's, optional:
#: clients match the pattern in the error).
_GROUP_SUFFIXES = (
    (between(mv.GRANULAR, mv.STRING_SUFFIXES), '[1-9][0-9]*'),
    (since(mv.STRING_SUFFIXES), '([a-zA-Z0-9_-]{1,64})?'),
)
_GRANULAR = (' From 1.25 the group parameters ``resources``, ``required``, '
             '``member_of`` and ``in_tree`` may carry a suffix (digits; '
             'from 1.33 up to 64 of ``[a-zA-Z0-9_-]``) that makes a '
             'request group of its own.')

#: The query of GET /allocation_candidates, which the explain report
#: reads as it is read.
_CANDIDATE_QUERY = (
    QueryParam('resources', _RESOURCES + ' Required before 1.36 '
               '(in one group at least).', repeated=query.LAST,
               suffixes=_GROUP_SUFFIXES),
    QueryParam('required', _REQUIRED,
               versions=since(mv.CANDIDATES_TRAITS),
               repeatable_since=mv.ANY_TRAITS,
               suffixes=_GROUP_SUFFIXES),
    QueryParam('member_of', _MEMBER_OF,
               versions=since(mv.CANDIDATES_MEMBER_OF),
               repeatable_since=mv.REPEATED_MEMBER_OF,
               suffixes=_GROUP_SUFFIXES),
    # A uuid: checked by provider_query, in upstream's words.
    QueryParam('in_tree', 'The uuid of a provider: only '
               'candidates from its tree.',
               versions=since(mv.CANDIDATES_IN_TREE),
               repeated=query.LAST,
               suffixes=_GROUP_SUFFIXES),
    QueryParam('limit', 'At most this many allocation requests.',
               {'type': 'string', 'pattern': '^[1-9]([0-9]+)?$'},
               versions=since(mv.CANDIDATES_LIMIT),
               repeated=query.FIRST),
    QueryParam('group_policy', 'How suffixed groups share '
               'providers; required with two or more of them.',
               {'type': 'string', 'enum': ['none', 'isolate']},
               versions=since(mv.GRANULAR), repeated=query.FIRST),
    QueryParam('root_required', 'Comma-separated traits the root '
               'provider must have (``!`` forbids).',
               versions=since(mv.ROOT_REQUIRED)),
    QueryParam('same_subtree', 'Comma-separated group suffixes '
               'to be satisfied from one subtree.',
               versions=since(mv.SAME_SUBTREE),
               repeatable_since=mv.SAME_SUBTREE),
)

_PROVIDER_RESPONSE = (
    Response(200, response.PROVIDER, before(mv.NESTED_PROVIDERS)),
    Response(200, response.PROVIDER_V1_14, since(mv.NESTED_PROVIDERS)),
)
_AGGREGATES_RESPONSE = (
    Response(200, response.AGGREGATES,
             between(mv.AGGREGATES, mv.AGGREGATES_GENERATION)),
    Response(200, response.AGGREGATES_V1_19,
             since(mv.AGGREGATES_GENERATION)),
)
_CREATED = ('Location',)

OPERATIONS = (
    Operation(
        'GET', '/', root.home, 'The version document.',
        authenticated=False,
        responses=(Response(200, response.VERSIONS),)),
    Operation(
        'GET', '/openapi.json', api_document.get_document,
        'This OpenAPI document.', authenticated=False,
        responses=(Response(200, {'type': 'object'}),)),

    # Resource providers.
    Operation(
        'GET', '/resource_providers',
        resource_provider.list_resource_providers,
        'List resource providers, optionally filtered.',
        policy=provider_policies.LIST, large_answer=True,
        query=(
            QueryParam('name', 'The exact name of a provider.',
                       repeated=query.LAST),
            QueryParam('uuid', 'The uuid of a provider.', _UUID,
                       repeated=query.LAST),
            QueryParam('member_of', _MEMBER_OF, versions=since(mv.MEMBER_OF),
                       repeatable_since=mv.REPEATED_MEMBER_OF),
            QueryParam('resources', _RESOURCES + ' Providers with the '
                       'capacity for all of them.',
                       versions=since(mv.RESOURCES_FILTER),
                       repeated=query.LAST),
            QueryParam('in_tree', 'The uuid of a provider: only the '
                       'providers of its tree.', _UUID,
                       versions=since(mv.NESTED_PROVIDERS),
                       repeated=query.LAST),
            QueryParam('required', _REQUIRED,
                       versions=since(mv.PROVIDERS_TRAITS),
                       repeatable_since=mv.ANY_TRAITS),
        ),
        responses=(
            Response(200, response.PROVIDERS, before(mv.NESTED_PROVIDERS)),
            Response(200, response.PROVIDERS_V1_14,
                     since(mv.NESTED_PROVIDERS)),
        ),
        errors={400: _QUERY_ERRORS}),
    Operation(
        'POST', '/resource_providers',
        resource_provider.create_resource_provider,
        'Create a resource provider.',
        policy=provider_policies.CREATE, consumes=(JSON,),
        bodies=(
            Body(provider_schema.POST_RESOURCE_PROVIDER,
                 before(mv.NESTED_PROVIDERS)),
            Body(provider_schema.POST_RESOURCE_PROVIDER_V1_14,
                 since(mv.NESTED_PROVIDERS)),
        ),
        responses=(
            Response(201, None, before(mv.POST_PROVIDER_RETURNS_BODY),
                     headers=_CREATED),
            Response(200, response.PROVIDER_V1_14,
                     since(mv.POST_PROVIDER_RETURNS_BODY),
                     headers=_CREATED),
        ),
        errors={**_BAD_BODY, 409: (errors.DEFAULT, errors.DUPLICATE_NAME)}),
    Operation(
        'GET', '/resource_providers/{uuid}',
        resource_provider.get_resource_provider,
        'Show a resource provider.',
        policy=provider_policies.SHOW,
        responses=_PROVIDER_RESPONSE, errors=_NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}',
        resource_provider.update_resource_provider,
        'Update the name (and, from 1.14, the parent) of a provider.',
        policy=provider_policies.UPDATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(
            Body(provider_schema.PUT_RESOURCE_PROVIDER,
                 before(mv.NESTED_PROVIDERS)),
            Body(provider_schema.PUT_RESOURCE_PROVIDER_V1_14,
                 since(mv.NESTED_PROVIDERS)),
        ),
        responses=_PROVIDER_RESPONSE,
        errors={**_BAD_BODY, **_NOT_FOUND,
                409: (*_CONFLICT, errors.DUPLICATE_NAME)}),
    Operation(
        'DELETE', '/resource_providers/{uuid}',
        resource_provider.delete_resource_provider,
        'Delete a resource provider without allocations or children.',
        policy=provider_policies.DELETE, produces=(),
        responses=(Response(204),),
        errors={**_NOT_FOUND, 409: (
            *_CONFLICT, errors.PROVIDER_IN_USE,
            errors.PROVIDER_CANNOT_DELETE_PARENT)}),

    # Aggregates of a provider.
    Operation(
        'GET', '/resource_providers/{uuid}/aggregates',
        aggregate.get_aggregates, 'The aggregates of a provider.',
        policy=aggregate_policies.LIST, versions=since(mv.AGGREGATES),
        responses=_AGGREGATES_RESPONSE, errors=_NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/aggregates',
        aggregate.set_aggregates, 'Replace the aggregates of a provider.',
        policy=aggregate_policies.UPDATE, versions=since(mv.AGGREGATES),
        consumes=(JSON,), url_check=resource_provider.check_exists,
        bodies=(
            Body(aggregate_schema.PUT_AGGREGATES_V1_1,
                 between(mv.AGGREGATES, mv.AGGREGATES_GENERATION)),
            Body(aggregate_schema.PUT_AGGREGATES_V1_19,
                 since(mv.AGGREGATES_GENERATION)),
        ),
        responses=_AGGREGATES_RESPONSE,
        errors={**_BAD_BODY, **_NOT_FOUND, 409: _CONFLICT}),

    # Traits of a provider.
    Operation(
        'GET', '/resource_providers/{uuid}/traits',
        provider_trait.get_traits, 'The traits of a provider.',
        policy=trait_policies.RP_TRAIT_LIST, versions=since(mv.TRAITS),
        responses=(Response(200, response.PROVIDER_TRAITS),),
        errors=_NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/traits',
        provider_trait.set_traits, 'Replace the traits of a provider.',
        policy=trait_policies.RP_TRAIT_UPDATE, versions=since(mv.TRAITS),
        consumes=(JSON,), url_check=resource_provider.check_exists,
        bodies=(Body(provider_trait_schema.PUT_PROVIDER_TRAITS),),
        responses=(Response(200, response.PROVIDER_TRAITS),),
        errors={**_BAD_BODY, **_NOT_FOUND, 409: _CONFLICT}),
    Operation(
        'DELETE', '/resource_providers/{uuid}/traits',
        provider_trait.delete_traits, 'Remove every trait of a provider.',
        policy=trait_policies.RP_TRAIT_DELETE, versions=since(mv.TRAITS),
        produces=(), responses=(Response(204),),
        errors={**_NOT_FOUND, 409: _CONFLICT}),

    # Inventories of a provider.
    Operation(
        'GET', '/resource_providers/{uuid}/inventories',
        inventory.list_inventories, 'The inventories of a provider.',
        policy=inventory_policies.LIST,
        responses=(Response(200, response.INVENTORIES),),
        errors=_NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/inventories',
        inventory.set_inventories, 'Replace the inventories of a provider.',
        policy=inventory_policies.UPDATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(Body(inventory_schema.PUT_INVENTORIES),),
        responses=(Response(200, response.INVENTORIES),),
        errors={**_BAD_BODY, **_NOT_FOUND, 409: _INVENTORY_CONFLICT}),
    Operation(
        'POST', '/resource_providers/{uuid}/inventories',
        inventory.create_inventory, 'Add an inventory to a provider.',
        policy=inventory_policies.CREATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(Body(inventory_schema.POST_INVENTORY),),
        responses=(Response(201, response.INVENTORY, headers=_CREATED),),
        errors={**_BAD_BODY, **_NOT_FOUND, 409: _CONFLICT}),
    Operation(
        'DELETE', '/resource_providers/{uuid}/inventories',
        inventory.delete_inventories,
        'Delete every inventory of a provider.',
        policy=inventory_policies.DELETE,
        versions=since(mv.DELETE_ALL_INVENTORIES), too_early_status=405,
        responses=(Response(204),),
        errors={**_NOT_FOUND, 409: _INVENTORY_CONFLICT}),
    Operation(
        'GET', '/resource_providers/{uuid}/inventories/{resource_class}',
        inventory.get_inventory, 'One inventory of a provider.',
        policy=inventory_policies.SHOW,
        responses=(Response(200, response.INVENTORY),), errors=_NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/inventories/{resource_class}',
        inventory.update_inventory, 'Replace one inventory of a provider.',
        policy=inventory_policies.UPDATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(Body(inventory_schema.PUT_INVENTORY),),
        responses=(Response(200, response.INVENTORY),),
        errors={**_BAD_BODY, **_NOT_FOUND, 409: _INVENTORY_CONFLICT}),
    Operation(
        'DELETE', '/resource_providers/{uuid}/inventories/{resource_class}',
        inventory.delete_inventory, 'Delete one inventory of a provider.',
        policy=inventory_policies.DELETE, responses=(Response(204),),
        errors={**_NOT_FOUND, 409: _INVENTORY_CONFLICT}),

    # Allocations.
    Operation(
        'GET', '/resource_providers/{uuid}/allocations',
        allocation.list_for_provider,
        'The allocations against a provider, by consumer.',
        policy=allocation_policies.RP_ALLOC_LIST,
        responses=(
            Response(200, response.PROVIDER_ALLOCATIONS,
                     before(mv.CONSUMER_GENERATIONS)),
            Response(200, response.PROVIDER_ALLOCATIONS_V1_28,
                     since(mv.CONSUMER_GENERATIONS)),
        ),
        errors=_NOT_FOUND),
    Operation(
        'POST', '/allocations', allocation.set_allocations_for_consumers,
        'Replace the allocations of several consumers at once.',
        policy=allocation_policies.ALLOC_MANAGE,
        versions=since(mv.POST_ALLOCATIONS), consumes=(JSON,),
        bodies=_per_version(allocation_schema.post_allocations,
                          mv.POST_ALLOCATIONS, mv.CONSUMER_GENERATIONS,
                          mv.MAPPINGS, mv.CONSUMER_TYPES),
        responses=(Response(204),),
        errors={**_BAD_BODY, 409: _CONFLICT}),
    Operation(
        'GET', '/allocations/{consumer_uuid}', allocation.list_for_consumer,
        'The allocations of a consumer.',
        policy=allocation_policies.ALLOC_LIST,
        responses=(
            Response(200, response.CONSUMER_ALLOCATIONS,
                     before(mv.DICT_ALLOCATIONS)),
            Response(200, response.CONSUMER_ALLOCATIONS_V1_12,
                     between(mv.DICT_ALLOCATIONS, mv.CONSUMER_GENERATIONS)),
            Response(200, response.CONSUMER_ALLOCATIONS_V1_28,
                     between(mv.CONSUMER_GENERATIONS, mv.CONSUMER_TYPES)),
            Response(200, response.CONSUMER_ALLOCATIONS_V1_38,
                     since(mv.CONSUMER_TYPES)),
        )),
    Operation(
        'PUT', '/allocations/{consumer_uuid}', allocation.set_allocations,
        'Replace the allocations of a consumer.',
        policy=allocation_policies.ALLOC_UPDATE, consumes=(JSON,),
        url_check=allocation.check_consumer_uuid,
        bodies=_per_version(allocation_schema.put_allocations, mv.BASE,
                          mv.OWNER_REQUIRED, mv.DICT_ALLOCATIONS,
                          mv.CONSUMER_GENERATIONS, mv.MAPPINGS,
                          mv.CONSUMER_TYPES),
        responses=(Response(204),),
        errors={**_BAD_BODY, 409: _CONFLICT}),
    Operation(
        'DELETE', '/allocations/{consumer_uuid}',
        allocation.delete_allocations,
        'Delete every allocation of a consumer.',
        policy=allocation_policies.ALLOC_DELETE, responses=(Response(204),),
        errors={**_NOT_FOUND, 409: _CONFLICT}),
    Operation(
        'POST', '/reshaper', reshaper.reshape,
        'Move inventories and allocations between providers atomically.',
        policy=reshaper_policies.RESHAPE, versions=since(mv.RESHAPER),
        consumes=(JSON,),
        bodies=_per_version(reshaper_schema.reshaper, mv.RESHAPER,
                          mv.MAPPINGS, mv.CONSUMER_TYPES),
        responses=(Response(204),),
        errors={**_BAD_BODY,
                400: (errors.DEFAULT, errors.RESOURCE_PROVIDER_NOT_FOUND),
                409: _INVENTORY_CONFLICT}),

    # Usages.
    Operation(
        'GET', '/resource_providers/{uuid}/usages',
        usage.list_provider_usages,
        'Per resource class, the sum of the allocations against a provider.',
        policy=usage_policies.PROVIDER_USAGES,
        responses=(Response(200, response.PROVIDER_USAGES),),
        errors=_NOT_FOUND),
    Operation(
        'GET', '/usages', usage.list_usages,
        "The usages of a project's (and user's) consumers.",
        policy=usage_policies.TOTAL_USAGES, query_before_policy=True,
        versions=since(mv.TOTAL_USAGES),
        query=(
            QueryParam('project_id', 'The project of the consumers.',
                       usage_schema.QUERY_VALUES['project_id'],
                       required=True, code=errors.QUERYPARAM_BAD_VALUE),
            QueryParam('user_id', 'The user of the consumers.',
                       usage_schema.QUERY_VALUES['user_id'],
                       code=errors.QUERYPARAM_BAD_VALUE),
            QueryParam('consumer_type', 'A consumer type, ``all`` or '
                       '``unknown`` (the consumers without a type).',
                       usage_schema.QUERY_VALUES['consumer_type'],
                       versions=since(mv.CONSUMER_TYPES),
                       code=errors.QUERYPARAM_BAD_VALUE),
        ),
        responses=(
            Response(200, response.TOTAL_USAGES,
                     between(mv.TOTAL_USAGES, mv.CONSUMER_TYPES)),
            Response(200, response.TOTAL_USAGES_V1_38,
                     since(mv.CONSUMER_TYPES)),
        ),
        errors={400: _QUERY_ERRORS}),

    # Allocation candidates.
    Operation(
        'GET', '/allocation_candidates',
        allocation_candidate.list_allocation_candidates,
        'The allocations that could satisfy a request, and the providers '
        'involved.' + _GRANULAR,
        policy=candidate_policies.LIST, large_answer=True,
        versions=since(mv.ALLOCATION_CANDIDATES),
        query=_CANDIDATE_QUERY,
        responses=(
            Response(200, response.CANDIDATES,
                     between(mv.ALLOCATION_CANDIDATES, mv.DICT_ALLOCATIONS)),
            Response(200, response.CANDIDATES_V1_12,
                     between(mv.DICT_ALLOCATIONS, mv.CANDIDATES_TRAITS)),
            Response(200, response.CANDIDATES_V1_17,
                     between(mv.CANDIDATES_TRAITS, mv.NESTED_CANDIDATES)),
            Response(200, response.CANDIDATES_V1_29,
                     between(mv.NESTED_CANDIDATES, mv.MAPPINGS)),
            Response(200, response.CANDIDATES_V1_34, since(mv.MAPPINGS)),
        ),
        errors={400: _QUERY_ERRORS}),

    # Resource classes.
    Operation(
        'GET', '/resource_classes', resource_class.list_resource_classes,
        'List the resource classes, standard and custom.',
        policy=resource_class_policies.LIST,
        versions=since(mv.RESOURCE_CLASSES),
        responses=(Response(200, response.RESOURCE_CLASSES),)),
    Operation(
        'POST', '/resource_classes', resource_class.create_resource_class,
        'Create a custom resource class.',
        policy=resource_class_policies.CREATE,
        versions=since(mv.RESOURCE_CLASSES), consumes=(JSON,), produces=(),
        bodies=(Body(resource_class_schema.NAME_BODY),),
        responses=(Response(201, headers=_CREATED),),
        errors={**_BAD_BODY, 409: (errors.DEFAULT, errors.DUPLICATE_NAME)}),
    Operation(
        'GET', '/resource_classes/{name}', resource_class.get_resource_class,
        'Show a resource class.',
        policy=resource_class_policies.SHOW,
        versions=since(mv.RESOURCE_CLASSES),
        responses=(Response(200, response.RESOURCE_CLASS),),
        errors=_NOT_FOUND),
    Operation(
        'PUT', '/resource_classes/{name}',
        resource_class.update_resource_class,
        'Before 1.7 rename a custom resource class; from 1.7 make sure it '
        'exists (201 created, 204 already there).',
        policy=resource_class_policies.UPDATE,
        versions=since(mv.RESOURCE_CLASSES), consumes=(JSON,),
        bodies=(Body(resource_class_schema.NAME_BODY,
                     between(mv.RESOURCE_CLASSES,
                             mv.IDEMPOTENT_RESOURCE_CLASS)),),
        responses=(
            Response(200, response.RESOURCE_CLASS,
                     between(mv.RESOURCE_CLASSES,
                             mv.IDEMPOTENT_RESOURCE_CLASS)),
            Response(201, versions=since(mv.IDEMPOTENT_RESOURCE_CLASS),
                     headers=_CREATED),
            Response(204, versions=since(mv.IDEMPOTENT_RESOURCE_CLASS)),
        ),
        errors={**_BAD_BODY, **_NOT_FOUND,
                409: (errors.DEFAULT, errors.DUPLICATE_NAME)}),
    Operation(
        'DELETE', '/resource_classes/{name}',
        resource_class.delete_resource_class,
        'Delete a custom resource class without inventories.',
        policy=resource_class_policies.DELETE,
        versions=since(mv.RESOURCE_CLASSES), produces=(),
        responses=(Response(204),),
        errors={400: _BAD, **_NOT_FOUND, 409: _BAD}),

    # Traits.
    Operation(
        'GET', '/traits', trait.list_traits, 'List traits.',
        policy=trait_policies.LIST, versions=since(mv.TRAITS),
        query=(
            QueryParam('name', '``in:`` and comma-separated names, or '
                       '``startswith:`` and a prefix.'),
            QueryParam('associated', '``true``: only traits of some '
                       'provider; ``false``: only traits of none (in any '
                       'case).'),
        ),
        responses=(Response(200, response.TRAITS),),
        errors={400: _QUERY_ERRORS}),
    Operation(
        'GET', '/traits/{name}', trait.get_trait,
        'Whether a trait exists (204).',
        policy=trait_policies.SHOW, versions=since(mv.TRAITS), produces=(),
        responses=(Response(204),), errors=_NOT_FOUND),
    Operation(
        'PUT', '/traits/{name}', trait.put_trait,
        'Make sure a custom trait exists (201 created, 204 already there).',
        policy=trait_policies.UPDATE, versions=since(mv.TRAITS), produces=(),
        responses=(Response(201, headers=_CREATED), Response(204)),
        errors={400: _BAD}),
    Operation(
        'DELETE', '/traits/{name}', trait.delete_trait,
        'Delete a custom trait no provider has.',
        policy=trait_policies.DELETE, versions=since(mv.TRAITS), produces=(),
        responses=(Response(204),),
        errors={400: _BAD, **_NOT_FOUND, 409: _BAD}),
)

_REPORT_ARGUMENTS = {
    'service': 'A service whose resources to show (repeatable).',
    'area': 'An area whose resources to show (repeatable).',
    'resource': 'A resource class to show (repeatable).',
    'member_of': _MEMBER_OF,
    'in_tree': 'The uuid of a provider: only its tree.',
    'detail': 'Given (any value): per-provider detail.',
    'sort': 'The resource class to sort projects by.',
    'resources': _RESOURCES + ' The shape of one workload.',
    'required': _REQUIRED,
}


def _report_query(names):
    """The query parameters of a report: ``names`` of
    :mod:`placement.reports.documents`, repeatable as the CLI's."""
    return tuple(
        QueryParam(name, _REPORT_ARGUMENTS[name],
                   repeatable_since=(mv.BASE if name in documents.REPEATABLE
                                     else None))
        for name in sorted(names))


#: What every JSON report declares; a detailed one holds an entry per
#: provider tree and class.
_REPORT = {'query_before_policy': True, 'large_answer': True,
           'errors': {400: _QUERY_ERRORS}}

#: The operators' reports: outside the microversioned API (no
#: microversion needed); the JSON ones are in the OpenAPI document. The
#: page and its assets are served without a token; the page asks for one.
REPORTS = (
    Operation('GET', '/reports', reports.to_page,
              'Redirect to the reports page.', authenticated=False,
              produces=()),
    Operation('GET', '/reports/', reports.page, 'The reports page (HTML, '
              'whatever Accept says).', authenticated=False, produces=()),
    Operation('GET', '/reports/static/{name}', reports.static_file,
              'An asset of the reports page.', authenticated=False,
              produces=(), errors=_NOT_FOUND),
    Operation('GET', '/reports/capacity', reports.get_capacity,
              'Capacity and usage per class, in Limes\' cluster shape.',
              policy=report_policies.CAPACITY,
              query=_report_query(documents.CAPACITY_ARGUMENTS),
              responses=(Response(200, response.REPORT_CAPACITY),),
              **_REPORT),
    Operation('GET', '/reports/usage', reports.list_usage,
              'Usage per project.', policy=report_policies.USAGE,
              query=_report_query(documents.USAGE_ARGUMENTS),
              responses=(Response(200, response.REPORT_USAGE),),
              **_REPORT),
    Operation('GET', '/reports/usage/{project_id}',
              reports.get_project_usage, 'Usage of one project.',
              policy=report_policies.USAGE,
              query=_report_query(documents.PROJECT_USAGE_ARGUMENTS),
              responses=(Response(200, response.REPORT_PROJECT_USAGE),),
              **_REPORT),
    Operation('GET', '/metrics', metrics.scrape,
              'Prometheus metrics (text format, outside the microversioned '
              'API).', policy=metrics_policies.METRICS, produces=()),
    Operation('GET', '/reports/headroom', reports.get_headroom,
              'How many more workloads of a shape fit.',
              policy=report_policies.HEADROOM,
              query=_report_query(documents.HEADROOM_ARGUMENTS),
              responses=(Response(200, response.REPORT_HEADROOM),),
              **_REPORT),
    Operation('GET', '/reports/audit', reports.get_audit,
              'What in placement\'s data does not add up: a count and up '
              'to 20 examples per finding (a report, outside the '
              'microversioned API: it answers at any microversion).',
              policy=report_policies.AUDIT,
              query=_report_query(documents.AUDIT_ARGUMENTS),
              responses=(Response(200, audit.SCHEMA),), **_REPORT),
    Operation('GET', '/reports/explain', reports.get_explain,
              'Why GET /allocation_candidates finds what it finds for the '
              'same query, read as it is at the request\'s microversion '
              '(as at 1.10 below it): a funnel per request group and for '
              'the request, the number of candidates, and the nearest '
              'misses.', policy=report_policies.EXPLAIN,
              query=(*_CANDIDATE_QUERY, QueryParam(
                  'max_misses', 'The most misses shown (default 10).',
                  {'type': 'string', 'pattern': '^(0|[1-9][0-9]{0,2})$'},
                  code=errors.QUERYPARAM_BAD_VALUE)),
              responses=(Response(200, explain.SCHEMA),), **_REPORT),
)

#: The URLs served without a token (``/`` also as the empty path); the
#: page assets under a template path are let through by the auth
#: middleware itself.
PUBLIC_PATHS = frozenset(
    {''} | {operation.path for operation in OPERATIONS + REPORTS
            if not operation.authenticated and '{' not in operation.path})
