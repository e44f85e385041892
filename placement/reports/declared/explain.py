"""GET /reports/explain and ``placement-manage report explain``: why a
GET /allocation_candidates query finds what it finds."""

from placement import errors
from placement import provider_query
from placement.policies import base
from placement.reports import declaration
from placement.reports import explain
from placement.reports import text_table


def build(conn, conf, params, request):
    max_misses = params.get('max_misses') or [explain.MAX_MISSES]
    with provider_query.resources_named_known():
        return explain.report(conn, request, int(max_misses[-1]))


def tables(document):
    report = document['explain']
    slots = [[slot['suffix'] or '(unsuffixed)',
              ','.join(f'{name}:{amount}' for name, amount
                       in slot['resources'].items()),
              stage, count]
             for slot in report['groups'] for stage, count in [
                 *((stage['stage'], stage['count'])
                   for stage in slot['funnel']),
                 *((stage, 'not counted') for stage in slot['uncounted'])]]
    decided = ['\n'.join(['Decided by:', *(
        f"  {amount['sentence']}" for amount in report['impossible'])])]
    return [*(decided if report['impossible'] else []),
            text_table.table(['Group', 'Resources', 'Stage', 'Providers'],
                             slots),
            text_table.table(['Stage', 'Trees'],
                             [[stage['stage'], stage['count']]
                              for stage in report['funnel']]),
            f"Candidates: {report['candidates']} (from {report['trees']} "
            f"trees)",
            '\n'.join(['Nearest misses:', *([
                f"  {miss['sentence']}" for miss in report['misses']]
                or ['  none'])])]


POLICY = declaration.Policy(
    'placement:reports:explain', base.ADMIN_OR_SERVICE_API,
    'Explain what a GET /allocation_candidates query finds: how many '
    'providers and trees pass each condition, and the nearest misses.')

REPORTS = (
    declaration.Report(
        '/reports/explain',
        'Why GET /allocation_candidates finds what it finds for the same '
        'query, read as it is at the request\'s microversion: a funnel per '
        'request group and for the request, the number of candidates, and '
        'the nearest misses.',
        POLICY, build, explain.SCHEMA,
        arguments=(declaration.Argument(
            'max_misses', f'The most misses shown (default '
            f'{explain.MAX_MISSES}).', metavar='N',
            schema={'type': 'string', 'pattern': '^(0|[1-9][0-9]{0,2})$'},
            code=errors.QUERYPARAM_BAD_VALUE,
            accepts='an integer from 0 to 999'),),
        tables=tables, command='explain', candidate_query=True),
)
