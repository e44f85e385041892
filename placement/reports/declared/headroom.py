"""GET /reports/headroom and ``placement-manage report headroom``."""

from placement.policies import base
from placement.reports import arguments
from placement.reports import declaration
from placement.reports import headroom
from placement.reports import text_table
from placement.reports import zones
from placement.schemas import response


def build(conn, conf, params):
    return headroom.report(
        conn, zones.Zones.from_conf(conf), arguments.shape(params),
        arguments.scope(params))


def tables(document):
    report = document['headroom']
    rows = [[zone['name'], zone['count'], zone['providers']]
            for zone in report['per_availability_zone']]
    rows.append(['(all)', report['count'], report['providers']])
    return [text_table.table(['Zone', 'Fit', 'Providers'], rows),
            f"Counted: {report['counted']}",
            f"Not counted: {report['not_counted']}"]


POLICY = declaration.Policy(
    'placement:reports:headroom', base.ADMIN_OR_SERVICE_API,
    'Report how many more workloads of a given size fit.')

REPORTS = (
    declaration.Report(
        '/reports/headroom', 'How many more workloads of a size fit.',
        POLICY, build, response.REPORT_HEADROOM,
        arguments=(*arguments.SHAPE, *arguments.SCOPE),
        tables=tables, command='headroom'),
)
