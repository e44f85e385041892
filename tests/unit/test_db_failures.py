"""Which driver errors mean "run the transaction again", "database
unavailable", "statement timed out" or "database read-only": one case
per driver error."""

import socket
import sqlite3

import psycopg2
import psycopg2.errors
import pymysql
import pytest
import sqlalchemy as sa

from placement.db import failures

CONTENTION = failures.Failure.CONTENTION
DISCONNECTED = failures.Failure.DISCONNECTED
TIMEOUT = failures.Failure.TIMEOUT
READ_ONLY = failures.Failure.READ_ONLY


def _wrapped(orig, kind=sa.exc.OperationalError):
    """``orig`` as SQLAlchemy raises it from a statement."""
    return kind('STATEMENT', {}, orig)


def _pg_error(sqlstate):
    """A psycopg2 error as the server sends it (pgcode is set by libpq)."""
    base = psycopg2.errors.lookup(sqlstate)
    return type(base.__name__, (base,), {'pgcode': sqlstate})('server says')


@pytest.mark.parametrize('code, message, failure', [
    (1213, 'Deadlock found when trying to get lock; try restarting '
           'transaction', CONTENTION),
    # A Galera certification failure, on COMMIT.
    (1213, 'WSREP detected deadlock/conflict and aborted the transaction. '
           'Try restarting the transaction', CONTENTION),
    (1205, 'Lock wait timeout exceeded; try restarting transaction',
     CONTENTION),
    (1020, "Record has changed since last read in table 'allocations'",
     CONTENTION),
    (2003, "Can't connect to MySQL server on '127.0.0.1' ([Errno 111] "
           "Connection refused)", DISCONNECTED),
    (2006, 'MySQL server has gone away', DISCONNECTED),
    (2013, 'Lost connection to MySQL server during query', DISCONNECTED),
    (1053, 'Server shutdown in progress', DISCONNECTED),
    (1927, 'Connection was killed', DISCONNECTED),
    (1047, 'WSREP has not yet prepared node for application use',
     DISCONNECTED),
    (1040, 'Too many connections', DISCONNECTED),
    (1969, 'Query execution was interrupted (max_statement_time exceeded)',
     TIMEOUT),
    # KILL QUERY of another session.
    (1317, 'Query execution was interrupted', TIMEOUT),
    (1290, 'The MariaDB server is running with the --read-only option so '
           'it cannot execute this statement', READ_ONLY),
    (1792, 'Cannot execute statement in a READ ONLY transaction',
     READ_ONLY),
    (1836, 'Running in read-only mode', READ_ONLY),
    (1062, "Duplicate entry 'x' for key 'uniq_name'", None),
    (1452, 'Cannot add or update a child row: a foreign key constraint '
           'fails', None),
])
def test_pymysql_errors(code, message, failure):
    assert failures.classify(
        _wrapped(pymysql.err.OperationalError(code, message))) is failure


def test_pymysql_use_of_a_closed_connection():
    orig = pymysql.err.InterfaceError(0, '')
    assert failures.classify(
        _wrapped(orig, sa.exc.InterfaceError)) is DISCONNECTED


@pytest.mark.parametrize('sqlstate, failure', [
    ('40P01', CONTENTION),   # deadlock_detected
    ('40001', CONTENTION),   # serialization_failure
    ('55P03', CONTENTION),   # lock_not_available: lock_timeout
    ('57014', TIMEOUT),      # query_canceled: statement_timeout
    ('57P01', DISCONNECTED),  # admin_shutdown
    ('57P03', DISCONNECTED),  # cannot_connect_now
    ('08006', DISCONNECTED),  # connection_failure
    ('53300', DISCONNECTED),  # too_many_connections
    ('25006', READ_ONLY),    # read_only_sql_transaction
    ('23505', None),         # unique_violation
    ('22003', None),         # numeric_value_out_of_range
])
def test_psycopg2_server_errors(sqlstate, failure):
    assert failures.classify(_wrapped(_pg_error(sqlstate))) is failure


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_psycopg2_connection_refused():
    with pytest.raises(psycopg2.OperationalError) as caught:
        psycopg2.connect(host='127.0.0.1', port=_closed_port(),
                         user='placement', connect_timeout=2)
    assert caught.value.pgcode is None
    assert failures.classify(_wrapped(caught.value)) is DISCONNECTED


def test_pymysql_connection_refused():
    with pytest.raises(pymysql.err.OperationalError) as caught:
        pymysql.connect(host='127.0.0.1', port=_closed_port(),
                        connect_timeout=2)
    assert failures.classify(_wrapped(caught.value)) is DISCONNECTED


