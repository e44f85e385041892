"""Configuration and policy files that cannot work stop the commands and
the server at start, in one line naming the file (and where in it); what
nothing reads is logged as a warning, and ``placement-status upgrade
check`` reports both."""

import pathlib

import pytest

from placement import fatal
from tests import install_guide
from tests.functional import commands
from tests.functional import test_status
from tests.functional import test_wsgi

STATUS_ERROR = 255
_UPSTREAM_CONF = (pathlib.Path(__file__).parent / 'fixtures'
                  / 'upstream-placement.conf')


def every_command(config_dir, *args, cwd=None):
    """``{command: CompletedProcess}`` of the three console scripts."""
    return {
        'placement-manage': commands.run(
            'placement-manage', *args, 'db', 'sync', config_dir=config_dir,
            cwd=cwd),
        'placement-status': commands.run(
            'placement-status', *args, 'upgrade', 'check',
            config_dir=config_dir, cwd=cwd),
        'placement-api': commands.placement_api(config_dir, *args, cwd=cwd),
    }


def assert_one_line(results, text):
    """Each command stopped with one line (its name, then ``text``)."""
    for command, result in results.items():
        assert commands.only_line(result) == f'{command}: {text}'
        assert result.returncode == (
            STATUS_ERROR if command == 'placement-status'
            else fatal.CONFIGURATION_ERROR), command


def test_missing_config_file(tmp_path, config_dir):
    missing = tmp_path / 'no-such.conf'
    assert_one_line(every_command(config_dir, '--config-file', str(missing)),
                    f'configuration file not found: {missing}')


def test_config_file_that_does_not_parse(tmp_path, config_dir):
    conf = tmp_path / 'broken.conf'
    conf.write_text('[api]\nauth_strategy = noauth2\n[placement_database\n')
    assert_one_line(
        every_command(config_dir, '--config-file', str(conf)),
        f'Failed to parse {conf}: at {conf}:3, Invalid section (must end '
        f"with ]): '[placement_database'")


def test_missing_config_dir(tmp_path):
    missing = tmp_path / 'no-such-directory'
    results = every_command(missing, cwd=tmp_path)
    assert_one_line(results, f'OS_PLACEMENT_CONFIG_DIR={missing}: no such '
                             f'directory (it should hold placement.conf)')
    wsgi = commands.finish(commands.start_python(
        test_wsgi.SERVE_ROOT, config_dir=missing, cwd=tmp_path))
    assert wsgi.returncode == 1
    assert f'OS_PLACEMENT_CONFIG_DIR={missing}: no such directory' in (
        wsgi.stderr)


def test_missing_connection(config_dir):
    """The line says how to set it, and of the README's ``--dev``."""
    test_wsgi.configure(config_dir)
    assert_one_line(
        every_command(config_dir),
        'The [placement_database] connection option is not set; the '
        'placement service cannot start without a database: set it in '
        'placement.conf (e.g. connection = mysql+pymysql://placement:'
        'PASSWORD@controller/placement), or run placement-api --dev to '
        'try the service on an embedded SQLite database.')


def test_invalid_option_value(config_dir):
    conf = commands.write_config(
        config_dir / 'placement.conf',
        placement_database={'connection': 'sqlite://',
                            'max_retries': 'ten'})
    assert_one_line(
        every_command(config_dir),
        f"[placement_database] max_retries: invalid value: invalid literal "
        f"for int() with base 10: 'ten' (in {conf})")


def configure_policy(config_dir, db_url, policy, **sections):
    """placement.conf on ``db_url`` and a policy file of text ``policy``."""
    (config_dir / 'policy.yaml').write_text(policy)
    commands.write_config(
        config_dir / 'placement.conf', api={'auth_strategy': 'noauth2'},
        placement_database={'connection': db_url},
        oslo_policy={'policy_file': config_dir / 'policy.yaml'},
        **sections)
    return config_dir / 'policy.yaml'


BROKEN_POLICY = ('"placement:resource_providers:list": "role:admin"\n'
                 '"placement:resource_providers:show": [role:admin\n')


@pytest.mark.db
def test_policy_file_that_does_not_parse(config_dir, db_url):
    path = configure_policy(config_dir, db_url, BROKEN_POLICY)
    line = (f'policy file {path}: line 3, column 1: expected \',\' or '
            f'\']\', but got \'<stream end>\' (not valid YAML)')
    api = commands.placement_api(config_dir)
    assert api.returncode == fatal.CONFIGURATION_ERROR
    assert commands.only_line(api) == f'placement-api: {line}'

    status = commands.run('placement-status', 'upgrade', 'check',
                          config_dir=config_dir)
    assert status.returncode == 2, status.stdout + status.stderr
    assert test_status.results(status.stdout)['Policy File'] == 'Failure'
    assert test_status.says(status.stdout, line)

    wsgi = test_wsgi.serve_root(config_dir)
    assert wsgi.returncode == 1
    assert f'CRITICAL placement.wsgi.api [-] {line}' in wsgi.stderr


@pytest.mark.db
def test_policy_rules_that_no_policy_has(config_dir, db_url):
    configure_policy(
        config_dir, db_url,
        '"placement:resource_providers:list": "role:admin"\n'
        '"placement:resource_provider:lists": "role:admin"\n'
        '"placement:nothing": "!"\n')
    status = commands.run('placement-status', 'upgrade', 'check',
                          config_dir=config_dir)
    assert status.returncode == 1, status.stdout + status.stderr
    assert test_status.results(status.stdout)['Policy File'] == 'Warning'
    assert test_status.says(
        status.stdout, 'Rules that no Placement policy has, ignored: '
                       'placement:nothing, placement:resource_provider:lists')


