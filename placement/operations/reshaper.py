"""The reshaper: inventories and allocations moved at once."""

from placement import errors
from placement import microversion as mv
from placement.contract import BAD_BODY
from placement.contract import INVENTORY_CONFLICT
from placement.contract import JSON
from placement.contract import Operation
from placement.contract import Response
from placement.contract import per_version
from placement.contract import since
from placement.handlers import reshaper
from placement.policies import reshaper as policies
from placement.schemas import reshaper as schema

OPERATIONS = (
    Operation(
        'POST', '/reshaper', reshaper.reshape,
        'Move inventories and allocations between providers atomically.',
        policy=policies.RESHAPE, versions=since(mv.RESHAPER),
        consumes=(JSON,),
        bodies=per_version(schema.reshaper, mv.RESHAPER,
                          mv.MAPPINGS, mv.CONSUMER_TYPES),
        responses=(Response(204),),
        errors={**BAD_BODY,
                400: (errors.DEFAULT, errors.RESOURCE_PROVIDER_NOT_FOUND),
                409: INVENTORY_CONFLICT}),
)
