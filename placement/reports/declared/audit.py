"""GET /reports/audit (``placement-manage audit`` is a command of its
own, with the repair)."""

from placement.policies import reports as policies
from placement.reports import audit
from placement.reports import declaration


def build(conn, conf, params):
    return audit.report(conn)


REPORTS = (
    declaration.Report(
        '/reports/audit',
        'What in placement\'s data does not add up: a count and up to 20 '
        'examples per finding (a report, outside the microversioned API: '
        'it answers at any microversion).',
        policies.AUDIT, build, audit.SCHEMA,
        # Live consumers, say, are refused rather than ignored, so that
        # nobody thinks they counted.
        refuses_arguments='(the audit takes none; the live consumers are '
                          'an option of placement-manage audit)'),
)
