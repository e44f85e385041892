"""placement-manage: database administration.

    placement-manage [--config-file PATH] [--config-dir DIR] db sync
    placement-manage db version | db stamp <version>
    placement-manage db online_data_migrations [--max-count N]
    placement-manage report ... (placement.cmd.report)
    placement-manage audit ... (placement.cmd.audit)

The revisions are upstream Placement's: ``db sync`` upgrades a database
that upstream created, and ``db version``/``db stamp`` use its ids.
"""

import logging
import sys

import prettytable
from alembic import util as alembic_util
from oslo_config import cfg

from placement import fatal
from placement.cmd import audit
from placement.cmd import report
from placement.conf import loading
from placement.db import api as db_api
from placement.db import migration
from placement.db import standard_data
from placement.objects import data_migrations

LOG = logging.getLogger(__name__)
_DEFAULT_BATCH = 50
# Exit codes of online_data_migrations, as documented.
_DONE, _MORE_TO_DO, _ERRORS, _BAD_INPUT = 0, 1, 2, 127


class DbCommands:
    def __init__(self, conf):
        self.conf = conf

    def _database(self, writable=True):
        return db_api.connected(self.conf.placement_database, writable)

    def sync(self):
        db = self._database()
        migration.upgrade(db.engine)
        standard_data.sync(db)
        return 0

    def version(self):
        print(migration.current_version(
            self._database(writable=False).engine))
        return 0

    def stamp(self):
        migration.stamp(self._database().engine, self.conf.command.version)
        return 0

    def online_data_migrations(self):
        max_count = self.conf.command.max_count
        if max_count is None:
            batch, until_complete = _DEFAULT_BATCH, True
            print(f'Running batches of {batch} until complete')
        else:
            try:
                batch = int(max_count)
            except ValueError:
                batch = 0
            if batch < 1:
                print('Must supply a positive integer for --max-count')
                return _BAD_INPUT
            until_complete = False
        db = self._database()
        totals = {fn.__name__: [0, 0]
                  for fn in data_migrations.ONLINE_MIGRATIONS}
        while True:
            migrated, errors = self._run_batch(db, batch, totals)
            if not until_complete or not migrated:
                break
        _print_summary(totals)
        if errors:
            print('Some migrations failed unexpectedly. Check log for '
                  'details.')
            if not migrated:
                return _ERRORS
        return _MORE_TO_DO if migrated else _DONE

    def _run_batch(self, db, batch, totals):
        """One pass over every migration; (rows migrated, had errors)."""
        migrated, errors = 0, False
        for fn in data_migrations.ONLINE_MIGRATIONS:
            remaining = batch - migrated
            if remaining <= 0:
                break
            try:
                found, done = fn(db, self.conf, remaining)
            except Exception:
                LOG.exception('Error attempting to run %s', fn.__name__)
                errors = True
                continue
            if found:
                print(f'{found} rows matched query {fn.__name__}, '
                      f'{done} migrated')
            totals[fn.__name__][0] += found
            totals[fn.__name__][1] += done
            migrated += done
        return migrated, errors


def _print_summary(totals):
    table = prettytable.PrettyTable(['Migration', 'Total Found', 'Completed'])
    for name, (found, done) in totals.items():
        table.add_row([name, found, done])
    print(table)


def _add_command_parsers(subparsers):
    db = subparsers.add_parser('db', help='Database commands')
    db_commands = db.add_subparsers(dest='db_command', metavar='<command>')
    chain = ' -> '.join(migration.revisions())
    db_commands.add_parser(
        'sync', help='Upgrade the database schema to the most recent '
                     'version. A database of upstream Placement, at any '
                     'of its revisions, is upgraded in place; a revision '
                     'that checks data stops with advice to run '
                     'online_data_migrations first.'
    ).set_defaults(func=DbCommands.sync)
    db_commands.add_parser(
        'version', help='Print the current database version: an alembic '
                        'revision id, the same as upstream Placement\'s '
                        '(None for an empty database).'
    ).set_defaults(func=DbCommands.version)
    stamp = db_commands.add_parser(
        'stamp', help='Stamp the revision table with the given revision; '
                      "don't run any migrations.")
    stamp.add_argument(
        'version', help=f'The alembic revision to stamp, one of {chain}.')
    stamp.set_defaults(func=DbCommands.stamp)
    online = db_commands.add_parser(
        'online_data_migrations',
        help='Perform data migration to update all live data.')
    online.add_argument(
        '--max-count', metavar='<number>', dest='max_count',
        help='Maximum number of objects to consider; by default batches '
             f'of {_DEFAULT_BATCH} run until complete.')
    online.set_defaults(func=DbCommands.online_data_migrations)
    db.set_defaults(func=None, parser=db)
    report.add_parsers(subparsers)
    audit.add_parser(subparsers)


@fatal.exits_cleanly()
def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    conf = loading.new_conf()
    conf.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Command categories',
        handler=_add_command_parsers))
    if not argv:
        argv = ['--help']
    loading.parse(conf, argv)
    func = conf.command.func
    if func is None:
        conf.command.parser.print_help()
        return 0
    try:
        return func(DbCommands(conf))
    except alembic_util.CommandError as exc:
        # An unknown revision: the message without traceback.
        print(exc, file=sys.stderr)
        return 1

