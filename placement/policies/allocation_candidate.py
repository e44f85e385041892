"""Policy rules of allocation candidates."""

from placement.policies import base

LIST = 'placement:allocation_candidates:list'

_RULES = [
    base.api_rule(
        LIST, base.ADMIN_OR_SERVICE_API,
        'List allocation candidates.',
        [('GET', '/allocation_candidates')]),
]


def list_rules():
    return _RULES
