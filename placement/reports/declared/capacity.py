"""GET /reports/capacity and ``placement-manage report capacity``."""

import time

from placement.policies import base
from placement.reports import arguments
from placement.reports import capacity
from placement.reports import declaration
from placement.reports import text_table
from placement.reports import zones
from placement.schemas import response


def build(conn, conf, params):
    return capacity.report(
        conn, zones.Zones.from_conf(conf), arguments.selection(params),
        arguments.scope(params), 'detail' in params, int(time.time()))


def tables(document):
    """One row per resource and zone; with --detail one per resource and
    tree. A class can be a resource of two services (areas)."""
    headers = ['Service', 'Resource', 'Unit', 'Zone', 'Capacity',
               'Raw capacity', 'Usage', 'Free']
    rows, subcapacities = [], []
    for service in document['cluster']['services']:
        for resource in service['resources']:
            for zone, numbers in [('(all)', resource),
                                  *[(entry['name'], entry) for entry in
                                    resource['per_availability_zone']]]:
                rows.append([service['type'], resource['name'],
                             resource.get('unit', ''), zone,
                             numbers['capacity'],
                             numbers.get('raw_capacity', ''),
                             numbers['usage'],
                             numbers['capacity'] - numbers['usage']])
            for sub in resource.get('subcapacities', ()):
                subcapacities.append([
                    sub['name'], service['type'], resource['name'],
                    sub['zone'], sub['capacity'],
                    sub.get('raw_capacity', ''), sub['usage'],
                    ' '.join(sub['traits'])])
    printed = [text_table.table(headers, rows)]
    if subcapacities:
        printed.append(text_table.table(
            ['Provider', 'Service', 'Resource', 'Zone', 'Capacity',
             'Raw capacity', 'Usage', 'Traits'], subcapacities))
    return printed


POLICY = declaration.Policy(
    'placement:reports:capacity', base.ADMIN_OR_SERVICE_API,
    'Report the capacity and usage of the cloud per resource class and '
    'availability zone.')

REPORTS = (
    declaration.Report(
        '/reports/capacity',
        'Capacity and usage per resource class and availability zone, in '
        'Limes\' cluster shape.',
        POLICY, build, response.REPORT_CAPACITY,
        arguments=(*arguments.SELECTION, *arguments.SCOPE,
                   declaration.Argument(
                       'detail', 'Also each provider tree.', metavar=None)),
        tables=tables, command='capacity'),
)
