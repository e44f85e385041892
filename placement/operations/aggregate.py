"""The aggregates of a provider."""

from placement import microversion as mv
from placement.contract import BAD_BODY
from placement.contract import CONFLICT
from placement.contract import JSON
from placement.contract import NOT_FOUND
from placement.contract import Body
from placement.contract import Operation
from placement.contract import Response
from placement.contract import between
from placement.contract import since
from placement.handlers import aggregate
from placement.handlers import resource_provider
from placement.policies import aggregate as policies
from placement.schemas import aggregate as schema
from placement.schemas import response

_AGGREGATES_RESPONSE = (
    Response(200, response.AGGREGATES,
             between(mv.AGGREGATES, mv.AGGREGATES_GENERATION)),
    Response(200, response.AGGREGATES_V1_19,
             since(mv.AGGREGATES_GENERATION)),
)

OPERATIONS = (
    Operation(
        'GET', '/resource_providers/{uuid}/aggregates',
        aggregate.get_aggregates, 'The aggregates of a provider.',
        policy=policies.LIST, versions=since(mv.AGGREGATES),
        responses=_AGGREGATES_RESPONSE, errors=NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/aggregates',
        aggregate.set_aggregates, 'Replace the aggregates of a provider.',
        policy=policies.UPDATE, versions=since(mv.AGGREGATES),
        consumes=(JSON,), url_check=resource_provider.check_exists,
        bodies=(
            Body(schema.PUT_AGGREGATES_V1_1,
                 between(mv.AGGREGATES, mv.AGGREGATES_GENERATION)),
            Body(schema.PUT_AGGREGATES_V1_19,
                 since(mv.AGGREGATES_GENERATION)),
        ),
        responses=_AGGREGATES_RESPONSE,
        errors={**BAD_BODY, **NOT_FOUND, 409: CONFLICT}),
)
