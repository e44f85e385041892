"""Collect gabbits/*.yaml as pytest tests, one item per gabbi test.

Each YAML file becomes a collector whose items are its tests in file order;
its fixtures start before the first item and stop after the last. Run with
``-p xdist --dist loadfile`` so a file's items stay in one worker.

With ``PLACEMENT_TEST_INSTALLED`` set (:mod:`tests.installed`), gabbi
talks over HTTP to the installed package's server that each file's
fixture starts, instead of intercepting calls to the checkout's stack.
"""

import os
import unittest

import pytest
import yaml
from gabbi import handlers
from gabbi import suitemaker

from tests import gabbi_fixtures
from tests import installed

GABBI_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def pytest_collect_file(parent, file_path):
    if (file_path.suffix == '.yaml'
            and str(file_path.parent) == GABBI_DIR):
        return GabbiFile.from_parent(parent, path=file_path)
    return None


class GabbiFile(pytest.File):
    def collect(self):
        with open(self.path) as handle:
            suite_dict = yaml.safe_load(handle)
        live = bool(installed.bin_dir())
        suite = suitemaker.test_suite_from_dict(
            unittest.TestLoader(), self.path.stem, suite_dict, GABBI_DIR,
            '127.0.0.1' if live else 'placement.test', 80, gabbi_fixtures,
            None if live else gabbi_fixtures.setup_app,
            handlers=[handler() for handler in handlers.RESPONSE_HANDLERS])
        self.suite = suite
        for case in suite:
            name = case.test_data['name']
            if live and name in SERVERS_OWN_ANSWERS.get(self.path.stem, ()):
                continue
            yield GabbiItem.from_parent(self, name=name, case=case)

    def setup(self):
        self.suite.start(unittest.TestResult())
        port = gabbi_fixtures.live_port()
        if port is not None:
            for case in self.suite:
                case.port = port

    def teardown(self):
        self.suite.stop()


#: Tests whose answer comes from the web server in front of the
#: application, not from the application: run in-process only.
SERVERS_OWN_ANSWERS = {
    # Outside its SCRIPT_NAME gunicorn answers "500 Bad Request" itself.
    'prefix': {'the application is not served outside its prefix'},
}


class GabbiItem(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.add_marker(pytest.mark.db)

    def runtest(self):
        result = unittest.TestResult()
        self.case.run(result)
        problems = result.failures + result.errors
        if problems:
            raise GabbiFailure(problems[0][1])
        if result.skipped:
            pytest.skip(result.skipped[0][1])

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, GabbiFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f'{self.path.name}: {self.name}'


class GabbiFailure(Exception):
    """A gabbi test failed; the message is its traceback."""
