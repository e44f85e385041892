"""Policy rules of resource provider aggregates."""

from placement.policies import base

LIST = 'placement:resource_providers:aggregates:list'
UPDATE = 'placement:resource_providers:aggregates:update'

_RULES = [
    base.api_rule(
        LIST, base.ADMIN_OR_SERVICE_API,
        'List resource provider aggregates.',
        [('GET', '/resource_providers/{uuid}/aggregates')]),
    base.api_rule(
        UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update resource provider aggregates.',
        [('PUT', '/resource_providers/{uuid}/aggregates')]),
]


def list_rules():
    return _RULES
