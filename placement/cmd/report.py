"""``placement-manage report``: the reports, straight from the database.

    placement-manage report capacity [--format table|json] [--detail]
        [--service S]... [--area A]... [--resource CLASS]...
        [--member-of AGGREGATES]... [--in-tree UUID]
    placement-manage report usage [--format table|json] [--project ID]
        [--sort CLASS] [--detail] [--service S]... [--area A]...
        [--resource CLASS]...
    placement-manage report headroom --resources VCPU:4,MEMORY_MB:8192
        [--required TRAITS]... [--member-of AGGREGATES]... [--in-tree UUID]
        [--format table|json]
    placement-manage report explain 'resources=VCPU:4&required=...'
        [--microversion 1.39] [--format table|json]

The same documents as GET /reports/..., for admins on a controller node
without a token; ``table`` (the default) prints them as tables.
"""

import json
import sys

import webob
import webob.exc

from placement import exception
from placement import microversion
from placement import operations
from placement import query
from placement.cmd import text_table
from placement.db import api as db_api
from placement.reports import documents
from placement.reports import explain
from placement.reports import zones

# The repeatable options, named as the query arguments they stand for.
_LIST_OPTIONS = {
    'service': 'Only this service (compute, network, storage).',
    'area': 'Only this area (compute, network, storage).',
    'resource': 'Only this resource class.',
    'member_of': 'Only providers (or their roots) in these aggregates: '
                 'UUID, in:UUID1,UUID2 or !UUID.',
    'required': 'Traits the provider must have: T, in:T1,T2 or !T.',
}


_table = text_table.table


def _capacity_tables(document):
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
    tables = [_table(headers, rows)]
    if subcapacities:
        tables.append(_table(['Provider', 'Service', 'Resource', 'Zone',
                              'Capacity', 'Raw capacity', 'Usage',
                              'Traits'], subcapacities))
    return tables


def _usage_of(project):
    """``{class name: usage}``, summed over the services of a class."""
    usage = {}
    for service in project['services']:
        for resource in service['resources']:
            usage[resource['name']] = (usage.get(resource['name'], 0)
                                       + resource['usage'])
    return usage


def _usage_tables(document):
    projects = document.get('projects') or [document['project']]
    usages = [(project['id'], _usage_of(project)) for project in projects]
    classes = sorted({name for _id, used in usages for name in used})
    tables = [_table(['Project', *classes],
                     [[project, *(used.get(name, 0) for name in classes)]
                      for project, used in usages])]
    consumer_types = document.get('project', {}).get('consumer_types')
    if consumer_types:
        tables.append(_table(
            ['Consumer', 'Type', 'Usage'],
            [[consumer['uuid'], entry['type'],
              ', '.join(f'{name}={amount}' for name, amount
                        in sorted(consumer['usage'].items()))]
             for entry in consumer_types for consumer in entry['consumers']]))
    return tables


def _headroom_tables(document):
    report = document['headroom']
    rows = [[zone['name'], zone['count'], zone['providers']]
            for zone in report['per_availability_zone']]
    rows.append(['(all)', report['count'], report['providers']])
    return [_table(['Zone', 'Fit', 'Providers'], rows),
            f"Counted: {report['counted']}",
            f"Not counted: {report['not_counted']}"]


def _explain_tables(document):
    report = document['explain']
    slots = [[slot['suffix'] or '(unsuffixed)',
              ','.join(f'{name}:{amount}' for name, amount
                       in slot['resources'].items()),
              stage['stage'], stage['count']]
             for slot in report['groups'] for stage in slot['funnel']]
    return [_table(['Group', 'Resources', 'Stage', 'Providers'], slots),
            _table(['Stage', 'Trees'],
                   [[stage['stage'], stage['count']]
                    for stage in report['funnel']]),
            f"Candidates: {report['candidates']} (from {report['trees']} "
            f"trees)",
            '\n'.join(['Nearest misses:', *([
                f"  {miss['sentence']}" for miss in report['misses']]
                or ['  none'])])]


def explain_arguments(query_string, version):
    """The explain report's arguments: ``query_string`` read as the API
    reads it at microversion ``version``; webob's 400 if it is bad."""
    req = webob.Request.blank(f'/reports/explain?{query_string}')
    req.environ[microversion.MICROVERSION_ENVIRON] = version
    operation = next(operation for operation in operations.REPORTS
                     if operation.path == '/reports/explain')
    request, max_misses = explain.arguments(req, query.parse(operation, req))
    return {'request': request, 'max_misses': max_misses}


