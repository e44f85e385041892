"""An operator's existing placement.conf, with every option of the
configuration reference, serves the API unchanged (README, "Configuration
compatibility", says which of them have no effect here and why)."""

import pathlib

import pytest

from tests.functional import test_wsgi

pytestmark = pytest.mark.db

_UPSTREAM_CONF = (pathlib.Path(__file__).parent / 'fixtures'
                  / 'upstream-placement.conf')


def test_every_reference_option_is_accepted(config_dir, db_url):
    # Logs go to stderr, away from the answer the test reads on stdout.
    text = _UPSTREAM_CONF.read_text().replace(
        '[placement_database]\n',
        f'[placement_database]\nconnection = {db_url}\n').replace(
        'use_stderr = false', 'use_stderr = true')
    (config_dir / 'placement.conf').write_text(text)
    result = test_wsgi.serve_root(config_dir)
    test_wsgi.assert_serves_root(result)
    # Not one of them is unknown (test_config_errors has the typos).
    assert 'WARNING' not in result.stderr
