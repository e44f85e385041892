"""A configuration that cannot work stops the commands, the server and
the WSGI application at start, in one line that names what to fix.

Each case runs the console scripts of this virtualenv (and imports the
WSGI module in a new interpreter) as an operator would. The database
servers' cases run on the backend of ``PLACEMENT_TEST_DB_URL`` (``-m
db``); those that need no server run everywhere.
"""

import os
import signal
import socket
import sqlite3
import subprocess
import threading

import pytest
import sqlalchemy as sa

from placement import fatal
from placement.db import api as db_api
from tests import database
from tests import processes
from tests.functional import commands
from tests.functional import test_wsgi

SECRET = 'not-the-password'
CONNECTION = '[placement_database] connection'


def write_conf(path, connection=None, **sections):
    database_options = {'max_retries': 1, 'retry_interval': 0}
    if connection is not None:
        database_options['connection'] = connection.replace('%', '%%')
    commands.write_config(
        path, api={'auth_strategy': 'noauth2'},
        placement_database=database_options, **sections)
    return path


def run_everywhere(config_dir, connection):
    """``{command: CompletedProcess}`` of every entry point, reading
    ``$OS_PLACEMENT_CONFIG_DIR/placement.conf``."""
    write_conf(config_dir / 'placement.conf', connection)
    return {
        'db sync': commands.placement_manage(config_dir, 'db', 'sync'),
        'db version': commands.placement_manage(config_dir, 'db',
                                                'version'),
        'report': commands.placement_manage(config_dir, 'report',
                                            'capacity'),
        'placement-api': commands.placement_api(config_dir),
        'placement-status': commands.run('placement-status', 'upgrade',
                                         'check', config_dir=config_dir),
        'wsgi': test_wsgi.serve_root(config_dir),
    }


def assert_stopped(results, *expected, status=fatal.CONFIGURATION_ERROR):
    """Each entry point stopped in one line with every ``expected`` text;
    the WSGI import logged that line and raised it, nothing chained."""
    for command, result in results.items():
        if command == 'wsgi':
            # The server loading it prints the exception its own way.
            assert result.returncode == 1, result.stderr
            logged = [line for line in result.stderr.splitlines()
                      if 'CRITICAL placement.wsgi.api [-] ' in line]
            assert len(logged) == 1, result.stderr
            assert all(text in logged[0] for text in expected), logged
            assert 'retrying' not in result.stderr
            assert 'direct cause' not in result.stderr
            assert SECRET not in result.stderr
            continue
        line = commands.only_line(result)
        for text in expected:
            assert text in line, (command, line)
        assert SECRET not in line
        assert result.returncode == (
            255 if command == 'placement-status' else status), (command, line)


def server_url(**parts):
    """A URL on the test backend's server."""
    url = sa.engine.make_url(database.backend_url())
    return url.set(**parts).render_as_string(hide_password=False)


@pytest.mark.parametrize('connection, cause', [
    ('not a url', 'not a database URL'),
    (f'mysql+pymysql://placement:{SECRET}@controller:33x6/placement',
     'not a database URL'),
    (f'mysql+nosuch://placement:{SECRET}@controller:3306/placement',
     'unknown database dialect or driver "mysql+nosuch"'),
    (f'oracle+cx_oracle://placement:{SECRET}@controller/placement',
     'the driver of "oracle+cx_oracle" is not installed'),
    ('sqlite:////nonexistent-directory/placement.sqlite',
     'unable to open database file (SQLITE_CANTOPEN)'),
])
def test_unusable_connection(config_dir, connection, cause):
    results = run_everywhere(config_dir, connection)
    target = connection.replace(SECRET, '***')
    assert_stopped(results, f'{CONNECTION} = {target}: {cause}')


def test_read_only_sqlite_file(tmp_path, config_dir):
    path = tmp_path / 'placement.sqlite'
    sqlite3.connect(path).close()
    path.chmod(0o444)
    # Opened read-only as the file's mode makes it for any user but root.
    connection = f'sqlite:///file:{path}?mode=ro&uri=true'
    write_conf(config_dir / 'placement.conf', connection)
    for result in (commands.placement_manage(config_dir, 'db', 'sync'),
                   commands.placement_api(config_dir)):
        assert result.returncode == fatal.CONFIGURATION_ERROR
        assert commands.only_line(result).endswith(
            f'{CONNECTION} = {connection}: attempt to write a readonly '
            f'database (SQLITE_READONLY)')


