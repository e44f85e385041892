"""Policy rules of allocations."""

from placement.policies import base

ALLOC_MANAGE = 'placement:allocations:manage'
ALLOC_LIST = 'placement:allocations:list'
ALLOC_UPDATE = 'placement:allocations:update'
ALLOC_DELETE = 'placement:allocations:delete'
RP_ALLOC_LIST = 'placement:resource_providers:allocations:list'

_RULES = [
    base.api_rule(
        ALLOC_MANAGE, base.SYSTEM_ADMIN_API,
        'Manage allocations.',
        [('POST', '/allocations')]),
    base.api_rule(
        ALLOC_LIST, base.SYSTEM_READER_API,
        'List allocations.',
        [('GET', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        ALLOC_UPDATE, base.SYSTEM_ADMIN_API,
        'Update allocations.',
        [('PUT', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        ALLOC_DELETE, base.SYSTEM_ADMIN_API,
        'Delete allocations.',
        [('DELETE', '/allocations/{consumer_uuid}')]),
    base.api_rule(
        RP_ALLOC_LIST, base.SYSTEM_READER_API,
        'List resource provider allocations.',
        [('GET', '/resource_providers/{uuid}/allocations')]),
]


def list_rules():
    return _RULES
