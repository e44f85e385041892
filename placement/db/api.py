"""The database engine and the transactions the object layer runs in."""

import contextlib
import logging
import time
import traceback

import sqlalchemy as sa
from sqlalchemy import event

LOG = logging.getLogger(__name__)


class DatabaseNotConfigured(Exception):
    """``[placement_database] connection`` is not set."""


def _connection_url(db_conf):
    if not db_conf.connection:
        raise DatabaseNotConfigured(
            'The [placement_database] connection option is not set; the '
            'placement service cannot start without a database.')
    url = sa.engine.make_url(db_conf.connection)
    if db_conf.connection_parameters:
        params = dict(
            pair.split('=', 1)
            for pair in db_conf.connection_parameters.split('&') if pair)
        url = url.update_query_dict(params)
    return url


def _engine_options(url, db_conf):
    options = {'pool_pre_ping': True}
    if db_conf.connection_debug >= 100:
        options['echo'] = 'debug'
    elif db_conf.connection_debug >= 50:
        options['echo'] = True
    if url.get_backend_name() == 'sqlite':
        options['connect_args'] = {'check_same_thread': False}
        if url.database in (None, '', ':memory:'):
            # One shared connection, or every checkout sees a new empty db.
            options['poolclass'] = sa.pool.StaticPool
        return options
    options['pool_recycle'] = db_conf.connection_recycle_time
    if db_conf.max_pool_size is not None:
        options['pool_size'] = db_conf.max_pool_size
    if db_conf.max_overflow is not None:
        options['max_overflow'] = db_conf.max_overflow
    if db_conf.pool_timeout is not None:
        options['pool_timeout'] = db_conf.pool_timeout
    return options


def _setup_sqlite(engine, synchronous):
    """Let SQLite run real transactions, and writers take the lock first.

    pysqlite's own transaction handling is switched off so that we emit
    BEGIN ourselves: ``BEGIN IMMEDIATE`` for writers, which serialises
    writers up front instead of failing on lock upgrade half-way through.
    """

    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute('PRAGMA foreign_keys=ON')
        cursor.execute('PRAGMA busy_timeout=30000')
        if engine.url.database not in (None, '', ':memory:'):
            cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute(
            'PRAGMA synchronous=%s' % ('FULL' if synchronous else 'OFF'))
        cursor.close()

    @event.listens_for(engine, 'begin')
    def _on_begin(conn):
        mode = conn.get_execution_options().get('sqlite_begin', '')
        conn.exec_driver_sql(f'BEGIN {mode}'.strip())


def _setup_mysql(engine, sql_mode):
    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        cursor.execute('SET SESSION sql_mode = %s', [sql_mode])
        cursor.close()


def _setup_trace(engine):
    """Add the calling Placement frame to each statement as a comment."""

    @event.listens_for(engine, 'before_cursor_execute', retval=True)
    def _add_trace(_conn, _cursor, statement, parameters, _context, _many):
        frames = [frame for frame in traceback.extract_stack()
                  if '/placement/' in frame.filename
                  and '/placement/db/api.py' not in frame.filename]
        if frames:
            frame = frames[-1]
            statement += (f' -- {frame.filename}:{frame.lineno} '
                          f'{frame.name}')
        return statement, parameters


def create_engine(db_conf):
    """An engine for the ``[placement_database]`` options ``db_conf``."""
    url = _connection_url(db_conf)
    engine = sa.create_engine(url, **_engine_options(url, db_conf))
    backend = url.get_backend_name()
    if backend == 'sqlite':
        _setup_sqlite(engine, db_conf.sqlite_synchronous)
    elif backend == 'mysql' and db_conf.mysql_sql_mode:
        _setup_mysql(engine, db_conf.mysql_sql_mode)
    if db_conf.connection_trace:
        _setup_trace(engine)
    return engine


class Database:
    """The engine plus the two kinds of transaction the service runs."""

    def __init__(self, db_conf):
        self.engine = create_engine(db_conf)
        self.backend = self.engine.url.get_backend_name()

    @contextlib.contextmanager
    def reader(self):
        """A read-only transaction."""
        with self.engine.connect() as conn, conn.begin():
            yield conn

    @contextlib.contextmanager
    def writer(self, read_committed=False):
        """A read-write transaction, committed when the block succeeds.

        ``read_committed``: each statement reads what has committed before
        it, not the snapshot of the transaction's first read, and locking
        reads take no gap locks, unlike MySQL's default REPEATABLE READ.
        It is PostgreSQL's default; SQLite runs one writer at a time.
        """
        with self.engine.connect() as conn:
            if self.backend == 'sqlite':
                conn = conn.execution_options(sqlite_begin='IMMEDIATE')
            elif read_committed:
                conn = conn.execution_options(
                    isolation_level='READ COMMITTED')
            with conn.begin():
                yield conn

    def wait_until_reachable(self, max_retries, retry_interval):
        """Connect once, retrying as ``[placement_database]`` allows.

        ``max_retries`` of -1 retries forever.
        """
        attempt = 0
        while True:
            try:
                with self.engine.connect():
                    return
            except sa.exc.OperationalError as exc:
                attempt += 1
                if 0 <= max_retries < attempt:
                    raise
                LOG.warning('Database not reachable (%s); retrying in %ss',
                            exc, retry_interval)
                time.sleep(retry_interval)

    def dispose(self):
        self.engine.dispose()