def test_a_sqlite_file_being_written_is_waited_for(tmp_path):
    """Workers start at once and each writes to the file to see that it
    can: one that finds another writing waits for it (and for nothing
    longer), rather than taking the file for unreachable and trying
    again ``retry_interval`` (10 s) later."""
    path = tmp_path / 'placement.sqlite'
    other = sqlite3.connect(path, isolation_level=None,
                            check_same_thread=False)
    other.execute('PRAGMA journal_mode=WAL')
    other.execute('BEGIN IMMEDIATE')
    other.execute('CREATE TABLE written_meanwhile (id INTEGER)')
    commit = threading.Timer(0.5, other.execute, ['COMMIT'])
    commit.start()
    try:
        conf = database.make_conf(f'sqlite:///{path}')
        db_api.connected(conf.placement_database, writable=True,
                         max_retries=0).dispose()
    finally:
        commit.join()
        other.close()


@pytest.mark.parametrize('connection, address', [
    ('mysql+pymysql://placement:{secret}@127.0.0.1:1/placement',
     '127.0.0.1:1'),
    ('postgresql+psycopg2://placement:{secret}@127.0.0.1:1/placement',
     '127.0.0.1:1'),
    # A socket is named instead.
    ('mysql+pymysql://placement:{secret}@localhost/placement'
     '?unix_socket=/nonexistent.sock', '/nonexistent.sock'),
])
def test_unreachable_database_is_retried(tmp_path, config_dir, connection,
                                         address):
    connection = connection.format(secret=SECRET)
    conf = write_conf(tmp_path / 'placement.conf', connection)
    result = commands.placement_manage(config_dir, '--config-file',
                                       str(conf), 'db', 'sync')
    assert result.returncode == fatal.TEMPORARY_FAILURE
    assert 'Traceback' not in result.stderr
    # max_retries = 1: two attempts, a warning after the first.
    attempt, last = result.stderr.splitlines()
    assert (f'WARNING placement.db.api [-] Database of '
            f'{CONNECTION} not reachable at {address} (attempt 1 of 2): '
            in attempt)
    assert attempt.endswith('; retrying in 0s')
    masked = connection.replace(SECRET, '***')
    assert last.startswith(
        f'placement-manage: {CONNECTION} = {masked}: not reachable at '
        f'{address} after 2 attempts: ')
    assert SECRET not in result.stderr


# Per backend: the parts of a URL on the test server that it refuses,
# and what the line says of it.
REFUSALS = {
    'mysql': [
        ({'password': SECRET, 'database': 'mysql'},
         ('Access denied for user', '(MySQL error 1045)')),
        ({'database': 'placement_no_such_database'},
         ("Unknown database 'placement_no_such_database'",
          '(MySQL error 1049)')),
    ],
    # The test server trusts any password: an unknown role is what it
    # refuses.
    'postgresql': [
        ({'username': 'placement_no_such_role', 'password': SECRET,
          'database': 'postgres'},
         ('FATAL: role "placement_no_such_role" does not exist',)),
        ({'database': 'placement_no_such_database'},
         ('FATAL: database "placement_no_such_database" does not exist',)),
    ],
}


@pytest.mark.db
@pytest.mark.parametrize('case', [0, 1], ids=['credentials', 'database'])
def test_refused_by_the_server(config_dir, case):
    """Refused credentials and an unknown database stop every entry
    point at once, whatever the retries allowed."""
    if not database.backend_url():
        pytest.skip('SQLite has no server to refuse a connection '
                    '(test_unusable_connection has its refusals)')
    backend = sa.engine.make_url(database.backend_url()).get_backend_name()
    parts, causes = REFUSALS[backend][case]
    connection = server_url(**parts)
    results = run_everywhere(config_dir, connection)
    target = connection.replace(SECRET, '***')
    assert_stopped(results, f'{CONNECTION} = {target}: ', *causes)


