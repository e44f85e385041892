"""What a database error means for the transaction that met it.

The one place that reads the error codes of the drivers (PyMySQL,
psycopg2, sqlite3). oslo.db's exception filters were considered: they
turn every driver error of an engine into oslo.db's own exception types
(which the object layer, catching SQLAlchemy's IntegrityError, does not
expect), match messages rather than codes, and know neither
PostgreSQL's lock and statement timeouts nor SQLite's busy database.

A :class:`Failure` says what to do:

- CONTENTION: the database rolled the transaction back (deadlock, lock
  wait timeout, serialization failure, Galera certification failure,
  which MariaDB reports as a deadlock on COMMIT): run it again in a
  fresh transaction.
- DISCONNECTED: the database cannot be reached or the connection broke.
  Before COMMIT nothing was written, so it can be run again; during
  COMMIT the outcome is unknown and it must not be acknowledged.
- TIMEOUT: a statement ran longer than ``statement_timeout``, or was
  cancelled by another session (MariaDB ``KILL QUERY``, PostgreSQL
  ``pg_cancel_backend``).
- READ_ONLY: the database refuses writes (a server or database made
  read-only, a read-only replica or transaction): nothing was written,
  and running it again at once would meet the same refusal.

At start-up, :func:`refuses_connection` tells the failures of a first
connection that no retry cures (credentials, an unknown database, a file
that cannot be opened or written) from those that may pass (refused,
timed out), and :func:`cause` says either in one line;
:func:`prepared_statements_full` tells a server that prepares no more
statements (which run as text instead).
"""

import enum

import sqlalchemy as sa


class Failure(enum.Enum):
    CONTENTION = 'contention'
    DISCONNECTED = 'database unavailable'
    TIMEOUT = 'statement timeout'
    READ_ONLY = 'database read-only'


class DatabaseUnavailable(Exception):
    """The database could not serve the request: answer 503.

    ``failure`` names the kind, for the log.
    """

    def __init__(self, message, failure=Failure.DISCONNECTED):
        super().__init__(message)
        self.failure = failure


class CommitOutcomeUnknown(DatabaseUnavailable):
    """The connection broke during COMMIT: the write may or may not be
    there, so it is neither acknowledged nor run again."""


_MYSQL = {
    # Deadlock (and a Galera certification failure, or a brute-force
    # abort by a replicated write); lock wait timeout; a row changed
    # since this transaction read it (MariaDB snapshot isolation).
    1213: Failure.CONTENTION, 1205: Failure.CONTENTION,
    1020: Failure.CONTENTION,
    # Can't connect (socket, TCP), server gone away, connection lost
    # during a query, server shutting down, connection killed,
    # too many connections, WSREP not ready (node out of the primary
    # component), disconnected for inactivity.
    2002: Failure.DISCONNECTED, 2003: Failure.DISCONNECTED,
    2006: Failure.DISCONNECTED, 2013: Failure.DISCONNECTED,
    2055: Failure.DISCONNECTED, 1053: Failure.DISCONNECTED,
    1927: Failure.DISCONNECTED, 1040: Failure.DISCONNECTED,
    1047: Failure.DISCONNECTED, 4031: Failure.DISCONNECTED,
    # max_statement_time exceeded (MariaDB); the statement was
    # interrupted by KILL QUERY (or a KILL of its connection, which then
    # breaks: its next use is a lost connection).
    1969: Failure.TIMEOUT, 1317: Failure.TIMEOUT,
    # The server runs with --read-only (ER_OPTION_PREVENTS_STATEMENT,
    # the only statement of that error a DML transaction meets), a
    # read-only transaction, MariaDB's read-only mode.
    1290: Failure.READ_ONLY, 1792: Failure.READ_ONLY,
    1836: Failure.READ_ONLY,
}

_POSTGRESQL = {
    '40P01': Failure.CONTENTION,  # deadlock_detected
    '40001': Failure.CONTENTION,  # serialization_failure
    '55P03': Failure.CONTENTION,  # lock_not_available (lock_timeout)
    '57014': Failure.TIMEOUT,     # query_canceled (statement_timeout)
    '57P01': Failure.DISCONNECTED,  # admin_shutdown
    '57P02': Failure.DISCONNECTED,  # crash_shutdown
    '57P03': Failure.DISCONNECTED,  # cannot_connect_now (starting up)
    '53300': Failure.DISCONNECTED,  # too_many_connections
    # read_only_sql_transaction: default_transaction_read_only, a hot
    # standby.
    '25006': Failure.READ_ONLY,
}

