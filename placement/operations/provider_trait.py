"""The traits of a provider."""

from placement import microversion as mv
from placement.contract import BAD_BODY
from placement.contract import CONFLICT
from placement.contract import JSON
from placement.contract import NOT_FOUND
from placement.contract import Body
from placement.contract import Operation
from placement.contract import Response
from placement.contract import since
from placement.handlers import provider_trait
from placement.handlers import resource_provider
from placement.policies import trait as policies
from placement.schemas import provider_trait as schema
from placement.schemas import response

OPERATIONS = (
    Operation(
        'GET', '/resource_providers/{uuid}/traits',
        provider_trait.get_traits, 'The traits of a provider.',
        policy=policies.RP_TRAIT_LIST, versions=since(mv.TRAITS),
        responses=(Response(200, response.PROVIDER_TRAITS),),
        errors=NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/traits',
        provider_trait.set_traits, 'Replace the traits of a provider.',
        policy=policies.RP_TRAIT_UPDATE, versions=since(mv.TRAITS),
        consumes=(JSON,), url_check=resource_provider.check_exists,
        bodies=(Body(schema.PUT_PROVIDER_TRAITS),),
        responses=(Response(200, response.PROVIDER_TRAITS),),
        errors={**BAD_BODY, **NOT_FOUND, 409: CONFLICT}),
    Operation(
        'DELETE', '/resource_providers/{uuid}/traits',
        provider_trait.delete_traits, 'Remove every trait of a provider.',
        policy=policies.RP_TRAIT_DELETE, versions=since(mv.TRAITS),
        produces=(), responses=(Response(204),),
        errors={**NOT_FOUND, 409: CONFLICT}),
)