def test_debug_logs_the_details(tmp_path, config_dir):
    connection = f'mysql+nosuch://placement:{SECRET}@controller/placement'
    conf = write_conf(tmp_path / 'placement.conf', connection)
    result = commands.placement_manage(
        config_dir, '--debug', '--config-file', str(conf), 'db', 'sync')
    assert result.returncode == fatal.CONFIGURATION_ERROR
    *details, last = result.stderr.splitlines()
    assert 'DEBUG placement.fatal [-] Stopped by a fatal error' in (
        '\n'.join(details))
    assert any('Traceback (most recent call last):' in line
               for line in details)
    assert last.startswith(f'placement-manage: {CONNECTION} = ')
    assert SECRET not in result.stderr


def test_stopped_while_waiting_for_the_database(tmp_path, config_dir):
    """SIGTERM before the server serves (here, while it waits for its
    database) stops it with status 0 and removes the directory it made
    for the workers' metrics."""
    connection = 'mysql+pymysql://placement:secret@127.0.0.1:1/placement'
    commands.write_config(
        config_dir / 'placement.conf', api={'auth_strategy': 'noauth2'},
        placement_database={'connection': connection, 'max_retries': -1,
                            'retry_interval': 60})
    private_tmp = tmp_path / 'tmp'
    private_tmp.mkdir()
    port = processes.free_port()
    server = subprocess.Popen(
        [commands.script('placement-api'), '--port', str(port)],
        env={**commands.environ(config_dir), 'TMPDIR': str(private_tmp)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        first_line = server.stderr.readline()
        assert 'not reachable at 127.0.0.1:1' in first_line, first_line
        assert list(private_tmp.glob('placement-metrics-*'))
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
    finally:
        processes.stop(server)
        server.stderr.close()
    assert not list(private_tmp.glob('placement-metrics-*'))


def _listening(family, host):
    """A socket listening on ``host`` at a free port, as another server's."""
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.bind((host, 0))
    except OSError:
        sock.close()
        pytest.skip(f'{host} cannot be bound on this host')
    sock.listen()
    return sock


@pytest.mark.parametrize('family, host, address', [
    (socket.AF_INET, '127.0.0.1', '127.0.0.1:{port}'),
    (socket.AF_INET6, '::1', '[::1]:{port}'),
])
def test_address_in_use(tmp_path, config_dir, family, host, address):
    """Refused at once (gunicorn tried for 5 s and exited 1), with the
    status of a temporary failure: it may be a server still stopping."""
    with _listening(family, host) as other:
        port = other.getsockname()[1]
        result = commands.run('placement-api', '--dev', '--host', host,
                              '--port', str(port), config_dir=config_dir,
                              cwd=tmp_path)
    assert commands.only_line(result) == (
        f'placement-api: cannot listen on {address.format(port=port)}: '
        f'another process is listening there; stop it or choose another '
        f'--port')
    assert result.returncode == fatal.TEMPORARY_FAILURE


def test_address_of_no_interface(tmp_path, config_dir):
    # TEST-NET-1 (RFC 5737): no host has it.
    result = commands.placement_api(config_dir, '--dev', '--host',
                                    '192.0.2.1', cwd=tmp_path)
    assert commands.only_line(result).startswith(
        'placement-api: cannot listen on 192.0.2.1:')
    assert '(--host, --port): Cannot assign requested address' in (
        result.stderr)
    assert result.returncode == fatal.CONFIGURATION_ERROR


def test_listening_socket_inherited_from_the_master_it_replaces(tmp_path):
    """A master re-executed by SIGUSR2 gets the old one's sockets
    (``GUNICORN_FD``, with the old master's ``GUNICORN_PID``: here this
    process): their address is in use by design, and served."""
    with _listening(socket.AF_INET, '127.0.0.1') as inherited:
        port = inherited.getsockname()[1]
        log_path = tmp_path / 'placement-api.log'
        with open(log_path, 'wb') as log:
            process = subprocess.Popen(
                [commands.script('placement-api'), '--dev', '--port',
                 str(port)],
                cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                pass_fds=[inherited.fileno()],
                env={**commands.environ(tmp_path),
                     'GUNICORN_PID': str(os.getpid()),
                     'GUNICORN_FD': str(inherited.fileno())})
        try:
            processes.wait_until_up(f'http://127.0.0.1:{port}/', process,
                                    log_path)
        finally:
            processes.stop(process)
    assert process.returncode == 0, log_path.read_text()
