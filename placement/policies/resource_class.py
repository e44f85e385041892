"""Policy rules of resource classes."""

from placement.policies import base

LIST = 'placement:resource_classes:list'
CREATE = 'placement:resource_classes:create'
SHOW = 'placement:resource_classes:show'
UPDATE = 'placement:resource_classes:update'
DELETE = 'placement:resource_classes:delete'

_RULES = [
    base.api_rule(
        LIST, base.ADMIN_OR_SERVICE_API,
        'List resource classes.',
        [('GET', '/resource_classes')]),
    base.api_rule(
        CREATE, base.ADMIN_OR_SERVICE_API,
        'Create resource class.',
        [('POST', '/resource_classes')]),
    base.api_rule(
        SHOW, base.ADMIN_OR_SERVICE_API,
        'Show resource class.',
        [('GET', '/resource_classes/{name}')]),
    base.api_rule(
        UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update resource class.',
        [('PUT', '/resource_classes/{name}')]),
    base.api_rule(
        DELETE, base.ADMIN_OR_SERVICE_API,
        'Delete resource class.',
        [('DELETE', '/resource_classes/{name}')]),
]


def list_rules():
    return _RULES
