"""GET /reports/usage, /reports/usage/{project_id} and
``placement-manage report usage [--project ID]``."""

import time

from placement.policies import base
from placement.reports import arguments
from placement.reports import declaration
from placement.reports import text_table
from placement.reports import usage
from placement.schemas import response


def build(conn, conf, params):
    sort = params.get('sort', [None])[-1]
    return usage.all_projects(
        conn, arguments.selection(params), sort, int(time.time()))


def build_one(conn, conf, params, project_id):
    return usage.one_project(
        conn, project_id, arguments.selection(params), 'detail' in params,
        int(time.time()))


def _usage_of(project):
    """``{class name: usage}``, summed over the services of a class."""
    used = {}
    for service in project['services']:
        for resource in service['resources']:
            used[resource['name']] = (used.get(resource['name'], 0)
                                      + resource['usage'])
    return used


def tables(document):
    projects = (document['projects'] if 'projects' in document
                else [document['project']])
    usages = [(project['id'], _usage_of(project)) for project in projects]
    classes = sorted({name for _id, used in usages for name in used})
    printed = [text_table.table(
        ['Project', *classes],
        [[project, *(used.get(name, 0) for name in classes)]
         for project, used in usages])]
    consumer_types = document.get('project', {}).get('consumer_types')
    if consumer_types:
        printed.append(text_table.table(
            ['Consumer', 'Type', 'Usage'],
            [[consumer['uuid'], entry['type'],
              ', '.join(f'{name}={amount}' for name, amount
                        in sorted(consumer['usage'].items()))]
             for entry in consumer_types for consumer in entry['consumers']]))
    return printed


POLICY = declaration.Policy(
    'placement:reports:usage',
    f'{base.ADMIN_OR_SERVICE_API} or {base.PROJECT_READER_API}',
    'Report the usage of every project, or of one project (a project '
    'reader may see its own).')

REPORTS = (
    declaration.Report(
        '/reports/usage', 'Usage per project.', POLICY, build,
        response.REPORT_USAGE,
        arguments=(*arguments.SELECTION, declaration.Argument(
            'sort', 'Sort projects by their usage of this class, largest '
            'first.', metavar='CLASS')),
        tables=tables, command='usage',
        # No project in the target: only admins and services see them all.
        target=lambda variables: {'project_id': None}),
    declaration.Report(
        '/reports/usage/{project_id}', 'Usage of one project.',
        POLICY, build_one, response.REPORT_PROJECT_USAGE,
        arguments=(*arguments.SELECTION, declaration.Argument(
            'detail', 'Also each consumer (of one --project).',
            metavar=None)),
        tables=tables, command='usage',
        path_options={'project_id': ('project', 'Only this project.')},
        target=lambda variables: variables),
)
