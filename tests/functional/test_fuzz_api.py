"""The hostile classes of ``tools/fuzz_api.py`` (and a short random
run) on the backend of the test run: no 5xx, no refused write that
changed the database, no error repeating the input (issue 25)."""

import logging

import pytest

from tests import database
from tools import fuzz_api

pytestmark = pytest.mark.db

# Random requests besides the classes' sweep: enough to cross every
# kind of mutation, bounded for CI.
RANDOM_REQUESTS = 200


@pytest.fixture
def root_logger():
    """The fuzzer takes over the root logger: given back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers, root.level = handlers, level


@pytest.mark.usefixtures('root_logger')
def test_hostile_classes_and_random_requests(capsys):
    status = fuzz_api.main(['--count', str(RANDOM_REQUESTS),
                            '--db-url', database.backend_url()])
    output = capsys.readouterr().out
    assert status == 0, output
    counts = {line.split(':')[0]: line for line in output.splitlines()
              if 'answered 5xx' in line}
    assert set(counts) == {'random', 'lone surrogate', 'NUL', 'huge body',
                           'deep body'}, output
    for line in counts.values():
        assert line.endswith(', 0 answered 5xx'), line