TYPOS = {'api': {'auth_stratgy': 'noauth2'},
         'placement_database': {'conection': 'sqlite://'},
         'no_such_section': {'option': 'value'}}


def typo_warnings(path):
    return [f'Unknown option auth_stratgy in section [api] of {path}: '
            f'ignored',
            f'Unknown option conection in section [placement_database] '
            f'of {path}: ignored',
            f'Unknown section [no_such_section] in {path}: ignored']


def warnings_of(stderr):
    """The messages of the WARNING lines oslo.log wrote."""
    return [line.split(' [-] ', 1)[1] for line in stderr.splitlines()
            if ' WARNING placement.conf.loading [-] ' in line]


@pytest.mark.db
def test_unknown_options_are_warned(config_dir, db_url):
    conf = commands.write_config(
        config_dir / 'placement.conf',
        api={'auth_strategy': 'noauth2', **TYPOS['api']},
        placement_database={'connection': db_url,
                            **TYPOS['placement_database']},
        no_such_section=TYPOS['no_such_section'])
    expected = typo_warnings(conf)

    version = commands.placement_manage(config_dir, 'db', 'version')
    assert version.returncode == 0, version.stderr
    assert warnings_of(version.stderr) == expected

    wsgi = test_wsgi.serve_root(config_dir)
    test_wsgi.assert_serves_root(wsgi)
    assert warnings_of(wsgi.stderr) == expected

    status = commands.run('placement-status', 'upgrade', 'check',
                          config_dir=config_dir)
    assert status.returncode == 1, status.stdout + status.stderr
    assert test_status.results(status.stdout)['Configuration Files'] == (
        'Warning')
    for warning in expected:
        assert test_status.says(status.stdout, warning)


def test_placement_api_warns_before_it_stops(config_dir):
    conf = commands.write_config(config_dir / 'placement.conf', **TYPOS)
    api = commands.placement_api(config_dir)
    assert api.returncode == fatal.CONFIGURATION_ERROR
    *warnings, last = api.stderr.splitlines()
    assert [line.split(' [-] ', 1)[1] for line in warnings] == (
        typo_warnings(conf))
    assert last.startswith('placement-api: The [placement_database] '
                           'connection option is not set')


@pytest.mark.db
def test_options_of_the_libraries_are_known(config_dir, db_url):
    """What keystonemiddleware (and its auth plugin), oslo.middleware and
    upstream's reference configure is not unknown, wherever the library
    registers it."""
    text = _UPSTREAM_CONF.read_text().replace(
        '[placement_database]\n',
        f'[placement_database]\nconnection = {db_url}\n').replace(
        'use_stderr = false', 'use_stderr = true')
    (config_dir / 'placement.conf').write_text(
        text + install_guide.keystone_authtoken() + '''
[healthcheck]
detailed = true

[oslo_middleware]
max_request_body_size = 114688

[DEFAULT]
# [api] auth_strategy's former place.
auth_strategy = noauth2
''')
    version = commands.placement_manage(config_dir, 'db', 'version')
    assert version.returncode == 0, version.stderr
    assert 'WARNING' not in version.stderr
    status = commands.run('placement-status', 'upgrade', 'check',
                          config_dir=config_dir)
    assert test_status.results(status.stdout)['Configuration Files'] == (
        'Success')


@pytest.mark.parametrize('authtoken, stopped_by', [
    # keystonemiddleware loads its auth plugin in each worker, where it
    # failed with a traceback and the workers' boot loop.
    ({'auth_type': 'bogus'}, '[keystone_authtoken] auth_type = bogus: '
                             'The plugin bogus could not be found'),
    # Without one it started and answered every request with a token
    # with a 500.
    ({'www_authenticate_uri': 'http://controller:5000/'},
     '[keystone_authtoken] auth_type is not set: '),
], ids=['unknown', 'missing'])
def test_placement_api_stops_on_an_auth_plugin_it_cannot_use(
        config_dir, authtoken, stopped_by):
    commands.write_config(
        config_dir / 'placement.conf', api={'auth_strategy': 'keystone'},
        placement_database={
            'connection': f'sqlite:///{config_dir}/placement.sqlite',
            'sync_on_startup': True},
        keystone_authtoken=authtoken)
    api = commands.placement_api(config_dir)
    assert api.returncode == fatal.CONFIGURATION_ERROR
    assert 'Traceback' not in api.stderr
    assert api.stderr.splitlines()[-1].startswith(
        f'placement-api: {stopped_by}')


@pytest.mark.parametrize('option, value, reason', [
    ('--threads', '0', 'Invalid Integer(min=1) value: 0'),
    ('--port', '99999', 'Invalid Port(min=0, max=65535) value: 99999'),
])
def test_invalid_command_line_value_is_a_usage_error(config_dir, option,
                                                     value, reason):
    """As argparse's own refusals: the usage, then the program's name and
    the reason, exit status 2 (oslo.config says the reason alone, 1)."""
    api = commands.placement_api(config_dir, option, value)
    assert api.returncode == 2, api.stderr
    assert api.stderr.startswith('usage: placement-api ')
    assert api.stderr.splitlines()[-1] == (
        f'placement-api: error: argument {option}: {reason}')
