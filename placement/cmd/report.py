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
        [--max-misses N] [--microversion 1.39] [--format table|json]

The same documents as GET /reports/..., for admins on a controller node
without a token; ``table`` (the default) prints them as tables. The
commands and their options are derived from the reports' declarations
(:mod:`placement.reports.declared`): a command per ``command`` named,
an option per argument and per path variable. A report that reads the
query of GET /allocation_candidates (explain) takes it as a query string,
read as the API reads it at ``--microversion``: the report's parameters
(:meth:`placement.reports.declaration.Report.query`) and
:func:`placement.query_values.parse_query_string`.
"""

import argparse
import json
import sys
import urllib.parse

import jsonschema

from placement import exception
from placement import microversion
from placement import query_values
from placement.db import api as db_api
from placement.reports import declared
from placement.reports import zones


def _commands():
    """``{command: [Report, ...]}``, the reports with most path
    variables first (the one whose variables are all given answers)."""
    commands = {}
    for report in declared.REPORTS:
        if report.command is not None:
            commands.setdefault(report.command, []).append(report)
    return {command: sorted(reports, key=lambda report:
                            -len(report.variables()))
            for command, reports in commands.items()}


def _params(args, report):
    """``{argument: [values]}`` of the options given on the command line."""
    params = {}
    for argument in report.arguments:
        value = getattr(args, argument.name)
        if value in (None, [], False):
            continue
        if value is True:  # a flag
            value = ''
        params[argument.name] = value if isinstance(value, list) else [value]
    return params


def _read_query(report, query_string, version):
    """``(params, variables)`` of a report that reads the candidates'
    query: ``query_string`` read as GET ``report.path`` reads it at
    ``version``."""
    return report.inputs(version, query_values.parse_query_string(
        report.query(), version, query_string))


def _chosen(reports, args):
    """The report of the command whose path variables are all given, and
    their values."""
    for report in reports:
        variables = {name: getattr(args, option) for name, (option, _help)
                     in report.path_options.items()}
        if None not in variables.values():
            return report, variables
    raise ValueError(f'no report of {reports} without options')


def run(commands):
    """Print the report the command line asks for; 1 for bad input."""
    conf = commands.conf
    args = conf.command
    report, variables = _chosen(_commands()[args.report], args)
    database = db_api.connected(conf.placement_database)
    try:
        params = _params(args, report)
        if report.candidate_query:
            # The options join the query string, checked as it is.
            params, variables = _read_query(
                report, '&'.join([args.query, urllib.parse.urlencode(
                    params, doseq=True)]), args.microversion)
        document = database.read(report.build, conf, params, **variables)
    except (exception.PlacementError, zones.ZoneMapError) as exc:
        # One line: what the API's 400 adds after a blank line (where
        # in jsonschema's schema the value failed) is not for operators.
        print(str(exc).split('\n\n', 1)[0], file=sys.stderr)
        return 1
    finally:
        database.dispose()
    if args.format == 'json':
        # Detailed lists are generators, made as they are written.
        print(json.dumps(document, indent=2, default=list))
    else:
        print('\n\n'.join(report.tables(document)))
    return 0


def _option(name):
    return f"--{name.replace('_', '-')}"


def _microversion(text):
    """``--microversion``: one the API serves (where it answers 406)."""
    try:
        version = microversion.parse(text)
    except (TypeError, ValueError):
        version = None
    if version is None or not (
            microversion.MIN_VERSION <= version <= microversion.MAX_VERSION):
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a microversion from '
            f'{microversion.MIN_VERSION_STRING} to '
            f'{microversion.MAX_VERSION_STRING}')
    return version


def _value_type(argument):
    """The argparse ``type`` of the values of ``argument``: a value its
    schema refuses is a usage error saying what it ``accepts``."""
    if argument.accepts is None:
        return str
    validator = jsonschema.Draft202012Validator(argument.schema)

    def checked(text):
        if not validator.is_valid(text):
            raise argparse.ArgumentTypeError(
                f'{text!r} is not {argument.accepts}')
        return text
    return checked


def _add_arguments(parser, reports):
    """An option per argument (once, however many reports take it) and
    per path variable."""
    added = set()
    for report in reports:
        for argument in report.arguments:
            if argument.name in added:
                continue
            added.add(argument.name)
            if argument.metavar is None:
                parser.add_argument(_option(argument.name),
                                    dest=argument.name, action='store_true',
                                    help=argument.help)
            elif argument.repeatable:
                parser.add_argument(
                    _option(argument.name), dest=argument.name,
                    action='append', default=[], metavar=argument.metavar,
                    type=_value_type(argument), required=argument.required,
                    help=argument.help)
            else:
                parser.add_argument(
                    _option(argument.name), dest=argument.name,
                    metavar=argument.metavar, type=_value_type(argument),
                    required=argument.required, help=argument.help)
        for option, help_text in report.path_options.values():
            parser.add_argument(_option(option), dest=option,
                                help=help_text)
        if report.candidate_query:
            parser.add_argument(
                'query', metavar='QUERY',
                help='The query string of GET /allocation_candidates, '
                     "e.g. 'resources=VCPU:4&required=HW_CPU_X86_AVX2'.")
            parser.add_argument(
                '--microversion', default=microversion.MAX_VERSION_STRING,
                type=_microversion,
                help='Read the query as at this microversion (default: '
                     'the latest).')


def add_parsers(subparsers):
    """The ``report`` command and a command per declared report."""
    report = subparsers.add_parser('report', help='Capacity reports')
    parsers = report.add_subparsers(dest='report', metavar='<report>')
    parsers.required = True
    for command, reports in _commands().items():
        # The report of the command without path variables says what
        # the command does.
        parser = parsers.add_parser(command, help=reports[-1].summary)
        parser.add_argument('--format', choices=('table', 'json'),
                            default='table')
        parser.set_defaults(func=run)
        _add_arguments(parser, reports)