def test_sqlite_busy_database(tmp_path):
    path = tmp_path / 'busy.sqlite'
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute('BEGIN IMMEDIATE')
    waiter = sqlite3.connect(path, isolation_level=None, timeout=0)
    with pytest.raises(sqlite3.OperationalError) as caught:
        waiter.execute('BEGIN IMMEDIATE')
    holder.close()
    waiter.close()
    assert failures.classify(_wrapped(caught.value)) is CONTENTION


@pytest.mark.parametrize('first, error, kind, failure', [
    # A unique violation is the request's own: no failure.
    ("INSERT INTO t VALUES ('a')", sqlite3.IntegrityError,
     sa.exc.IntegrityError, None),
    ('PRAGMA query_only = 1', sqlite3.OperationalError,
     sa.exc.OperationalError, READ_ONLY),
], ids=['unique violation', 'read-only'])
def test_sqlite_refused_insert(first, error, kind, failure):
    conn = sqlite3.connect(':memory:')
    conn.execute('CREATE TABLE t (name TEXT UNIQUE)')
    conn.execute(first)
    with pytest.raises(error) as caught:
        conn.execute("INSERT INTO t VALUES ('a')")
    assert failures.classify(_wrapped(caught.value, kind)) is failure


def test_connection_invalidated_by_sqlalchemy_is_disconnected():
    error = sa.exc.OperationalError('STATEMENT', {}, Exception('gone'),
                                    connection_invalidated=True)
    assert failures.classify(error) is DISCONNECTED


def test_no_pooled_connection_free_is_disconnected():
    assert failures.classify(sa.exc.TimeoutError('QueuePool limit')) is (
        DISCONNECTED)


def test_deadlock_behind_a_failed_savepoint_rollback():
    """MySQL drops the savepoints with the deadlocked transaction."""
    try:
        try:
            raise _wrapped(pymysql.err.OperationalError(
                1213, 'Deadlock found'))
        except sa.exc.OperationalError:
            raise _wrapped(pymysql.err.OperationalError(
                1305, 'SAVEPOINT sa_1 does not exist')) from None
    except sa.exc.OperationalError as exc:
        error = exc
    # "from None" hides the context from tracebacks, not from the chain.
    assert failures.classify(error) is CONTENTION


def test_other_exceptions_are_no_failure():
    assert failures.classify(ValueError('no database')) is None


# A first connection: refused for good, or worth another attempt.

@pytest.mark.parametrize('code, message, refused', [
    (1045, "Access denied for user 'placement'@'10.0.0.5' (using "
           "password: YES)", True),
    (1044, "Access denied for user 'placement'@'%' to database "
           "'placement'", True),
    (1698, "Access denied for user 'root'@'localhost'", True),
    (1049, "Unknown database 'placement'", True),
    (1130, "Host '10.0.0.5' is not allowed to connect to this MariaDB "
           "server", True),
    (2003, "Can't connect to MySQL server on '127.0.0.1' ([Errno 111] "
           "Connection refused)", False),
    (2003, "Can't connect to MySQL server on 'controller' (timed out)",
     False),
    (1040, 'Too many connections', False),
])
def test_pymysql_first_connection(code, message, refused):
    error = _wrapped(pymysql.err.OperationalError(code, message))
    assert failures.refuses_connection(error) is refused
    assert failures.cause(error) == f'{message} (MySQL error {code})'


@pytest.mark.parametrize('message, refused', [
    ('connection to server at "controller", port 5432 failed: FATAL:  '
     'password authentication failed for user "placement"\n', True),
    ('connection to server at "controller", port 5432 failed: FATAL:  '
     'database "placement" does not exist\n', True),
    ('connection to server at "controller", port 5432 failed: FATAL:  '
     'no pg_hba.conf entry for host "10.0.0.5", user "placement", '
     'database "placement", no encryption\n', True),
    ('invalid dsn: invalid connection option "foo"\n', True),
    ('connection to server at "127.0.0.1", port 5499 failed: Connection '
     'refused\n\tIs the server running on that host and accepting TCP/IP '
     'connections?\n', False),
    ('connection to server at "controller", port 5432 failed: timeout '
     'expired\n', False),
    ('connection to server at "controller", port 5432 failed: FATAL:  '
     'the database system is starting up\n', False),
])
def test_psycopg2_first_connection(message, refused):
    error = _wrapped(psycopg2.OperationalError(message))
    assert failures.refuses_connection(error) is refused
    assert failures.cause(error) == ' '.join(message.split())


