"""The usages, of a provider and of a project."""

from placement import errors
from placement import microversion as mv
from placement.contract import NOT_FOUND
from placement.contract import QUERY_ERRORS
from placement.contract import Operation
from placement.contract import QueryParam
from placement.contract import Response
from placement.contract import between
from placement.contract import since
from placement.handlers import usage
from placement.policies import usage as policies
from placement.schemas import response
from placement.schemas import usage as schema

OPERATIONS = (
    Operation(
        'GET', '/resource_providers/{uuid}/usages',
        usage.list_provider_usages,
        'Per resource class, the sum of the allocations against a provider.',
        policy=policies.PROVIDER_USAGES,
        responses=(Response(200, response.PROVIDER_USAGES),),
        errors=NOT_FOUND),
    Operation(
        'GET', '/usages', usage.list_usages,
        "The usages of a project's (and user's) consumers.",
        policy=policies.TOTAL_USAGES, query_before_policy=True,
        versions=since(mv.TOTAL_USAGES),
        query=(
            QueryParam('project_id', 'The project of the consumers.',
                       schema.QUERY_VALUES['project_id'],
                       required=True, code=errors.QUERYPARAM_BAD_VALUE),
            QueryParam('user_id', 'The user of the consumers.',
                       schema.QUERY_VALUES['user_id'],
                       code=errors.QUERYPARAM_BAD_VALUE),
            QueryParam('consumer_type', 'A consumer type, ``all`` or '
                       '``unknown`` (the consumers without a type).',
                       schema.QUERY_VALUES['consumer_type'],
                       versions=since(mv.CONSUMER_TYPES),
                       code=errors.QUERYPARAM_BAD_VALUE),
        ),
        responses=(
            Response(200, response.TOTAL_USAGES,
                     between(mv.TOTAL_USAGES, mv.CONSUMER_TYPES)),
            Response(200, response.TOTAL_USAGES_V1_38,
                     since(mv.CONSUMER_TYPES)),
        ),
        errors={400: QUERY_ERRORS}),
)
