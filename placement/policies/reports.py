"""Policy rules of the operators' reports (outside the microversioned API).

They name the base rules of today's defaults by string.
"""

from placement.policies import base

CAPACITY = 'placement:reports:capacity'
USAGE = 'placement:reports:usage'
HEADROOM = 'placement:reports:headroom'

_ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
_PROJECT_READER = 'rule:project_reader_api'

_RULES = [
    base.api_rule(
        CAPACITY, _ADMIN_OR_SERVICE,
        'Report the capacity and usage of the cloud per resource class and '
        'availability zone.',
        [('GET', '/reports/capacity')],
        scope_types=('project',)),
    base.api_rule(
        USAGE, f'{_ADMIN_OR_SERVICE} or {_PROJECT_READER}',
        'Report the usage of every project, or of one project (a project '
        'reader may see its own).',
        [('GET', '/reports/usage'), ('GET', '/reports/usage/{project_id}')],
        scope_types=('project',)),
    base.api_rule(
        HEADROOM, _ADMIN_OR_SERVICE,
        'Report how many more workloads of a given size fit.',
        [('GET', '/reports/headroom')],
        scope_types=('project',)),
]


def list_rules():
    return _RULES
