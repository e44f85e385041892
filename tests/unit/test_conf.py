"""Configuration options: names, types and defaults of the reference."""

import pytest
from oslo_config import types
from oslo_policy import opts as policy_opts

from placement import deploy
from placement.conf import loading
from placement.conf import opts as conf_opts
from placement.db import api as db_api

STR = types.String
INT = types.Integer
BOOL = types.Boolean

# group: {option: (type, default)}, from the configuration reference.
DOCUMENTED = {
    'api': {
        'auth_strategy': (STR, 'keystone'),
    },
    'placement': {
        'randomize_allocation_candidates': (BOOL, False),
        'incomplete_consumer_project_id': (
            STR, '00000000-0000-0000-0000-000000000000'),
        # Upstream's default (the reference's nine leading zeros are a typo).
        'incomplete_consumer_user_id': (
            STR, '00000000-0000-0000-0000-000000000000'),
        'allocation_conflict_retry_count': (INT, 10),
        'max_allocation_candidates': (INT, -1),
        'allocation_candidates_generation_strategy': (STR, 'depth-first'),
    },
    'placement_database': {
        'connection': (STR, None),
        'connection_parameters': (STR, ''),
        'sqlite_synchronous': (BOOL, True),
        'slave_connection': (STR, None),
        'mysql_sql_mode': (STR, 'TRADITIONAL'),
        'connection_recycle_time': (INT, 3600),
        'max_pool_size': (INT, None),
        'max_retries': (INT, 10),
        'retry_interval': (INT, 10),
        'max_overflow': (INT, None),
        'connection_debug': (INT, 0),
        'connection_trace': (BOOL, False),
        'pool_timeout': (INT, None),
        'sync_on_startup': (BOOL, False),
    },
    # oslo.policy's own option and default (it no longer has
    # enforce_scope: the token scope is always checked).
    'oslo_policy': {
        'enforce_new_defaults': (BOOL, True),
    },
}
CASES = [(group, name) for group, options in DOCUMENTED.items()
         for name in options]


@pytest.fixture
def conf():
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    return conf


def _opt(group, name):
    """The option as the config generator lists it."""
    listed = conf_opts.list_opts() + policy_opts.list_opts()
    return {(str(listed_group), opt.name): opt
            for listed_group, options in listed
            for opt in options}[group, name]


@pytest.mark.parametrize('group, name', CASES)
def test_documented_option_and_default(conf, group, name):
    expected_type, expected_default = DOCUMENTED[group][name]
    assert conf[group][name] == expected_default
    assert isinstance(_opt(group, name).type, expected_type)


def test_secrets_are_not_logged():
    assert _opt('placement_database', 'connection').secret
    assert _opt('placement_database', 'slave_connection').secret


def test_auth_strategy_choices(conf):
    choices = _opt('api', 'auth_strategy').type.choices
    assert set(choices) == {'keystone', 'noauth2'}
    with pytest.raises(ValueError):
        conf.set_override('auth_strategy', 'none', group='api')


def test_generation_strategy_choices():
    choices = _opt(
        'placement', 'allocation_candidates_generation_strategy'
    ).type.choices
    assert set(choices) == {'depth-first', 'breadth-first'}


def test_auth_strategy_is_also_read_from_default(tmp_path):
    path = tmp_path / 'placement.conf'
    path.write_text('[DEFAULT]\nauth_strategy = noauth2\n')
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[str(path)])
    assert conf.api.auth_strategy == 'noauth2'


def test_prepared_statements_is_also_read_by_its_former_name(tmp_path):
    path = tmp_path / 'placement.conf'
    path.write_text('[placement_database]\n'
                    'postgresql_prepared_statements = false\n')
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[str(path)])
    assert conf.placement_database.prepared_statements is False


def test_options_are_read_from_a_config_file(tmp_path):
    path = tmp_path / 'placement.conf'
    path.write_text(
        '[placement]\n'
        'allocation_conflict_retry_count = 3\n'
        'randomize_allocation_candidates = true\n'
        '[placement_database]\n'
        'max_retries = -1\n'
        '[oslo_policy]\n'
        'enforce_new_defaults = false\n')
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[str(path)])
    assert conf.placement.allocation_conflict_retry_count == 3
    assert conf.placement.randomize_allocation_candidates is True
    assert conf.placement_database.max_retries == -1
    assert conf.oslo_policy.enforce_new_defaults is False


def test_negative_retry_count_is_refused(conf):
    with pytest.raises(ValueError):
        conf.set_override('allocation_conflict_retry_count', -1,
                          group='placement')


def test_loadapp_without_a_connection_refuses_to_start(conf):
    with pytest.raises(db_api.DatabaseNotConfigured):
        deploy.loadapp(conf)


def test_overrides_stay_in_their_own_configuration(conf):
    other = loading.new_conf()
    other([], project='placement', default_config_files=[])
    conf.set_override('connection', 'sqlite://', group='placement_database')
    conf.set_override('auth_strategy', 'noauth2', group='api')
    conf.set_override('max_allocation_candidates', 5, group='placement')
    conf.set_override('enforce_new_defaults', False, group='oslo_policy')
    assert other.placement_database.connection is None
    assert other.api.auth_strategy == 'keystone'
    assert other.placement.max_allocation_candidates == -1
    assert other.oslo_policy.enforce_new_defaults is True
