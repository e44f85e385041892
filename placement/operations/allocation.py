"""The allocations, by provider and by consumer."""

from placement import microversion as mv
from placement.contract import BAD_BODY
from placement.contract import CONFLICT
from placement.contract import JSON
from placement.contract import NOT_FOUND
from placement.contract import Operation
from placement.contract import Response
from placement.contract import before
from placement.contract import between
from placement.contract import per_version
from placement.contract import since
from placement.handlers import allocation
from placement.policies import allocation as policies
from placement.schemas import allocation as schema
from placement.schemas import response

OPERATIONS = (
    Operation(
        'GET', '/resource_providers/{uuid}/allocations',
        allocation.list_for_provider,
        'The allocations against a provider, by consumer.',
        policy=policies.RP_ALLOC_LIST,
        responses=(
            Response(200, response.PROVIDER_ALLOCATIONS,
                     before(mv.CONSUMER_GENERATIONS)),
            Response(200, response.PROVIDER_ALLOCATIONS_V1_28,
                     since(mv.CONSUMER_GENERATIONS)),
        ),
        errors=NOT_FOUND),
    Operation(
        'POST', '/allocations', allocation.set_allocations_for_consumers,
        'Replace the allocations of several consumers at once.',
        policy=policies.ALLOC_MANAGE,
        versions=since(mv.POST_ALLOCATIONS), consumes=(JSON,),
        bodies=per_version(schema.post_allocations,
                          mv.POST_ALLOCATIONS, mv.CONSUMER_GENERATIONS,
                          mv.MAPPINGS, mv.CONSUMER_TYPES),
        responses=(Response(204),),
        errors={**BAD_BODY, 409: CONFLICT}),
    Operation(
        'GET', '/allocations/{consumer_uuid}', allocation.list_for_consumer,
        'The allocations of a consumer.',
        policy=policies.ALLOC_LIST,
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
        policy=policies.ALLOC_UPDATE, consumes=(JSON,),
        url_check=allocation.check_consumer_uuid,
        bodies=per_version(schema.put_allocations, mv.BASE,
                          mv.OWNER_REQUIRED, mv.DICT_ALLOCATIONS,
                          mv.CONSUMER_GENERATIONS, mv.MAPPINGS,
                          mv.CONSUMER_TYPES),
        responses=(Response(204),),
        errors={**BAD_BODY, 409: CONFLICT}),
    Operation(
        'DELETE', '/allocations/{consumer_uuid}',
        allocation.delete_allocations,
        'Delete every allocation of a consumer.',
        policy=policies.ALLOC_DELETE, responses=(Response(204),),
        errors={**NOT_FOUND, 409: CONFLICT}),
)
