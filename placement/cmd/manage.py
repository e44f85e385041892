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
# A larger --max-count is migrated in transactions of at most this many
# rows: on a live database a long transaction holds its locks (and, on
# Galera, builds one large write set) for as long as it runs.
_MOST_PER_TRANSACTION = 1000
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
            print(f'Running batches of {_DEFAULT_BATCH} until complete')
        else:
            try:
                max_count = int(max_count)
            except ValueError:
                max_count = 0
            if max_count < 1:
                print('Must supply a positive integer for --max-count')
                return _BAD_INPUT
        db = self._database()
        runs = [_MigrationRun(migration)
                for migration in data_migrations.ONLINE_MIGRATIONS]
        for run in runs:
            run.count(db, self.conf)
        migrated, errors = 0, False
        while True:
            size = (_DEFAULT_BATCH if max_count is None
                    else min(max_count - migrated, _MOST_PER_TRANSACTION))
            found_now, migrated_now, errors_now = self._run_batch(
                db, size, runs)
            migrated += migrated_now
            # Until complete, the last batch's errors are what is left;
            # with --max-count, those of the whole call.
            errors = errors_now if max_count is None else (
                errors or errors_now)
            if not found_now or (max_count is not None
                                 and migrated >= max_count):
                break
        _print_summary(runs)
        if errors:
            print('Some migrations failed unexpectedly. Check log for '
                  'details.')
            if max_count is None or not migrated:
                return _ERRORS
        if any(run.has_work_left(db, self.conf) for run in runs):
            return _MORE_TO_DO
        return _DONE

    def _run_batch(self, db, size, runs):
        """One pass over the migrations sharing ``size`` rows; (rows
        found, rows migrated, whether any failed)."""
        found = migrated = 0
        errors = False
        for run in runs:
            if migrated >= size:
                break
            if run.failed_to_count:
                errors = True
            if run.finished or run.failed_to_count:
                continue
            try:
                batch = run.next_batch(db, self.conf, size - migrated)
            except Exception:
                LOG.exception('Error attempting to run %s', run.name)
                errors = True
                continue
            found += batch.found
            migrated += batch.done
        return found, migrated, errors


class _MigrationRun:
    """One migration during a run: its totals, the rows it has left
    (counted at the start, less those it found since) and the key its
    next batch starts after."""

    def __init__(self, migration):
        self.migration = migration
        self.name = migration.name
        self.found = self.done = 0
        self.left_at_start = None
        self.after = None
        self.finished = self.failed_to_count = False

    def count(self, db, conf):
        """Count the rows left; a migration that cannot is not run, and
        counts as failed in every batch."""
        try:
            self.left_at_start = self.migration.left(db, conf)
        except Exception:
            LOG.exception('Error counting the rows of %s', self.name)
            self.failed_to_count = True

    def next_batch(self, db, conf, limit):
        """Migrate up to ``limit`` rows and print the progress; the
        Batch."""
        batch = self.migration.run(db, conf, limit, self.after)
        if not batch.found and self.after is not None:
            # The end of the table: once more from the start, for rows
            # recorded behind the walk meanwhile.
            batch = self.migration.run(db, conf, limit)
        self.after = batch.last_key
        self.finished = not batch.found
        self.found += batch.found
        self.done += batch.done
        if batch.found:
            left = max(self.left_at_start - self.found, 0)
            print(f'{batch.found} rows matched query {self.name}, '
                  f'{batch.done} migrated ({self.done} so far, {left} '
                  f'left)')
        return batch

    def has_work_left(self, db, conf):
        """Whether rows are left to migrate, counted again unless this
        run saw the migration find nothing."""
        if self.finished:
            return False
        try:
            return self.migration.left(db, conf) > 0
        except Exception:
            LOG.exception('Error counting the rows of %s', self.name)
            return True


def _print_summary(runs):
    table = prettytable.PrettyTable(['Migration', 'Total Found', 'Completed'])
    for run in runs:
        table.add_row([run.name, run.found, run.done])
    print(table)


def _add_command_parsers(subparsers):
    db = subparsers.add_parser('db', help='Database commands')
    db_commands = db.add_subparsers(dest='db_command', metavar='<command>',
                                    required=True)
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
        help='Maximum number of objects to migrate in this call, in '
             f'transactions of at most {_MOST_PER_TRANSACTION}; by '
             f'default batches of {_DEFAULT_BATCH} run until complete. '
             'Exits 0 when nothing is left, 1 when --max-count left work, '
             '2 when migrations failed and nothing else progressed, 127 '
             'on bad input.')
    online.set_defaults(func=DbCommands.online_data_migrations)
    report.add_parsers(subparsers)
    audit.add_parser(subparsers)


@fatal.exits_cleanly()
def main(argv=None):
    """Without a command (or a db command) a usage error, exit status 2,
    as placement-status and ``placement-manage report``."""
    argv = sys.argv[1:] if argv is None else argv
    conf = loading.new_conf()
    conf.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Command categories',
        handler=_add_command_parsers))
    loading.parse(conf, argv)
    try:
        return conf.command.func(DbCommands(conf))
    except alembic_util.CommandError as exc:
        # An unknown revision: the message without traceback.
        print(exc, file=sys.stderr)
        return 1

