"""The operators' reports and their page (outside the microversioned
API: no microversion needed); the JSON ones are in the OpenAPI document.
The page and its assets are served without a token; the page asks for
one."""

from placement import microversion as mv
from placement.contract import NOT_FOUND
from placement.contract import QUERY_ERRORS
from placement.contract import Operation
from placement.contract import QueryParam
from placement.contract import Response
from placement.handlers import reports
from placement.operations import params
from placement.policies import reports as policies
from placement.reports import audit
from placement.reports import documents
from placement.schemas import response

_REPORT_ARGUMENTS = {
    'service': 'A service whose resources to show (repeatable).',
    'area': 'An area whose resources to show (repeatable).',
    'resource': 'A resource class to show (repeatable).',
    'member_of': params.MEMBER_OF,
    'in_tree': 'The uuid of a provider: only its tree.',
    'detail': 'Given (any value): per-provider detail.',
    'sort': 'The resource class to sort projects by.',
    'resources': params.RESOURCES + ' The shape of one workload.',
    'required': params.REQUIRED,
}


def _report_query(names):
    """The query parameters of a report: ``names`` of
    :mod:`placement.reports.documents`, repeatable as the CLI's."""
    return tuple(
        QueryParam(name, _REPORT_ARGUMENTS[name],
                   repeatable_since=(mv.BASE if name in documents.REPEATABLE
                                     else None))
        for name in sorted(names))


#: What every JSON report declares; a detailed one holds an entry per
#: provider tree and class.
_REPORT = {'query_before_policy': True, 'large_answer': True,
           'errors': {400: QUERY_ERRORS}}

#: The operators' reports: outside the microversioned API (no
#: microversion needed); the JSON ones are in the OpenAPI document. The
#: page and its assets are served without a token; the page asks for one.
OPERATIONS = (
    Operation('GET', '/reports', reports.to_page,
              'Redirect to the reports page.', authenticated=False,
              produces=()),
    Operation('GET', '/reports/', reports.page, 'The reports page (HTML, '
              'whatever Accept says).', authenticated=False, produces=()),
    Operation('GET', '/reports/static/{name}', reports.static_file,
              'An asset of the reports page.', authenticated=False,
              produces=(), errors=NOT_FOUND),
    Operation('GET', '/reports/capacity', reports.get_capacity,
              'Capacity and usage per class, in Limes\' cluster shape.',
              policy=policies.CAPACITY,
              query=_report_query(documents.CAPACITY_ARGUMENTS),
              responses=(Response(200, response.REPORT_CAPACITY),),
              **_REPORT),
    Operation('GET', '/reports/usage', reports.list_usage,
              'Usage per project.', policy=policies.USAGE,
              query=_report_query(documents.USAGE_ARGUMENTS),
              responses=(Response(200, response.REPORT_USAGE),),
              **_REPORT),
    Operation('GET', '/reports/usage/{project_id}',
              reports.get_project_usage, 'Usage of one project.',
              policy=policies.USAGE,
              query=_report_query(documents.PROJECT_USAGE_ARGUMENTS),
              responses=(Response(200, response.REPORT_PROJECT_USAGE),),
              **_REPORT),
    Operation('GET', '/reports/headroom', reports.get_headroom,
              'How many more workloads of a shape fit.',
              policy=policies.HEADROOM,
              query=_report_query(documents.HEADROOM_ARGUMENTS),
              responses=(Response(200, response.REPORT_HEADROOM),),
              **_REPORT),
    Operation('GET', '/reports/audit', reports.get_audit,
              'What in placement\'s data does not add up: a count and up '
              'to 20 examples per finding (a report, outside the '
              'microversioned API: it answers at any microversion).',
              policy=policies.AUDIT,
              query=_report_query(documents.AUDIT_ARGUMENTS),
              responses=(Response(200, audit.SCHEMA),), **_REPORT),
)

