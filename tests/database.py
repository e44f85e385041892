"""Throw-away databases for the tests, on the backend the environment picks.

``PLACEMENT_TEST_DB_URL`` selects the backend: unset means SQLite (a
temporary file); otherwise a server URL without a database name, e.g.
``mysql+pymysql://root@127.0.0.1:3306`` or
``postgresql+psycopg2://postgres@127.0.0.1:5432``. Each test process
creates its own database there once, migrated with alembic, drops it at
exit, and empties it between test files. Tests of the schema itself get
a database of their own from :func:`new_empty_database_url`.
"""

import atexit
import os
import tempfile
import uuid

import sqlalchemy as sa

from placement.conf import loading
from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from tests import installed

ENV_URL = 'PLACEMENT_TEST_DB_URL'
_database_url = None


def backend_url():
    return os.environ.get(ENV_URL, '')


def _create_server_database(server_url):
    url = sa.engine.make_url(server_url)
    name = f'placement_test_{uuid.uuid4().hex[:12]}'
    admin_db = 'postgres' if url.get_backend_name() == 'postgresql' else None
    admin = sa.create_engine(url.set(database=admin_db),
                             isolation_level='AUTOCOMMIT')
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE {name}')

    def _drop():
        with admin.connect() as conn:
            if url.get_backend_name() == 'postgresql':
                conn.exec_driver_sql(
                    f'DROP DATABASE IF EXISTS {name} WITH (FORCE)')
            else:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS {name}')
        admin.dispose()
    atexit.register(_drop)
    return str(url.set(database=name).render_as_string(hide_password=False))


def _create_sqlite_database():
    handle, path = tempfile.mkstemp(prefix='placement-test-',
                                    suffix='.sqlite')
    os.close(handle)
    atexit.register(_remove_sqlite_files, path)
    return f'sqlite:///{path}'


def _remove_sqlite_files(path):
    for name in (path, f'{path}-wal', f'{path}-shm'):
        if os.path.exists(name):
            os.unlink(name)


def new_empty_database_url(server_url=None):
    """A new database without any table on the test backend.

    For tests of ``db sync`` and start-up migration; it is dropped when
    the test process exits. ``server_url`` names another backend than
    the environment's (an empty string: SQLite).
    """
    server = backend_url() if server_url is None else server_url
    return (_create_server_database(server) if server
            else _create_sqlite_database())


def make_conf(url, **overrides):
    """A parsed service configuration using database ``url``.

    ``overrides`` are ``{'group.option': value}`` style keyword pairs given
    as ``group__option=value``.
    """
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    conf.set_override('connection', url, group='placement_database')
    for key, value in overrides.items():
        group, name = key.split('__', 1)
        conf.set_override(name, value, group=group)
    return conf


def _migrate(url):
    db = db_api.Database(make_conf(url).placement_database)
    try:
        migration.upgrade(db.engine)
    finally:
        db.dispose()


def database_url():
    """This process's test database: created and migrated on first use
    (by the installed package's ``db sync`` when :mod:`tests.installed`
    is what is tested)."""
    global _database_url
    if _database_url is None:
        url = new_empty_database_url()
        if installed.bin_dir():
            installed.sync_database(url)
        else:
            _migrate(url)
        _database_url = url
    return _database_url


def empty(engine):
    """Delete every row but the standard resource classes and traits."""
    rp = models.ResourceProvider.__table__
    with engine.begin() as conn:
        for table in reversed(models.Base.metadata.sorted_tables):
            if table is rp:
                conn.execute(sa.update(rp).values(
                    parent_provider_id=None, root_provider_id=None))
            if table.name in ('resource_classes', 'traits'):
                conn.execute(sa.delete(table).where(
                    table.c.name.like('CUSTOM\\_%', escape='\\')))
            else:
                conn.execute(sa.delete(table))
