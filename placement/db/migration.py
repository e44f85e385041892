"""Schema migrations (alembic), used by ``placement-manage db`` and start-up.

The revisions are upstream Placement's chain, id for id and schema for
schema (b4ed3a175331 -> 611cd6dffd7b -> b5c396305c25 -> 422ece571366 ->
a082b8bb98d0), so that ``db sync`` upgrades a database upstream created
at any of them, and a database at our head is one upstream can use.

A database-level lock serialises concurrent upgrades, so that several
workers starting with ``sync_on_startup`` do not race each other.
"""

import contextlib
import os

import sqlalchemy as sa
from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
from alembic import util as alembic_util

_ALEMBIC_DIR = os.path.join(os.path.dirname(__file__), 'alembic')
_LOCK_NAME = 'placement_schema_migration'
# An arbitrary constant identifying our advisory lock in PostgreSQL.
_PG_LOCK_KEY = 0x706C6163
# Session-level advisory locks: (take, release) statements per backend.
_ADVISORY_LOCKS = {
    'mysql': (sa.text(f"SELECT GET_LOCK('{_LOCK_NAME}', 300)"),
              sa.text(f"SELECT RELEASE_LOCK('{_LOCK_NAME}')")),
    'postgresql': (sa.text(f'SELECT pg_advisory_lock({_PG_LOCK_KEY})'),
                   sa.text(f'SELECT pg_advisory_unlock({_PG_LOCK_KEY})')),
}


class DataMigrationRequired(alembic_util.CommandError):
    """A data-check revision found rows an online data migration fixes."""


def refuse_until_data_migrated(count, what):
    """Stop the upgrade when ``count`` rows are still ``what``.

    For the revisions that only check data: the advice names the command
    that fixes it, after which ``db sync`` can go on.
    """
    if count:
        raise DataMigrationRequired(
            f'{count} {what}. Run "placement-manage db '
            f'online_data_migrations" until it exits 0, then run '
            f'"placement-manage db sync" again.')


def _config(connection=None):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', _ALEMBIC_DIR)
    cfg.attributes['connection'] = connection
    return cfg


@contextlib.contextmanager
def _locked_connection(engine):
    """A connection holding the migration lock of the database.

    Advisory locks are taken and released in transactions of their own:
    alembic must find the connection outside any transaction, or it takes
    that transaction for the caller's and never commits it.
    """
    with engine.connect() as conn:
        backend = engine.url.get_backend_name()
        if backend == 'sqlite':
            # alembic's transaction then starts with BEGIN EXCLUSIVE.
            conn.execution_options(sqlite_begin='EXCLUSIVE')
        lock, unlock = _ADVISORY_LOCKS.get(backend, (None, None))
        if lock is None:
            yield conn
            return
        conn.execute(lock)
        conn.commit()
        try:
            yield conn
        finally:
            conn.rollback()
            conn.execute(unlock)
            conn.commit()


class UnknownRevision(alembic_util.CommandError):
    """The database is at a revision this code does not have."""


def unknown_revision(current):
    """The error for a database at ``current``, or None when this code
    knows that revision (or the database has none yet).

    A newer release migrated the database; alembic's own answer, "Can't
    locate revision", names neither cause nor remedy.
    """
    if current is None or current in revisions():
        return None
    return UnknownRevision(
        f'The placement database schema is at revision {current}, which '
        f'this release does not know (its newest is {head_version()}): a '
        f'newer release migrated it. Run that release (or a later one), '
        f'or restore the database from before its upgrade.')


def upgrade(engine, revision='head'):
    """Bring the schema up to ``revision``."""
    with _locked_connection(engine) as conn:
        unknown = unknown_revision(_revision(conn))
        # alembic must find the connection outside any transaction.
        conn.rollback()
        if unknown:
            raise unknown
        command.upgrade(_config(conn), revision)


def stamp(engine, revision):
    """Record ``revision`` as current without running any migration."""
    with _locked_connection(engine) as conn:
        command.stamp(_config(conn), revision)


def current_version(engine):
    """The revision the database is at, or None for an empty database."""
    with engine.connect() as conn:
        return _revision(conn)


def _revision(conn):
    return alembic_migration.MigrationContext.configure(
        conn).get_current_revision()


def script_directory():
    """This project's alembic revisions."""
    return alembic_script.ScriptDirectory.from_config(_config())


def revisions():
    """The revision ids, oldest first."""
    return [script.revision for script in
            reversed(list(script_directory().walk_revisions()))]


def head_version():
    """The newest revision this code knows."""
    return script_directory().get_current_head()