def _usage(conn, conf, params, project=None):
    if project is not None:
        return documents.project_usage(conn, conf, params, project)
    return documents.usage(conn, conf, params)


# report: (build the document, print it as tables, its arguments)
_REPORTS = {
    'capacity': (documents.capacity, _capacity_tables,
                 documents.CAPACITY_ARGUMENTS),
    'usage': (_usage, _usage_tables,
              documents.USAGE_ARGUMENTS | documents.PROJECT_USAGE_ARGUMENTS),
    'headroom': (documents.headroom, _headroom_tables,
                 documents.HEADROOM_ARGUMENTS),
    'explain': (documents.explain, _explain_tables, ()),
}


def _params(args, names):
    """``{argument: [values]}`` of the options given on the command line."""
    params = {}
    for name in names:
        value = getattr(args, name)
        if value in (None, [], False):
            continue
        if value is True:  # --detail
            value = ''
        params[name] = value if isinstance(value, list) else [value]
    return params


def run(commands):
    """Print the report the command line asks for; 1 for bad input."""
    conf = commands.conf
    args = conf.command
    build, tables, names = _REPORTS[args.report]
    extra = {'project': args.project} if args.report == 'usage' else {}
    database = db_api.connected(conf.placement_database)
    try:
        if args.report == 'explain':
            extra = explain_arguments(args.query, args.microversion)
        document = database.read(build, conf, _params(args, names),
                                 **extra)
    except (webob.exc.HTTPBadRequest, exception.PlacementError,
            zones.ZoneMapError) as exc:
        print(getattr(exc, 'detail', None) or exc, file=sys.stderr)
        return 1
    finally:
        database.dispose()
    if args.format == 'json':
        # Detailed lists are generators, made as they are written.
        print(json.dumps(document, indent=2, default=list))
    else:
        print('\n\n'.join(tables(document)))
    return 0


def _add_list_option(parser, name, metavar):
    parser.add_argument(f"--{name.replace('_', '-')}", dest=name,
                        action='append', default=[], metavar=metavar,
                        help=_LIST_OPTIONS[name])


def add_parsers(subparsers):
    """The ``report`` command and its three reports."""
    report = subparsers.add_parser('report', help='Capacity reports')
    reports = report.add_subparsers(dest='report', metavar='<report>')
    reports.required = True
    parsers = {
        'capacity': reports.add_parser(
            'capacity', help='Capacity and usage per resource class and '
                             'availability zone.'),
        'usage': reports.add_parser(
            'usage', help='Usage per project.'),
        'headroom': reports.add_parser(
            'headroom', help='How many more workloads of a size fit.'),
        'explain': reports.add_parser(
            'explain', help='Why GET /allocation_candidates finds what it '
                            'finds for a query.'),
    }
    for parser in parsers.values():
        parser.add_argument('--format', choices=('table', 'json'),
                            default='table')
        parser.set_defaults(func=run)
    for name in ('capacity', 'usage'):
        for option in ('service', 'area', 'resource'):
            _add_list_option(parsers[name], option, option.upper())
        parsers[name].add_argument(
            '--detail', action='store_true',
            help='Also each provider tree (capacity) or consumer (usage '
                 'of one --project).')
    for name in ('capacity', 'headroom'):
        _add_list_option(parsers[name], 'member_of', 'AGGREGATES')
        parsers[name].add_argument(
            '--in-tree', dest='in_tree', metavar='UUID',
            help='Only the tree of this provider.')
    parsers['usage'].add_argument('--project', help='Only this project.')
    parsers['usage'].add_argument(
        '--sort', metavar='CLASS',
        help='Sort projects by their usage of this class, largest first.')
    parsers['headroom'].add_argument(
        '--resources', required=True, metavar='CLASS:AMOUNT,...',
        help='The size of one workload, e.g. VCPU:4,MEMORY_MB:8192.')
    _add_list_option(parsers['headroom'], 'required', 'TRAITS')
    parsers['explain'].add_argument(
        'query', metavar='QUERY',
        help='The query string of GET /allocation_candidates, e.g. '
             "'resources=VCPU:4&required=HW_CPU_X86_AVX2&max_misses=5'.")
    parsers['explain'].add_argument(
        '--microversion', default=microversion.MAX_VERSION_STRING,
        type=microversion.parse,
        help='Read the query as at this microversion (default: the '
             'latest).')