def test_sqlite_file_that_cannot_be_opened(tmp_path):
    with pytest.raises(sqlite3.OperationalError) as caught:
        sqlite3.connect(tmp_path / 'no-such-directory' / 'p.sqlite')
    error = _wrapped(caught.value)
    assert failures.refuses_connection(error)
    assert failures.cause(error) == (
        'unable to open database file (SQLITE_CANTOPEN)')


def test_sqlite_read_only_file(tmp_path):
    sqlite3.connect(tmp_path / 'p.sqlite').close()
    conn = sqlite3.connect(f'file:{tmp_path / "p.sqlite"}?mode=ro',
                           uri=True)
    with pytest.raises(sqlite3.OperationalError) as caught:
        conn.execute('CREATE TABLE t (x)')
    error = _wrapped(caught.value)
    assert failures.refuses_connection(error)
    assert failures.cause(error) == (
        'attempt to write a readonly database (SQLITE_READONLY)')


def test_busy_sqlite_file_is_worth_another_attempt():
    error = _wrapped(sqlite3.OperationalError('database is locked'))
    error.orig.sqlite_errorcode = 5
    assert not failures.refuses_connection(error)


def test_url_parameters_the_driver_does_not_take():
    error = TypeError("Connection.__init__() got an unexpected keyword "
                      "argument 'foo'")
    assert failures.refuses_connection(error)
    assert failures.cause(error) == (
        'the driver does not take these URL parameters: ' + str(error))


def _sqlite_busy():
    error = sqlite3.OperationalError('database is locked')
    error.sqlite_errorcode = 5
    return error


@pytest.mark.parametrize('orig, at_commit, cause', [
    (pymysql.err.OperationalError(1213, 'Deadlock found'), False,
     failures.Cause.DEADLOCK),
    # MariaDB reports a Galera certification failure as a deadlock on
    # COMMIT.
    (pymysql.err.OperationalError(1213, 'WSREP detected deadlock'), True,
     failures.Cause.GALERA_CERTIFICATION),
    (pymysql.err.OperationalError(1205, 'Lock wait timeout exceeded'),
     False, failures.Cause.LOCK_WAIT),
    (pymysql.err.OperationalError(1020, 'Record has changed'), False,
     failures.Cause.SERIALIZATION),
    (pymysql.err.OperationalError(2013, 'Lost connection'), False,
     failures.Cause.CONNECTION_LOST),
    (_pg_error('40P01'), False, failures.Cause.DEADLOCK),
    # No Galera there.
    (_pg_error('40P01'), True, failures.Cause.DEADLOCK),
    (_pg_error('55P03'), False, failures.Cause.LOCK_WAIT),
    (_pg_error('40001'), False, failures.Cause.SERIALIZATION),
    (_pg_error('57P01'), False, failures.Cause.CONNECTION_LOST),
    (_sqlite_busy(), False, failures.Cause.LOCK_WAIT),
])
def test_cause_of_a_rerun(orig, at_commit, cause):
    exc = _wrapped(orig)
    if at_commit:
        failures.failed_at_commit(exc)
    assert failures.rerun_cause(exc, failures.classify(exc)) is cause


@pytest.mark.parametrize('orig, full', [
    # PyMySQL raises the codes it does not map as OperationalError.
    (pymysql.err.OperationalError(
        1461, "Can't create more than max_prepared_stmt_count statements "
              "(current value: 1)"), True),
    (pymysql.err.OperationalError(
        1213, 'Deadlock found when trying to get lock; try restarting '
              'transaction'), False),
    (pymysql.err.ProgrammingError(
        1064, 'You have an error in your SQL syntax'), False),
    (_pg_error('42P05'), False),  # duplicate_prepared_statement
])
def test_a_server_that_prepares_no_more_statements(orig, full):
    """Error 1461 is a MariaDB/MySQL server past its
    max_prepared_stmt_count: the statement runs as text instead."""
    assert failures.prepared_statements_full(_wrapped(orig)) is full


def test_lost_connection_of_a_driver_error_as_sqlalchemy_logs_it():
    closed = psycopg2.OperationalError('server closed the connection '
                                       'unexpectedly')
    assert failures.lost_connection(closed)
    assert failures.lost_connection(_wrapped(closed))
    assert not failures.lost_connection(_pg_error('23505'))
    assert not failures.lost_connection(ValueError('x'))
