"""Policy rules of allocations."""

from placement.policies import base

ALLOC_MANAGE = 'placement:allocations:manage'
ALLOC_LIST = 'placement:allocations:list'
ALLOC_UPDATE = 'placement:allocations:update'
ALLOC_DELETE = 'placement:allocations:delete'
RP_ALLOC_LIST = 'placement:resource_providers:allocations:list'

_RULES = [
    base.api_rule(
        ALLOC_MANAGE, base.ADMIN_OR_SERVICE_API,
        'Manage allocations.',
        [('POST', '/allocations')]),
    base.api_rule(
        ALLOC_LIST, base.ADMIN_OR_SERVICE_API,
        'List allocations.',
        [('GET', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        ALLOC_UPDATE, base.ADMIN_OR_SERVICE_API,
        'Update allocations.',
        [('PUT', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        ALLOC_DELETE, base.ADMIN_OR_SERVICE_API,
        'Delete allocations.',
        [('DELETE', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        RP_ALLOC_LIST, base.ADMIN_OR_SERVICE_API,
        'List resource provider allocations.',
        [('GET', '/resource_providers/{uuid}/allocations')]),
]


def list_rules():
    return _RULES
