"""The zone map of [reports] availability_zones, checked at start."""

import pytest

from placement import deploy
from placement.conf import loading
from placement.reports import zones

AZ1 = 'a1a1a1a1-0000-4000-8000-000000000001'


def conf_with(tmp_path, value):
    path = tmp_path / 'placement.conf'
    path.write_text(f'[reports]\navailability_zones = {value}\n')
    conf = loading.new_conf()
    conf(['--config-file', str(path)], project='placement',
         default_config_files=[])
    return conf


def test_zones_in_order_of_the_option(tmp_path):
    found = zones.Zones.from_conf(
        conf_with(tmp_path, f'b:{AZ1.upper()},a:{AZ1}'))
    assert found.by_aggregate == {AZ1: ['b', 'a']}
    assert found.order == ('b', 'a', 'unknown')
    assert found.ordered(['unknown', 'a', 'b']) == ['b', 'a', 'unknown']


def test_no_zones(tmp_path):
    assert zones.Zones.from_conf(conf_with(tmp_path, '')).order == (
        'unknown',)


@pytest.mark.parametrize('value', [
    'az1', f'az1:{AZ1},az2', 'az1:not-a-uuid', f'unknown:{AZ1}',
    f':{AZ1}', 'az1:'])
def test_malformed_map_stops_the_service(tmp_path, value):
    conf = conf_with(tmp_path, value)
    with pytest.raises(zones.ZoneMapError,
                       match=r'\[reports\] availability_zones'):
        deploy.build_stack(conf, db=None, enforcer=None)


def test_the_map_is_parsed_once_for_each_value(tmp_path):
    """Reports ask for the zones on every request: the option's value is
    parsed the first time only."""
    conf = conf_with(tmp_path, f'a:{AZ1}')
    first = zones.Zones.from_conf(conf)
    assert zones.Zones.from_conf(conf) is first
    conf.set_override('availability_zones', {'b': AZ1}, group='reports')
    assert zones.Zones.from_conf(conf).order == ('b', 'unknown')
