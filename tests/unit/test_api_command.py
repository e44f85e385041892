"""placement-api's own defaults for the application it serves."""

import gc

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


class _Deploy:
    def __init__(self):
        self.garbage = []

    def loadapp(self, _conf):
        # A cycle made while loading, as modules and the schema make.
        cycle = []
        cycle.append(cycle)
        self.garbage.append(cycle)
        return object()


def test_what_loading_made_is_left_out_of_collections():
    deploy = _Deploy()
    server = api._Server.__new__(api._Server)
    server.conf, server.deploy = None, deploy
    gc.collect()
    frozen = gc.get_freeze_count()
    try:
        server.load()
        assert gc.get_freeze_count() > frozen
        # No generation the collector walks holds the loading's cycle.
        assert not any(obj is deploy.garbage[0] for generation in range(3)
                       for obj in gc.get_objects(generation))
    finally:
        gc.unfreeze()
