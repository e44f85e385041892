"""Fixtures of the functional tests: databases, configuration, the app."""

import pytest

from placement.db import standard_data
from tests import database
from tests.functional import app
from tests.functional import schema


@pytest.fixture
def config_dir(tmp_path):
    """The directory ``OS_PLACEMENT_CONFIG_DIR`` names; empty at first."""
    path = tmp_path / 'etc'
    path.mkdir()
    return path


@pytest.fixture
def empty_db_url():
    """A database of this test alone, without any table."""
    return database.new_empty_database_url()


@pytest.fixture
def db_url():
    """The synced database of this process, emptied before and after."""
    url = database.database_url()
    with schema.opened(url) as db:
        database.empty(db.engine)
        standard_data.sync(db)
        yield url
        database.empty(db.engine)


@pytest.fixture
def db(db_url):
    """A Database on :func:`db_url`, to arrange and inspect rows."""
    with schema.opened(db_url) as db:
        yield db


@pytest.fixture
def wsgi_stack(db_url):
    """``(application, Database)``: the whole stack (noauth2) on db_url."""
    application, db = app.build_stack(db_url)
    try:
        yield application, db
    finally:
        db.dispose()


@pytest.fixture
def api(wsgi_stack):
    """The whole WSGI stack on the emptied database, as an app.API."""
    return app.API(*wsgi_stack)
