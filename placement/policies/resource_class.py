"""Policy rules of resource classes."""

from placement.policies import base

LIST = 'placement:resource_classes:list'
CREATE = 'placement:resource_classes:create'
SHOW = 'placement:resource_classes:show'
UPDATE = 'placement:resource_classes:update'
DELETE = 'placement:resource_classes:delete'

_RULES = [
    base.api_rule(
        LIST, base.SYSTEM_READER_API,
        'List resource classes.',
        [('GET', '/resource_classes')]),
    base.api_rule(
        CREATE, base.SYSTEM_ADMIN_API,
        'Create resource class.',
        [('POST', '/resource_classes')]),
    base.api_rule(
        SHOW, base.SYSTEM_READER_API,
        'Show resource class.',
        [('GET', '/resource_classes/{name}')]),
    base.api_rule(
        UPDATE, base.SYSTEM_ADMIN_API,
        'Update resource class.',
        [('PUT', '/resource_classes/{name}')]),
    base.api_rule(
        DELETE, base.SYSTEM_ADMIN_API,
        'Delete resource class.',
        [('DELETE', '/resource_classes/{name}')]),
]


def list_rules():
    return _RULES
