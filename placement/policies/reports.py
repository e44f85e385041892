"""Policy rules of the operators' reports (outside the microversioned API)."""

from placement.policies import base

CAPACITY = 'placement:reports:capacity'
USAGE = 'placement:reports:usage'
HEADROOM = 'placement:reports:headroom'
AUDIT = 'placement:reports:audit'
EXPLAIN = 'placement:reports:explain'

_RULES = [
    base.api_rule(
        CAPACITY, base.ADMIN_OR_SERVICE_API,
        'Report the capacity and usage of the cloud per resource class and '
        'availability zone.',
        [('GET', '/reports/capacity')]),
    base.api_rule(
        USAGE, f'{base.ADMIN_OR_SERVICE_API} or {base.PROJECT_READER_API}',
        'Report the usage of every project, or of one project (a project '
        'reader may see its own).',
        [('GET', '/reports/usage'), ('GET', '/reports/usage/{project_id}')]),
    base.api_rule(
        HEADROOM, base.ADMIN_OR_SERVICE_API,
        'Report how many more workloads of a given size fit.',
        [('GET', '/reports/headroom')]),
    base.api_rule(
        AUDIT, base.ADMIN_OR_SERVICE_API,
        'Report what in placement\'s data does not add up: usage over '
        'capacity, allocations without inventory, consumers in several '
        'trees or without allocations, missing records, broken provider '
        'trees.',
        [('GET', '/reports/audit')]),
    base.api_rule(
        EXPLAIN, base.ADMIN_OR_SERVICE_API,
        'Explain what a GET /allocation_candidates query finds: how many '
        'providers and trees pass each condition, and the nearest misses.',
        [('GET', '/reports/explain')]),
]


def list_rules():
    return _RULES
