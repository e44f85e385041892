"""The operators' reports and their page (outside the microversioned
API: no microversion needed): the JSON ones, in the OpenAPI document,
are derived from their declarations (:mod:`placement.reports.declared`).
The page and its assets are served without a token; the page asks for
one."""

from placement.contract import NOT_FOUND
from placement.contract import QUERY_ERRORS
from placement.contract import Operation
from placement.contract import Response
from placement.handlers import reports
from placement.reports import declared


def _operation(report):
    """The operation of a declared report; a detailed one holds an entry
    per provider tree and class."""
    return Operation(
        'GET', report.path, reports.answering(report), report.summary,
        policy=report.policy.name, query_before_policy=True, large_answer=True,
        query=report.query(),
        responses=(Response(200, report.schema),),
        errors={400: QUERY_ERRORS})


OPERATIONS = (
    Operation('GET', '/reports', reports.to_page,
              'Redirect to the reports page.', authenticated=False,
              produces=()),
    Operation('GET', '/reports/', reports.page, 'The reports page (HTML, '
              'whatever Accept says).', authenticated=False, produces=()),
    Operation('GET', '/reports/static/{name}', reports.static_file,
              'An asset of the reports page.', authenticated=False,
              produces=(), errors=NOT_FOUND),
    *map(_operation, declared.REPORTS),
)
