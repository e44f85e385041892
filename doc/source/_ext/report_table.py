"""``.. report-table::``: the reports, from their declarations
(:mod:`placement.reports.declared`): path, what it answers, its policy
rule, its arguments and its ``placement-manage report`` command."""

import openapi_reference
from docutils.parsers.rst import Directive

from placement.reports import declared


def _arguments(report):
    if not report.arguments:
        return 'none'
    return ', '.join(
        f'``{argument.name}``' + (' (repeatable)' if argument.repeatable
                                  else '')
        for argument in report.arguments)


def _command(report):
    if report.command is None:
        return 'none'
    options = ''.join(f' --{option}' for option, _help
                      in report.path_options.values())
    return f'``report {report.command}{options}``'


def table_lines():
    lines = ['.. list-table::', '   :header-rows: 1', '',
             '   * - Path', '     - Answers', '     - Policy rule',
             '     - Arguments', '     - placement-manage']
    for report in declared.REPORTS:
        lines += [f'   * - ``GET {report.path}``',
                  f'     - {report.summary}',
                  f'     - ``{report.policy.name}``',
                  f'     - {_arguments(report)}',
                  f'     - {_command(report)}']
    return lines + ['']


class ReportTable(Directive):

    def run(self):
        return openapi_reference.parsed(self.state, table_lines(),
                                        'placement.reports.declared')


def setup(app):
    app.add_directive('report-table', ReportTable)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
