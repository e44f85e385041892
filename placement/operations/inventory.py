"""The inventories of a provider."""

from placement import microversion as mv
from placement.contract import BAD_BODY
from placement.contract import CONFLICT
from placement.contract import CREATED
from placement.contract import INVENTORY_CONFLICT
from placement.contract import JSON
from placement.contract import NOT_FOUND
from placement.contract import Body
from placement.contract import Operation
from placement.contract import Response
from placement.contract import since
from placement.handlers import inventory
from placement.handlers import resource_provider
from placement.policies import inventory as policies
from placement.schemas import inventory as schema
from placement.schemas import response

OPERATIONS = (
    Operation(
        'GET', '/resource_providers/{uuid}/inventories',
        inventory.list_inventories, 'The inventories of a provider.',
        policy=policies.LIST,
        responses=(Response(200, response.INVENTORIES),),
        errors=NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/inventories',
        inventory.set_inventories, 'Replace the inventories of a provider.',
        policy=policies.UPDATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(Body(schema.PUT_INVENTORIES),),
        responses=(Response(200, response.INVENTORIES),),
        errors={**BAD_BODY, **NOT_FOUND, 409: INVENTORY_CONFLICT}),
    Operation(
        'POST', '/resource_providers/{uuid}/inventories',
        inventory.create_inventory, 'Add an inventory to a provider.',
        policy=policies.CREATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(Body(schema.POST_INVENTORY),),
        responses=(Response(201, response.INVENTORY, headers=CREATED),),
        errors={**BAD_BODY, **NOT_FOUND, 409: CONFLICT}),
    Operation(
        'DELETE', '/resource_providers/{uuid}/inventories',
        inventory.delete_inventories,
        'Delete every inventory of a provider.',
        policy=policies.DELETE,
        versions=since(mv.DELETE_ALL_INVENTORIES), too_early_status=405,
        responses=(Response(204),),
        errors={**NOT_FOUND, 409: INVENTORY_CONFLICT}),
    Operation(
        'GET', '/resource_providers/{uuid}/inventories/{resource_class}',
        inventory.get_inventory, 'One inventory of a provider.',
        policy=policies.SHOW,
        responses=(Response(200, response.INVENTORY),), errors=NOT_FOUND),
    Operation(
        'PUT', '/resource_providers/{uuid}/inventories/{resource_class}',
        inventory.update_inventory, 'Replace one inventory of a provider.',
        policy=policies.UPDATE, consumes=(JSON,),
        url_check=resource_provider.check_exists,
        bodies=(Body(schema.PUT_INVENTORY),),
        responses=(Response(200, response.INVENTORY),),
        errors={**BAD_BODY, **NOT_FOUND, 409: INVENTORY_CONFLICT}),
    Operation(
        'DELETE', '/resource_providers/{uuid}/inventories/{resource_class}',
        inventory.delete_inventory, 'Delete one inventory of a provider.',
        policy=policies.DELETE, responses=(Response(204),),
        errors={**NOT_FOUND, 409: INVENTORY_CONFLICT}),
)
