"""Policy rules of resource providers."""

from placement.policies import base

LIST = 'placement:resource_providers:list'
CREATE = 'placement:resource_providers:create'
SHOW = 'placement:resource_providers:show'
UPDATE = 'placement:resource_providers:update'
DELETE = 'placement:resource_providers:delete'

_RULES = [
    base.api_rule(
        LIST, base.ADMIN_OR_SERVICE_API,
        'List resource providers.',
        [('GET', '/resource_providers')]),
    base.api_rule(
        CREATE, base.ADMIN_OR_SERVICE_API,
        'Create resource provider.',
        [('POST', '/resource_providers')]),
    base.api_rule(
        SHOW, base.ADMIN_OR_SERVICE_API,
        'Show resource provider.',
        [('GET', '/resource_providers/{uuid}')]),
    base.api_rule(
        UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update resource provider.',
        [('PUT', '/resource_providers/{uuid}')]),
    base.api_rule(
        DELETE, base.ADMIN_OR_SERVICE_API,
        'Delete resource provider.',
        [('DELETE', '/resource_providers/{uuid}')]),
]


def list_rules():
    return _RULES