# Primary result codes (the low byte of the extended code).
_SQLITE = {
    5: Failure.CONTENTION,     # SQLITE_BUSY: busy_timeout ran out
    6: Failure.CONTENTION,     # SQLITE_LOCKED
    14: Failure.DISCONNECTED,  # SQLITE_CANTOPEN
    8: Failure.READ_ONLY,      # SQLITE_READONLY: a read-only file
}


class Cause(enum.Enum):
    """Why a transaction was run again (the metrics' ``cause`` label)."""
    DEADLOCK = 'deadlock'
    LOCK_WAIT = 'lock_wait'
    #: A Galera certification failure: MariaDB's deadlock on COMMIT.
    GALERA_CERTIFICATION = 'galera_certification'
    SERIALIZATION = 'serialization'
    CONNECTION_LOST = 'connection_lost'


_MYSQL_DEADLOCK = 1213
#: The causes of the CONTENTION codes; any other is a lock wait.
_CONTENTION_CAUSES = {
    _MYSQL_DEADLOCK: Cause.DEADLOCK, 1020: Cause.SERIALIZATION,
    '40P01': Cause.DEADLOCK, '40001': Cause.SERIALIZATION,
}
_AT_COMMIT = 'placement_at_commit'


def failed_at_commit(exc):
    """Note that ``exc`` was raised by COMMIT (see :func:`rerun_cause`)."""
    setattr(exc, _AT_COMMIT, True)


def rerun_cause(exc, failure):
    """The :class:`Cause` of ``exc``, a run again ``failure``."""
    if failure is Failure.DISCONNECTED:
        return Cause.CONNECTION_LOST
    orig = getattr(exc, 'orig', None)
    code = getattr(orig, 'pgcode', None) or (
        orig.args[0] if orig is not None and orig.args else None)
    if code == _MYSQL_DEADLOCK and getattr(exc, _AT_COMMIT, False):
        return Cause.GALERA_CERTIFICATION
    return _CONTENTION_CAUSES.get(code, Cause.LOCK_WAIT)


def _is_a(orig, *names):
    """Whether ``orig`` is of a class named one of ``names`` (PEP 249's)."""
    return any(cls.__name__ in names for cls in type(orig).__mro__)


def _drivers(orig):
    """The top-level modules of the classes of a driver's exception
    ``orig`` (``pymysql``, ``psycopg2``, ``sqlite3``)."""
    return {cls.__module__.split('.')[0] for cls in type(orig).__mro__}


def _driver_failure(orig):
    """The Failure of a driver's own exception ``orig``, or None."""
    drivers = _drivers(orig)
    if 'pymysql' in drivers:
        code = orig.args[0] if orig.args else None
        if _is_a(orig, 'InterfaceError'):
            return Failure.DISCONNECTED  # use of a closed connection
        return _MYSQL.get(code)
    if 'psycopg2' in drivers:
        pgcode = getattr(orig, 'pgcode', None)
        if pgcode is None:
            # Errors of the client library: refused, reset, closed.
            if _is_a(orig, 'OperationalError', 'InterfaceError'):
                return Failure.DISCONNECTED
            return None
        if pgcode.startswith('08'):  # connection_exception class
            return Failure.DISCONNECTED
        return _POSTGRESQL.get(pgcode)
    if 'sqlite3' in drivers:
        code = getattr(orig, 'sqlite_errorcode', None)
        return None if code is None else _SQLITE.get(code & 0xff)
    return None


def _one(exc):
    if isinstance(exc, sa.exc.TimeoutError):
        return Failure.DISCONNECTED  # no pooled connection came free
    if isinstance(exc, sa.exc.DBAPIError):
        if exc.connection_invalidated:
            return Failure.DISCONNECTED
        if exc.orig is not None:
            return _driver_failure(exc.orig)
    return None


