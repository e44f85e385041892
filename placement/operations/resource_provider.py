"""The resource providers."""

from placement import errors
from placement import microversion as mv
from placement import query_params as params
from placement.contract import BAD_BODY
from placement.contract import CONFLICT
from placement.contract import CREATED
from placement.contract import JSON
from placement.contract import LAST
from placement.contract import NOT_FOUND
from placement.contract import QUERY_ERRORS
from placement.contract import Body
from placement.contract import Operation
from placement.contract import QueryParam
from placement.contract import Response
from placement.contract import before
from placement.contract import since
from placement.handlers import resource_provider
from placement.policies import resource_provider as policies
from placement.schemas import resource_provider as schema
from placement.schemas import response

_PROVIDER_RESPONSE = (
    Response(200, response.PROVIDER, before(mv.NESTED_PROVIDERS)),
    Response(200, response.PROVIDER_V1_14, since(mv.NESTED_PROVIDERS)),
)

OPERATIONS = (
    Operation(
        'GET', '/resource_providers',
        resource_provider.list_resource_providers,
        'List resource providers, optionally filtered.',
        policy=policies.LIST, large_answer=True,
        query=(
            QueryParam('name', 'The exact name of a provider.',
                       repeated=LAST),
            QueryParam('uuid', 'The uuid of a provider.', params.UUID,
                       repeated=LAST),
            QueryParam('member_of', params.MEMBER_OF,
                       versions=since(mv.MEMBER_OF),
                       repeatable_since=mv.REPEATED_MEMBER_OF),
            QueryParam('resources', params.RESOURCES + ' Providers with the '
                       'capacity for all of them.',
                       versions=since(mv.RESOURCES_FILTER),
                       repeated=LAST),
            QueryParam('in_tree', 'The uuid of a provider: only the '
                       'providers of its tree.', params.UUID,
                       versions=since(mv.NESTED_PROVIDERS),
                       repeated=LAST),
            QueryParam('required', params.REQUIRED,
                       versions=since(mv.PROVIDERS_TRAITS),
                       repeatable_since=mv.ANY_TRAITS, repeated=LAST),
        ),
        responses=(
            Response(200, response.PROVIDERS, before(mv.NESTED_PROVIDERS)),
            Response(200, response.PROVIDERS_V1_14,
                     since(mv.NESTED_PROVIDERS)),
        ),
        errors={400: QUERY_ERRORS}),
    Operation(
        'POST', '/resource_providers',
        resource_provider.create_resource_provider,
        'Create a resource provider.',
        policy=policies.CREATE, consumes=(JSON,),
        bodies=(
            Body(schema.POST_RESOURCE_PROVIDER,
                 before(mv.NESTED_PROVIDERS)),
            Body(schema.POST_RESOURCE_PROVIDER_V1_14,
                 since(mv.NESTED_PROVIDERS)),
        ),
        responses=(
            Response(201, None, before(mv.POST_PROVIDER_RETURNS_BODY),
                     headers=CREATED),
            Response(200, response.PROVIDER_V1_14,
                     since(mv.POST_PROVIDER_RETURNS_BODY),
                     headers=CREATED),
        ),
        errors={**BAD_BODY, 409: (errors.DEFAULT, errors.DUPLICATE_NAME)}),
    Operation(
        'GET', '/resource_providers/{uuid}',
        resource_provider.get_resource_provider,
        'Show a resource provider.',
        policy=policies.SHOW,
        responses=_PROVIDER_RESPONSE, errors=NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}',
        resource_provider.update_resource_provider,
        'Update the name (and, from 1.14, the parent) of a provider.',
        policy=policies.UPDATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(
            Body(schema.PUT_RESOURCE_PROVIDER,
                 before(mv.NESTED_PROVIDERS)),
            Body(schema.PUT_RESOURCE_PROVIDER_V1_14,
                 since(mv.NESTED_PROVIDERS)),
        ),
        responses=_PROVIDER_RESPONSE,
        errors={**BAD_BODY, **NOT_FOUND,
                409: (*CONFLICT, errors.DUPLICATE_NAME)}),
    Operation(
        'DELETE', '/resource_providers/{uuid}',
        resource_provider.delete_resource_provider,
        'Delete a resource provider without allocations or children.',
        policy=policies.DELETE, produces=(),
        responses=(Response(204),),
        errors={**NOT_FOUND, 409: (
            *CONFLICT, errors.PROVIDER_IN_USE,
            errors.PROVIDER_CANNOT_DELETE_PARENT)}),
)
