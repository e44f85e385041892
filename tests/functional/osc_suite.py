"""What osc-placement's own functional tests import from upstream's tree.

``osc_placement/tests/functional/base.py`` takes two fixtures from
upstream Placement's test package, ``placement.tests.functional.fixtures``:
``placement.PlacementFixture`` (a service per test, with ``endpoint`` and
``token``) and ``capture.Logging``. :func:`install` puts modules of those
names in ``sys.modules`` whose fixtures use this project's server
instead: one placement-api serving the test database, emptied (standard
classes and traits seeded again) before each test, as upstream's fixture
gives each test a new database.
"""

import sys
import types

import fixtures

from placement.db import api as db_api
from placement.db import standard_data
from tests import database

#: The endpoint of the running server (set by :func:`serve`).
_server = {}


def serve(endpoint, db_url):
    """The server the fixtures point at, and its database."""
    _server.update(endpoint=endpoint, db_url=db_url)


class PlacementFixture(fixtures.Fixture):
    """The running server, over an emptied database; noauth2's admin."""
    token = 'admin'

    def _setUp(self):  # noqa: N802 (the fixtures API)
        self.endpoint = _server['endpoint']
        db = db_api.Database(
            database.make_conf(_server['db_url']).placement_database)
        try:
            database.empty(db.engine)
            standard_data.sync(db)
        finally:
            db.dispose()


class Logging(fixtures.FakeLogger):
    """Log records captured per test, as upstream's fixture does."""


def install():
    """Make ``placement.tests.functional.fixtures`` importable."""
    names = ('placement.tests', 'placement.tests.functional',
             'placement.tests.functional.fixtures')
    for name in names:
        sys.modules.setdefault(name, types.ModuleType(name))
    package = sys.modules['placement.tests.functional.fixtures']
    for short, members in (('placement', {'PlacementFixture':
                                          PlacementFixture}),
                           ('capture', {'Logging': Logging})):
        module = types.ModuleType(f'{package.__name__}.{short}')
        module.__dict__.update(members)
        sys.modules[module.__name__] = module
        setattr(package, short, module)