def pooled_connection_broke(exc):
    """Whether ``exc`` (SQLAlchemy's) is that of a connection that was
    open and broke (SQLAlchemy invalidated it: since its last use, or
    during this one), not of one that could not be opened."""
    return (isinstance(exc, sa.exc.DBAPIError) and exc.connection_invalidated
            and _one(exc) is Failure.DISCONNECTED)


def lost_connection(exc):
    """Whether ``exc``, SQLAlchemy's or a driver's own exception (as one
    that SQLAlchemy logs rather than raises), is a lost connection."""
    if isinstance(exc, sa.exc.SQLAlchemyError):
        return _one(exc) is Failure.DISCONNECTED
    return _driver_failure(exc) is Failure.DISCONNECTED


def classify(exc):
    """The Failure that ``exc`` (or an exception it was raised from) is.

    The chain is searched: a deadlock inside a SAVEPOINT rolls back the
    whole transaction on MySQL, and what surfaces is then the failed
    ROLLBACK TO SAVEPOINT, with the deadlock as its context.
    """
    while exc is not None:
        failure = _one(exc)
        if failure is not None:
            return failure
        exc = exc.__cause__ or exc.__context__
    return None


#: MySQL's error for a PREPARE past the server's
#: ``max_prepared_stmt_count`` (ER_MAX_PREPARED_STMT_COUNT_REACHED).
_MYSQL_PREPARED_STATEMENTS_FULL = 1461


def prepared_statements_full(exc):
    """Whether ``exc`` is a MariaDB/MySQL server refusing to prepare a
    statement because it holds as many as it allows (of all its
    sessions): the statement can run as text instead."""
    orig = getattr(exc, 'orig', None)
    return (orig is not None and 'pymysql' in _drivers(orig)
            and orig.args[:1] == (_MYSQL_PREPARED_STATEMENTS_FULL,))


# Refusals of a first connection that only a change of configuration (or
# of the database server's) cures. MySQL: access denied to the database,
# for the password, or for a user without one (unix_socket); unknown
# database; host not allowed, or blocked until FLUSH HOSTS; an
# authentication method the client lacks.
_MYSQL_REFUSALS = {1044, 1045, 1698, 1049, 1130, 1129, 1251}
# libpq gives no SQLSTATE for a failed connection, only its message (in
# the server's language for the FATAL ones: a server with translated
# messages has its refusals retried like an outage).
_POSTGRESQL_REFUSALS = (
    'password authentication failed', 'authentication failed',
    'no pg_hba.conf entry', 'does not exist', 'no password supplied',
    'permission denied for database', 'invalid dsn',
    'invalid connection option', 'invalid sslmode value')
# SQLITE_PERM, SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_NOTADB.
_SQLITE_REFUSALS = {3, 8, 14, 26}


def refuses_connection(exc):
    """Whether the first connection failed in a way a retry cannot cure.

    ``exc`` is what connecting raised: a driver error wrapped by
    SQLAlchemy, or a TypeError when the driver rejects the URL's
    parameters (PyMySQL).
    """
    if isinstance(exc, TypeError):
        return True
    orig = getattr(exc, 'orig', None)
    if orig is None:
        return False
    drivers = _drivers(orig)
    if 'pymysql' in drivers:
        return bool(orig.args) and orig.args[0] in _MYSQL_REFUSALS
    if 'psycopg2' in drivers:
        message = str(orig)
        return any(text in message for text in _POSTGRESQL_REFUSALS)
    if 'sqlite3' in drivers:
        code = getattr(orig, 'sqlite_errorcode', None)
        return code is not None and code & 0xff in _SQLITE_REFUSALS
    return False


def cause(exc):
    """What the driver said about ``exc``, in one line, with its code."""
    if isinstance(exc, TypeError):
        return f'the driver does not take these URL parameters: {exc}'
    orig = getattr(exc, 'orig', None) or exc
    drivers = _drivers(orig)
    if 'pymysql' in drivers and len(orig.args) == 2:
        return f'{orig.args[1]} (MySQL error {orig.args[0]})'
    if 'sqlite3' in drivers and getattr(orig, 'sqlite_errorname', None):
        return f'{orig} ({orig.sqlite_errorname})'
    return ' '.join(str(orig).split())
