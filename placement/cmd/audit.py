"""``placement-manage audit``: the audit report, straight from the database.

    placement-manage audit [--format table|json] [--live-consumers FILE]
        [--fix-empty-consumers]

The document of GET /reports/audit; with ``--live-consumers`` (a file
of consumer uuids, one a line, e.g. the output of ``openstack server
list --all-projects -f value -c ID``) also the allocations of consumers
not in it. ``--fix-empty-consumers`` first deletes the consumer records
that have no allocations, and says which. Exit status: 0 when nothing is
found, 1 when something is, 2 on error.
"""

import json
import logging
import sys

from placement import uuid_form
from placement.db import api as db_api
from placement.reports import audit
from placement.reports import text_table

LOG = logging.getLogger(__name__)
CLEAN, FOUND, ERROR = 0, 1, 2


class BadList(ValueError):
    """The file of live consumers cannot be read or holds a non-uuid."""


def read_live_consumers(path):
    """The canonical uuids of the file at ``path``; blank lines skipped."""
    try:
        with open(path) as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise BadList(f'--live-consumers: {exc}') from exc
    uuids = set()
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        canonical = uuid_form.canonical(line)
        if canonical is None:
            raise BadList(f'--live-consumers: {path}, line {number}: '
                          f'{line!r} is not a uuid')
        uuids.add(canonical)
    return uuids


def _example_rows(finding, found):
    fields = list(audit.FINDINGS_BY_NAME[finding].fields)
    return fields, [['' if example[field] is None else example[field]
                     for field in fields] for example in found['examples']]


def _tables(document):
    """A summary table of the counts, then the examples of each finding."""
    findings = document['audit']['findings']
    parts = [text_table.table(
        ['Finding', 'Count', 'Of'],
        [[name, found['count'], found['counts']]
         for name, found in findings.items()])]
    for name, found in findings.items():
        if not found['count']:
            continue
        headers, rows = _example_rows(name, found)
        shown = (f'{len(rows)} of {found["count"]}' if found['count']
                 > len(rows) else f'{found["count"]}')
        parts.append(f'{name} ({shown}): {found["description"]}')
        by_type = found.get('by_consumer_type')
        if by_type:
            parts.append(text_table.table(['Consumer type', 'Consumers'],
                                      [list(item) for item
                                       in by_type.items()]))
        parts.append(text_table.table(headers, rows))
    return parts


def _audit(conf, fix_empty_consumers, live):
    """``(uuids removed or None, the document)``."""
    database = db_api.Database(conf.placement_database)
    try:
        removed = (database.write(audit.remove_empty_consumers,
                                  read_committed=True)
                   if fix_empty_consumers else None)
        return removed, database.read(audit.report, live)
    finally:
        database.dispose()


def run(commands):
    """Print the audit; 0 clean, 1 something found, 2 an error."""
    conf = commands.conf
    args = conf.command
    try:
        live = (None if args.live_consumers is None
                else read_live_consumers(args.live_consumers))
    except BadList as exc:
        print(exc, file=sys.stderr)
        return ERROR
    try:
        removed, document = _audit(conf, args.fix_empty_consumers, live)
    except Exception as exc:
        # Whatever it is (no database, a database that is down, a bug),
        # it must not exit 1, which says "found something".
        LOG.debug('The audit failed', exc_info=True)
        print(f'The audit failed: {exc}', file=sys.stderr)
        return ERROR
    if removed is not None:
        # On stderr, so that --format json stays one document.
        print(f'Removed {len(removed)} consumer record(s) with no '
              f'allocations' + ''.join(f'\n  {uuid}' for uuid in removed),
              file=sys.stderr)
    if args.format == 'json':
        print(json.dumps(document, indent=2))
    else:
        print('\n\n'.join(_tables(document)))
    return CLEAN if document['audit']['clean'] else FOUND


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'audit', help='What in placement\'s data does not add up (exit '
                      'status 0: nothing, 1: something found, 2: error).')
    parser.add_argument('--format', choices=('table', 'json'),
                        default='table')
    parser.add_argument(
        '--live-consumers', dest='live_consumers', metavar='FILE',
        help='A file of the uuids of the consumers that exist (one a '
             'line, e.g. "openstack server list --all-projects -f value '
             '-c ID"): the allocations of any other consumer are '
             'reported as orphans, per consumer type.')
    parser.add_argument(
        '--fix-empty-consumers', dest='fix_empty_consumers',
        action='store_true',
        help='First delete the consumer records that have no '
             'allocations, and list them.')
    parser.set_defaults(func=run)
