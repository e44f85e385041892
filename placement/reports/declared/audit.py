"""GET /reports/audit (``placement-manage audit`` is a command of its
own, with the repair)."""

from placement.policies import base
from placement.reports import audit
from placement.reports import declaration


def build(conn, conf, params):
    return audit.report(conn)


POLICY = declaration.Policy(
    'placement:reports:audit', base.ADMIN_OR_SERVICE_API,
    'Report what in placement\'s data does not add up: usage over '
    'capacity, allocations without inventory, consumers in several '
    'trees or without allocations, missing records, broken provider '
    'trees.')

REPORTS = (
    declaration.Report(
        '/reports/audit',
        'What in placement\'s data does not add up: a count and up to 20 '
        'examples per finding (a report, outside the microversioned API: '
        'it answers at any microversion).',
        POLICY, build, audit.SCHEMA,
        # Live consumers, say, are refused rather than ignored, so that
        # nobody thinks they counted.
        refuses_arguments='(the audit takes none; the live consumers are '
                          'an option of placement-manage audit)'),
)
