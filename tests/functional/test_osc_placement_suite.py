"""osc-placement's own functional tests (all of them) against a server.

The suite ships in the osc-placement package
(``osc_placement/tests/functional``); its test cases are imported here,
so pytest collects and runs each of them (``pytest -m osc``), with
:mod:`tests.functional.osc_suite` standing in for the upstream fixtures
they import: one placement-api (gunicorn) on the test database, emptied
before each test.
"""

import os

import pytest

from tests import database
from tests.functional import osc_suite
from tests.functional import server

osc_suite.install()

# The test cases, collected from this module's namespace.
from osc_placement.tests.functional.test_aggregate import *  # noqa: E402,F403,I001
from osc_placement.tests.functional.test_allocation import *  # noqa: E402,F403
from osc_placement.tests.functional.test_allocation_candidate import *  # noqa: E402,F403
from osc_placement.tests.functional.test_inventory import *  # noqa: E402,F403
from osc_placement.tests.functional.test_plugin import *  # noqa: E402,F403
from osc_placement.tests.functional.test_resource_class import *  # noqa: E402,F403
from osc_placement.tests.functional.test_resource_provider import *  # noqa: E402,F403
from osc_placement.tests.functional.test_trait import *  # noqa: E402,F403
from osc_placement.tests.functional.test_usage import *  # noqa: E402,F403

pytestmark = pytest.mark.osc


@pytest.fixture(scope='module', autouse=True)
def placement_server(tmp_path_factory):
    """The server; ``openstack`` on the PATH (``TestPlugin`` runs it)."""
    path = os.environ.get('PATH', '')
    os.environ['PATH'] = os.pathsep.join(
        [os.path.dirname(server.venv_command('openstack')), path])
    try:
        with server.running_server(tmp_path_factory.mktemp('osc-suite'),
                                   threads=2) as endpoint:
            osc_suite.serve(endpoint, database.database_url())
            yield endpoint
    finally:
        os.environ['PATH'] = path
