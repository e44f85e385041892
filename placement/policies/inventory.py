"""Policy rules of resource provider inventories."""

from placement.policies import base

LIST = 'placement:resource_providers:inventories:list'
CREATE = 'placement:resource_providers:inventories:create'
SHOW = 'placement:resource_providers:inventories:show'
UPDATE = 'placement:resource_providers:inventories:update'
DELETE = 'placement:resource_providers:inventories:delete'

_RULES = [
    base.api_rule(
        LIST, base.ADMIN_OR_SERVICE_API,
        'List resource provider inventories.',
        [('GET', '/resource_providers/{uuid}/inventories')]),
    base.api_rule(
        CREATE, base.ADMIN_OR_SERVICE_API,
        'Create one resource provider inventory.',
        [('POST', '/resource_providers/{uuid}/inventories')]),
    base.api_rule(
        SHOW, base.ADMIN_OR_SERVICE_API,
        'Show resource provider inventory.',
        [('GET', '/resource_providers/{uuid}/inventories/{resource_class}')]),
    base.api_rule(
        UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update resource provider inventory.',
        [('PUT', '/resource_providers/{uuid}/inventories'),
         ('PUT',
          '/resource_providers/{uuid}/inventories/{resource_class}')]),
    base.api_rule(
        DELETE, base.ADMIN_OR_SERVICE_API,
        'Delete resource provider inventory.',
        [('DELETE', '/resource_providers/{uuid}/inventories'),
         ('DELETE',
          '/resource_providers/{uuid}/inventories/{resource_class}')]),
]


def list_rules():
    return _RULES
