"""Policy rules of the reshaper."""

from placement.policies import base

RESHAPE = 'placement:reshaper:reshape'

_RULES = [
    base.api_rule(
        RESHAPE, base.SERVICE_API,
        'Reshape Inventory and Allocations.',
        [('POST', '/reshaper')]),
]


def list_rules():
    return _RULES
