"""placement-status upgrade check, run as an operator runs it."""

import pytest
import sqlalchemy as sa

from tests import database
from tests.functional import commands
from tests.functional import legacy_data

CHECKS = ('Missing Root Provider IDs', 'Incomplete Consumers',
          'Policy File JSON to YAML Migration', 'Policy File',
          'Configuration Files')
RUN_MIGRATIONS = ('Run the command: placement-manage db '
                  'online_data_migrations')


def upgrade_check(tmp_path, config_dir, url):
    sections = {'placement_database': {'connection': url} if url else {}}
    conf = commands.write_config(tmp_path / 'status.conf', **sections)
    return commands.run('placement-status', '--config-file', str(conf),
                        'upgrade', 'check', config_dir=config_dir)


def results(stdout):
    """{check name: result} from the result table."""
    found, name = {}, None
    for line in stdout.splitlines():
        cell = line.strip('| ')
        if cell.startswith('Check: '):
            name = cell.removeprefix('Check: ')
        elif cell.startswith('Result: '):
            found[name] = cell.removeprefix('Result: ')
    return found


def says(stdout, message):
    """Whether the result table has ``message``, however it wrapped it."""
    text = ''.join(line.strip('| ') for line in stdout.splitlines()
                   if line.startswith('|'))
    return ''.join(message.split()) in ''.join(text.split())


def unreachable_url():
    """A database of the test backend that cannot be connected to."""
    server = database.backend_url()
    if not server:
        return 'sqlite:////nonexistent-directory/placement.sqlite'
    url = sa.engine.make_url(server).set(port=1, database='placement')
    return url.render_as_string(hide_password=False)


@pytest.mark.db
def test_all_pass(tmp_path, config_dir, db_url):
    result = upgrade_check(tmp_path, config_dir, db_url)
    assert result.returncode == 0, result.stdout + result.stderr
    assert results(result.stdout) == dict.fromkeys(CHECKS, 'Success')


@pytest.mark.db
def test_incomplete_consumers_warn(tmp_path, config_dir, db_url, db):
    with db.writer() as conn:
        provider = legacy_data.add_provider(conn, 'legacy', with_root=True)
        legacy_data.add_consumerless_allocations(conn, provider, 2)
    result = upgrade_check(tmp_path, config_dir, db_url)
    assert result.returncode == 1, result.stdout + result.stderr
    assert results(result.stdout)['Incomplete Consumers'] == 'Warning'
    assert results(result.stdout)['Missing Root Provider IDs'] == 'Success'
    assert says(result.stdout,
                'There are 2 incomplete consumers table records for '
                'existing allocations. ' + RUN_MIGRATIONS)


@pytest.mark.db
def test_missing_root_provider_ids_fail(tmp_path, config_dir, db_url, db):
    with db.writer() as conn:
        provider = legacy_data.add_provider(conn, 'legacy')
        legacy_data.add_consumerless_allocations(conn, provider, 1)
    result = upgrade_check(tmp_path, config_dir, db_url)
    # The worst result wins.
    assert result.returncode == 2, result.stdout + result.stderr
    assert results(result.stdout) == {
        **dict.fromkeys(CHECKS, 'Success'),
        'Missing Root Provider IDs': 'Failure',
        'Incomplete Consumers': 'Warning'}
    assert says(result.stdout,
                'There is at least one resource provider table record '
                'which misses its root provider id. ' + RUN_MIGRATIONS)


@pytest.mark.db
def test_unreachable_database(tmp_path, config_dir):
    """One attempt, whatever max_retries says: a check does not wait."""
    result = upgrade_check(tmp_path, config_dir, unreachable_url())
    assert result.returncode == 255
    line = commands.only_line(result)
    assert line.startswith('placement-status: [placement_database] '
                           'connection = ')
    assert (('after 1 attempt: ' if database.backend_url()
             else 'unable to open database file') in line)


def test_database_not_configured(tmp_path, config_dir):
    result = upgrade_check(tmp_path, config_dir, None)
    assert result.returncode == 255
    assert '[placement_database] connection' in commands.only_line(result)


def test_help_names_its_commands(config_dir):
    """Under a heading, as placement-manage's (it was an empty ':')."""
    result = commands.run('placement-status', '--help',
                          config_dir=config_dir)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert ':' not in [line.strip() for line in lines]
    heading = lines.index('Command categories:')
    assert lines[heading + 1:heading + 3] == [
        '  {upgrade}',
        '    upgrade             Upgrade checks: placement-status upgrade '
        'check']


@pytest.mark.parametrize('args, error', [
    ((), 'placement-status: error: the following arguments are required: '
         'command'),
    (('upgrade',), 'placement-status upgrade: error: the following '
                   'arguments are required: check'),
])
def test_a_command_is_required(config_dir, args, error):
    """Usage errors, as placement-manage's."""
    result = commands.run('placement-status', *args, config_dir=config_dir)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == error
