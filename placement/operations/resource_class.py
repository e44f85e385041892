"""The resource classes."""

from placement import errors
from placement import microversion as mv
from placement.contract import BAD
from placement.contract import BAD_BODY
from placement.contract import CREATED
from placement.contract import JSON
from placement.contract import NOT_FOUND
from placement.contract import Body
from placement.contract import Operation
from placement.contract import Response
from placement.contract import between
from placement.contract import since
from placement.handlers import resource_class
from placement.policies import resource_class as policies
from placement.schemas import resource_class as schema
from placement.schemas import response

OPERATIONS = (
    Operation(
        'GET', '/resource_classes', resource_class.list_resource_classes,
        'List the resource classes, standard and custom.',
        policy=policies.LIST,
        versions=since(mv.RESOURCE_CLASSES),
        responses=(Response(200, response.RESOURCE_CLASSES),)),
    Operation(
        'POST', '/resource_classes', resource_class.create_resource_class,
        'Create a custom resource class.',
        policy=policies.CREATE,
        versions=since(mv.RESOURCE_CLASSES), consumes=(JSON,), produces=(),
        bodies=(Body(schema.NAME_BODY),),
        responses=(Response(201, headers=CREATED),),
        errors={**BAD_BODY, 409: (errors.DEFAULT, errors.DUPLICATE_NAME)}),
    Operation(
        'GET', '/resource_classes/{name}', resource_class.get_resource_class,
        'Show a resource class.',
        policy=policies.SHOW,
        versions=since(mv.RESOURCE_CLASSES),
        responses=(Response(200, response.RESOURCE_CLASS),),
        errors=NOT_FOUND),
    Operation(
        'PUT', '/resource_classes/{name}',
        resource_class.update_resource_class,
        'Before 1.7 rename a custom resource class; from 1.7 make sure it '
        'exists (201 created, 204 already there).',
        policy=policies.UPDATE,
        versions=since(mv.RESOURCE_CLASSES), consumes=(JSON,),
        bodies=(Body(schema.NAME_BODY,
                     between(mv.RESOURCE_CLASSES,
                             mv.IDEMPOTENT_RESOURCE_CLASS)),),
        responses=(
            Response(200, response.RESOURCE_CLASS,
                     between(mv.RESOURCE_CLASSES,
                             mv.IDEMPOTENT_RESOURCE_CLASS)),
            Response(201, versions=since(mv.IDEMPOTENT_RESOURCE_CLASS),
                     headers=CREATED),
            Response(204, versions=since(mv.IDEMPOTENT_RESOURCE_CLASS)),
        ),
        errors={**BAD_BODY, **NOT_FOUND,
                409: (errors.DEFAULT, errors.DUPLICATE_NAME)}),
    Operation(
        'DELETE', '/resource_classes/{name}',
        resource_class.delete_resource_class,
        'Delete a custom resource class without inventories.',
        policy=policies.DELETE,
        versions=since(mv.RESOURCE_CLASSES), produces=(),
        responses=(Response(204),),
        errors={400: BAD, **NOT_FOUND, 409: BAD}),
)
