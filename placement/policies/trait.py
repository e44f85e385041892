"""Policy rules of traits."""

from placement.policies import base

LIST = 'placement:traits:list'
SHOW = 'placement:traits:show'
UPDATE = 'placement:traits:update'
DELETE = 'placement:traits:delete'
RP_TRAIT_LIST = 'placement:resource_providers:traits:list'
RP_TRAIT_UPDATE = 'placement:resource_providers:traits:update'
RP_TRAIT_DELETE = 'placement:resource_providers:traits:delete'

_RULES = [
    base.api_rule(
        LIST, base.ADMIN_OR_SERVICE_API,
        'List traits.',
        [('GET', '/traits')]),
    base.api_rule(
        SHOW, base.ADMIN_OR_SERVICE_API,
        'Show trait.',
        [('GET', '/traits/{name}')]),
    base.api_rule(
        UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update trait.',
        [('PUT', '/traits/{name}')]),
    base.api_rule(
        DELETE, base.ADMIN_OR_SERVICE_API,
        'Delete trait.',
        [('DELETE', '/traits/{name}')]),
    base.api_rule(
        RP_TRAIT_LIST, base.ADMIN_OR_SERVICE_API,
        'List resource provider traits.',
        [('GET', '/resource_providers/{uuid}/traits')]),
    base.api_rule(
        RP_TRAIT_UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update resource provider traits.',
        [('PUT', '/resource_providers/{uuid}/traits')]),
    base.api_rule(
        RP_TRAIT_DELETE, base.ADMIN_OR_SERVICE_API,
        'Delete resource provider traits.',
        [('DELETE', '/resource_providers/{uuid}/traits')]),
]


def list_rules():
    return _RULES
