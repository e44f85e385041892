"""``--version`` of the console scripts: the installed distribution's."""

import importlib.metadata

import pytest

from placement.conf import loading
from tests.functional import commands


@pytest.mark.parametrize('name', ['placement-manage', 'placement-status',
                                  'placement-api'])
def test_version_is_the_installed_distributions(config_dir, name):
    result = commands.run(name, '--version', config_dir=config_dir)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == importlib.metadata.version(
        loading.DISTRIBUTION)
