"""placement-api's own defaults for the application it serves."""

from placement.cmd import api
from placement.conf import loading


def _pool_size(tmp_path, *argv, conf_text=''):
    """``[placement_database] max_pool_size`` as placement-api sets it."""
    path = tmp_path / 'placement.conf'
    path.write_text(conf_text)
    conf = loading.new_conf()
    conf.register_cli_opts(api._cli_opts)
    conf(['--config-file', str(path), *argv], project='placement',
         default_config_files=[])
    api._size_database_pool(conf)
    return conf.placement_database.max_pool_size


def test_a_pooled_database_connection_per_thread(tmp_path):
    assert _pool_size(tmp_path) == 8
    assert _pool_size(tmp_path, '--threads', '12') == 12


def test_the_configured_pool_size_wins(tmp_path):
    assert _pool_size(tmp_path, '--threads', '12', conf_text=(
        '[placement_database]\nmax_pool_size = 3\n')) == 3
