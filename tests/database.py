"""Throw-away databases for the tests, on the backend the environment picks.

``PLACEMENT_TEST_DB_URL`` selects the backend: unset means SQLite (a
temporary file); otherwise a server URL without a database name, e.g.
``mysql+pymysql://root@127.0.0.1:3306`` or
``postgresql+psycopg2://postgres@127.0.0.1:5432``. Each test process
creates its own database there once, migrated with alembic, drops it at
exit, and empties it between test files. Tests of the schema itself get
a database of their own from :func:`new_empty_database_url`.
"""

import os

from placement import throwaway
from placement.db import api as db_api
from placement.db import migration
from tests import installed

ENV_URL = 'PLACEMENT_TEST_DB_URL'
_database_url = None


def backend_url():
    return os.environ.get(ENV_URL, '')


#: Where the tests' throw-away databases are made (the package's own
#: helpers, which the tools use too).
make_conf = throwaway.make_conf
empty = throwaway.empty


def new_empty_database_url(server_url=None):
    """A new database without any table on the test backend.

    For tests of ``db sync`` and start-up migration; it is dropped when
    the test process exits. ``server_url`` names another backend than
    the environment's (an empty string: SQLite).
    """
    server = backend_url() if server_url is None else server_url
    return throwaway.new_database_url(
        server, 'placement_test_' if server else 'placement-test-')


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
