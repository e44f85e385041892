"""placement.wsgi.api:application, loaded as a WSGI server loads it.

Each test imports the module in a new interpreter, configured through
``$OS_PLACEMENT_CONFIG_DIR/placement.conf``.
"""

import json

import pytest
import sqlalchemy as sa

from placement import microversion
from tests.functional import commands
from tests.functional import schema

# Import the application, then ask it for the version document.
SERVE_ROOT = '''
import webob
from placement.wsgi import api
response = webob.Request.blank(
    '/', headers={'Accept': 'application/json'}).get_response(api.application)
print(response.status_int)
print(response.text)
'''

# Wait until N processes are ready (a file each in DIR), then go on, so
# that all of them start the application at once.
BARRIER = '''
import os, sys, time
import placement.deploy
barrier, count = sys.argv[1], int(sys.argv[2])
open(os.path.join(barrier, str(os.getpid())), 'w').close()
while len(os.listdir(barrier)) < count:
    time.sleep(0.01)
'''


def configure(config_dir, url=None, sync_on_startup=False):
    database = {'sync_on_startup': sync_on_startup}
    if url:
        database['connection'] = url
    commands.write_config(
        config_dir / 'placement.conf', api={'auth_strategy': 'noauth2'},
        placement_database=database)


def serve_root(config_dir):
    return commands.finish(
        commands.start_python(SERVE_ROOT, config_dir=config_dir))


def assert_serves_root(result):
    assert result.returncode == 0, result.stderr
    status, body = result.stdout.split('\n', 1)
    assert status == '200'
    version = json.loads(body)['versions'][0]
    assert version['max_version'] == microversion.MAX_VERSION_STRING
    assert version['min_version'] == '1.0'


@pytest.mark.db
def test_application(config_dir, db_url):
    configure(config_dir, db_url)
    assert_serves_root(serve_root(config_dir))


def test_no_connection_configured(config_dir):
    configure(config_dir)
    result = serve_root(config_dir)
    assert result.returncode != 0
    assert '[placement_database] connection' in result.stderr


@pytest.mark.db
def test_unmigrated_database(config_dir, empty_db_url):
    configure(config_dir, empty_db_url)
    result = serve_root(config_dir)
    assert result.returncode != 0
    assert 'run "placement-manage db sync"' in result.stderr
    assert schema.table_names(empty_db_url) == set()


@pytest.mark.parametrize('sync_on_startup', [False, True])
@pytest.mark.db
def test_database_of_a_newer_release(config_dir, empty_db_url,
                                     sync_on_startup):
    """A database a newer release migrated: the server and ``db sync``
    say so in one line, rather than advise a ``db sync`` that fails."""
    configure(config_dir, empty_db_url, sync_on_startup=sync_on_startup)
    assert commands.placement_manage(config_dir, 'db', 'sync').returncode == 0
    engine = sa.create_engine(empty_db_url)
    with engine.begin() as conn:
        conn.execute(sa.text(
            "UPDATE alembic_version SET version_num = 'f00dfacecafe'"))
    engine.dispose()
    expected = ('The placement database schema is at revision f00dfacecafe, '
                'which this release does not know')
    result = serve_root(config_dir)
    assert result.returncode != 0
    assert expected in result.stderr
    assert 'db sync' not in result.stderr
    sync = commands.placement_manage(config_dir, 'db', 'sync')
    assert sync.returncode == 1
    assert 'Traceback' not in sync.stderr
    # After alembic's own lines (the context it opened).
    assert sync.stderr.splitlines()[-1].startswith(expected)


@pytest.mark.db
def test_sync_on_startup(config_dir, empty_db_url):
    configure(config_dir, empty_db_url, sync_on_startup=True)
    assert_serves_root(serve_root(config_dir))
    schema.assert_synced(empty_db_url)


@pytest.mark.db
def test_concurrent_sync_on_startup(tmp_path, config_dir, empty_db_url):
    """Workers starting together: one migrates, none fails or duplicates."""
    configure(config_dir, empty_db_url, sync_on_startup=True)
    barrier = tmp_path / 'barrier'
    barrier.mkdir()
    count = 4
    processes = [
        commands.start_python(BARRIER + SERVE_ROOT, str(barrier),
                              str(count), config_dir=config_dir)
        for _ in range(count)]
    for process in processes:
        assert_serves_root(commands.finish(process))
    schema.assert_synced(empty_db_url)
