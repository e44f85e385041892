"""The database engine and the transactions the object layer runs in."""

import collections
import contextlib
import itertools
import logging
import operator
import random
import re
import time
import traceback
import weakref

import sqlalchemy as sa
from sqlalchemy import event

from placement import exception
from placement import fatal
from placement import timing
from placement.db import failures
from placement.metrics import database as metrics

LOG = logging.getLogger(__name__)


class DatabaseNotConfigured(fatal.ConfigurationError):
    """``[placement_database] connection`` is not set."""


class DatabaseMisconfigured(fatal.ConfigurationError):
    """The database an option names cannot be used as it is configured.

    The message names the option, the URL with its password masked, and
    the cause.
    """

    def __init__(self, option, target, cause):
        super().__init__(f'[placement_database] {option} = {target}: '
                         f'{cause}')


#: What the refusals of a missing or malformed connection give as example.
_EXAMPLE_URL = 'mysql+pymysql://placement:PASSWORD@controller/placement'

# The user:password@ of a URL that SQLAlchemy could not parse.
_CREDENTIALS = re.compile(r'(//[^:/@]*):[^@]*@')


def _masked(connection):
    """The URL text ``connection`` with its password replaced by ``***``,
    as configured otherwise (SQLAlchemy would escape paths)."""
    masked = _CREDENTIALS.sub(r'\1:***@', connection, count=1)
    try:
        url = sa.engine.make_url(connection)
    except (sa.exc.ArgumentError, ValueError):
        return masked
    if url.password is None or masked != connection:
        return masked
    return url.render_as_string(hide_password=True)


def _connection_url(db_conf, option):
    connection = getattr(db_conf, option)
    if not connection:
        # The README's first command (placement-api --dev) says nothing
        # of a database: whoever runs another one is told of both ways.
        raise DatabaseNotConfigured(
            f'The [placement_database] connection option is not set; the '
            f'placement service cannot start without a database: set it '
            f'in placement.conf (e.g. connection = {_EXAMPLE_URL}), or run '
            f'placement-api --dev to try the service on an embedded '
            f'SQLite database.')
    try:
        url = sa.engine.make_url(connection)
    except (sa.exc.ArgumentError, ValueError):
        raise DatabaseMisconfigured(
            option, _masked(connection),
            'not a database URL (dialect+driver://user:password@host:port/'
            f'database, e.g. {_EXAMPLE_URL})') from None
    if db_conf.connection_parameters:
        try:
            params = dict(
                pair.split('=', 1)
                for pair in db_conf.connection_parameters.split('&') if pair)
        except ValueError:
            raise fatal.ConfigurationError(
                f'[placement_database] connection_parameters = '
                f'{db_conf.connection_parameters}: not of the form '
                f'param1=value1&param2=value2') from None
        url = url.update_query_dict(params)
    return url


def _engine_options(url, db_conf):
    # No pre-ping (a round trip before every transaction): a pooled
    # connection that broke while the database was away fails its first
    # statement instead, and Database._run runs the transaction again.
    # No reset (a ROLLBACK, a round trip on MySQL) when a connection
    # returns to the pool: every use ends its transaction (_transaction
    # commits or rolls back, a Connection rolls back what it began when
    # it closes), so the reset would only ever roll back nothing.
    options = {'pool_reset_on_return': None}
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
    if (url.get_backend_name() in _PREPARE
            and db_conf.prepared_statements):
        options['execution_options'] = {_PREPARES: True}
    if db_conf.max_pool_size is not None:
        options['pool_size'] = db_conf.max_pool_size
    if db_conf.max_overflow is not None:
        options['max_overflow'] = db_conf.max_overflow
    if db_conf.pool_timeout is not None:
        options['pool_timeout'] = db_conf.pool_timeout
    return options


def _on_connect(engine, statements):
    """Run ``statements(dbapi_connection)`` on every new connection.

    Each is a ``(statement, parameters)`` pair. The commit keeps session
    settings made inside a driver's implicit transaction (psycopg2) from
    being rolled back with it.
    """

    @event.listens_for(engine, 'connect')
    def _run(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        for statement, parameters in statements(dbapi_connection):
            cursor.execute(statement, parameters)
        cursor.close()
        dbapi_connection.commit()


def _setup_sqlite(engine, db_conf):
    """Let SQLite run real transactions, and writers take the lock first.

    pysqlite's own transaction handling is switched off so that we emit
    BEGIN ourselves: ``BEGIN IMMEDIATE`` for writers, which serialises
    writers up front instead of failing on lock upgrade half-way through.
    A writer waits ``lock_wait_timeout`` for the lock, then is busy.
    """

    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute('PRAGMA foreign_keys=ON')
        cursor.execute(
            f'PRAGMA busy_timeout={db_conf.lock_wait_timeout * 1000}')
        if engine.url.database not in (None, '', ':memory:'):
            cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA synchronous=%s' % (
            'FULL' if db_conf.sqlite_synchronous else 'OFF'))
        cursor.close()

    @event.listens_for(engine, 'begin')
    def _on_begin(conn):
        mode = conn.get_execution_options().get('sqlite_begin', '')
        conn.exec_driver_sql(f'BEGIN {mode}'.strip())


_GROUP_CONCAT_MAX = 16 * 1024 * 1024


def _setup_mysql(engine, db_conf):
    """SQL mode, and the waits of the session's locks and statements.

    ``max_statement_time`` is MariaDB's: MySQL has no such limit for
    writes, and the statement limit is not applied there.
    """

    def statements(dbapi_connection):
        yield ('SET SESSION innodb_lock_wait_timeout = %s',
               [db_conf.lock_wait_timeout])
        # The candidate search folds a provider's inventories and traits,
        # and the roots a sharing provider serves, into one string
        # (GROUP_CONCAT); MySQL cuts it at 1,024 bytes by default
        # (MariaDB at 1 MB); 16 MB holds the ids of two million roots.
        yield 'SET SESSION group_concat_max_len = %s', [_GROUP_CONCAT_MAX]
        if db_conf.mysql_sql_mode:
            yield 'SET SESSION sql_mode = %s', [db_conf.mysql_sql_mode]
        if (db_conf.statement_timeout
                and 'MariaDB' in dbapi_connection.get_server_info()):
            yield ('SET SESSION max_statement_time = %s',
                   [db_conf.statement_timeout])

    _on_connect(engine, statements)

    @event.listens_for(engine, 'before_cursor_execute', retval=True)
    def _set_statement(conn, _cursor, statement, parameters, context,
                       _many):
        settings = context.execution_options.get(_MARIADB_SETTINGS)
        if settings and conn.dialect.is_mariadb:
            statement = 'SET STATEMENT {} FOR {}'.format(
                ', '.join(f'{name}={value}'
                          for name, value in settings.items()), statement)
        return statement, parameters

    @event.listens_for(engine, 'begin')
    def _on_begin(conn):
        # The level of this transaction only: SQLAlchemy's
        # isolation_level option would set the session's, and set it
        # back when the connection returns to the pool, each time with
        # a COMMIT of its own (four round trips more a transaction).
        if conn.get_execution_options().get(_MYSQL_READ_COMMITTED):
            conn.exec_driver_sql(
                'SET TRANSACTION ISOLATION LEVEL READ COMMITTED')


#: The execution option of a MySQL transaction at READ COMMITTED.
_MYSQL_READ_COMMITTED = 'placement_read_committed'
#: The execution option of :func:`on_mariadb`.
_MARIADB_SETTINGS = 'placement_mariadb_settings'


def on_mariadb(statement, settings):
    """``statement``, run on MariaDB with ``settings`` (``{server
    variable: SQL literal}``) for that statement alone (``SET STATEMENT
    ... FOR``: no round trip more, nothing left on the session); as it
    is on the other databases (MySQL has no such statement)."""
    return statement.execution_options(**{_MARIADB_SETTINGS: settings})


def in_written_order(select):
    """``select`` joining its tables in the order written on MySQL and
    MariaDB (``SELECT STRAIGHT_JOIN``), for a statement that reads every
    row of its first table, where their optimizer would rather start
    from another and look the first up per row; as it is elsewhere."""
    return (select.prefix_with('STRAIGHT_JOIN', dialect='mysql')
            .prefix_with('STRAIGHT_JOIN', dialect='mariadb'))


def _setup_postgresql(engine, db_conf):
    """The waits of the session's locks and statements, in milliseconds,
    and no JIT compilation.

    The planner's estimate of a query with correlated subqueries over a
    thousand trees passes ``jit_above_cost`` easily, and compiling it
    then takes a second or more for a query that runs in milliseconds.
    """
    settings = [
        ('SET lock_timeout = %s', [db_conf.lock_wait_timeout * 1000]),
        ('SET statement_timeout = %s', [db_conf.statement_timeout * 1000]),
        ('SET jit = off', []),
    ]
    _on_connect(engine, lambda _dbapi_connection: settings)

    @event.listens_for(engine, 'begin')
    def _on_begin(conn):
        # A read_committed read runs without a transaction. psycopg2's
        # autocommit is a flag of the client: setting it sends nothing
        # (SQLAlchemy's AUTOCOMMIT isolation level would send a SET when
        # it is reset), and psycopg2 then sends neither BEGIN nor
        # COMMIT. Not on a connection in a transaction already (left
        # open by another 'connect' listener): psycopg2 refuses to
        # switch it, and the read goes on in that transaction.
        dbapi_connection = conn.connection.dbapi_connection
        if (conn.get_execution_options().get(_COMMITTED_READ)
                and dbapi_connection.info.transaction_status
                == _PQTRANS_IDLE):
            dbapi_connection.autocommit = True

    @event.listens_for(engine, 'set_connection_execution_options')
    def _on_options(conn, options):
        # A server-side cursor (streamed) lives in a transaction:
        # psycopg2 switched back sends BEGIN before its DECLARE, and the
        # read's COMMIT ends it. The statements before it were read
        # without one, each in a snapshot of its own, as in a
        # transaction at READ COMMITTED.
        if options.get('stream_results'):
            dbapi_connection = conn.connection.dbapi_connection
            if dbapi_connection.autocommit:
                dbapi_connection.autocommit = False

    driver_error = engine.dialect.dbapi.Error

    @event.listens_for(engine, 'checkin')
    def _on_checkin(dbapi_connection, record):
        # Every connection returns to the pool as it was: the next
        # transaction on it is one. (A closed one raises on any use: its
        # next use finds it broken, and its replacement starts anew.)
        # One the server ended since its last statement (terminated,
        # restarted) fails the switch: it is dropped, and the pool opens
        # a new one for its next use; an error raised here would stop
        # the connection's return to the pool, and the request that had
        # finished with it would fail.
        if (dbapi_connection is not None and not dbapi_connection.closed
                and dbapi_connection.autocommit):
            try:
                dbapi_connection.autocommit = False
            except driver_error as exc:
                record.invalidate(exc)


#: libpq's transaction status of a connection outside a transaction
#: (psycopg2.extensions.TRANSACTION_STATUS_IDLE; psycopg2 is not a
#: requirement of the service).
_PQTRANS_IDLE = 0


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


_SETUP = {'sqlite': _setup_sqlite, 'mysql': _setup_mysql,
          'postgresql': _setup_postgresql}


def create_engine(db_conf, option='connection'):
    """An engine for the ``[placement_database]`` options ``db_conf``.

    On the database that ``option`` (``connection`` or
    ``slave_connection``) names. A URL that cannot be parsed, an unknown
    dialect or a driver that is not installed is DatabaseMisconfigured.
    """
    url = _connection_url(db_conf, option)
    target = _masked(getattr(db_conf, option))
    try:
        engine = sa.create_engine(url, **_engine_options(url, db_conf))
    except sa.exc.NoSuchModuleError:
        raise DatabaseMisconfigured(
            option, target,
            f'unknown database dialect or driver "{url.drivername}" (use '
            f'mysql+pymysql, postgresql+psycopg2 or sqlite)') from None
    except ImportError as exc:
        raise DatabaseMisconfigured(
            option, target,
            f'the driver of "{url.drivername}" is not installed '
            f'({exc})') from None
    setup = _SETUP.get(url.get_backend_name())
    if setup is not None:
        setup(engine, db_conf)
    _quiet_cursor_close(engine.pool)
    _replace_alone(engine)
    if db_conf.connection_trace:
        _setup_trace(engine)
    return engine


def _replace_alone(engine):
    """A connection that broke is replaced alone: SQLAlchemy discarded
    every connection of the pool opened before it (whose next use then
    opened a new one and prepared its statements again). Under an
    operator's KILL CONNECTION every 0.15 s a worker's pool was reopened
    over and over, and the slowest tenth of the requests took up to
    1.3 s. After a server restart each broken connection is met by one
    statement that fails at once, and run again (:class:`Database`)."""

    @event.listens_for(engine, 'handle_error')
    def _only_this_one(context):
        context.invalidate_pool_on_disconnect = False


class _CursorCloseFilter(logging.Filter):
    """Drops SQLAlchemy's "Error closing cursor" of a lost connection.

    SQLAlchemy closes the cursor of a finished or failed result and logs
    a failure to do so as an ERROR with its traceback: a PostgreSQL
    server-side cursor sends CLOSE, which meets a connection the server
    ended. The lost connection is met again by the transaction's next
    statement or COMMIT, and handled there (run again, or a 503 logged
    once); the traceback is noise. Any other failure to close is kept.
    """

    def filter(self, record):
        return not (record.msg == 'Error closing cursor' and record.exc_info
                    and failures.lost_connection(record.exc_info[1]))


_CURSOR_CLOSE_FILTER = _CursorCloseFilter()


def _quiet_cursor_close(pool):
    # The pool's logger (an echoing pool's wraps it): one per pool class,
    # so added once.
    logger = getattr(pool.logger, 'logger', pool.logger)
    if _CURSOR_CLOSE_FILTER not in logger.filters:
        logger.addFilter(_CURSOR_CLOSE_FILTER)


#: Seconds a health probe waits for a connection to open.
_PROBE_CONNECT_TIMEOUT = 5


def probe_engine(db_conf):
    """An engine without a pool, for health probes: each probe opens a
    connection of its own (within a few seconds), so that it tells
    whether the database answers now, whatever the service's pool holds.
    """
    url = _connection_url(db_conf, 'connection')
    backend = url.get_backend_name()
    connect_args = ({'check_same_thread': False} if backend == 'sqlite'
                    else {'connect_timeout': _PROBE_CONNECT_TIMEOUT})
    return sa.create_engine(url, poolclass=sa.pool.NullPool,
                            connect_args=connect_args)


#: Rows read at a time from a streamed result (a FETCH of a
#: PostgreSQL cursor), and the rows of a listing's first page
#: (:func:`pages`): SQLAlchemy's largest buffer of a streamed result.
BATCH = 1000


def streamed(conn, statement, parameters=None):
    """The rows of ``statement`` (with its bound ``parameters``) as the
    database sends them, :data:`BATCH` at a time: a driver that buffers
    a result (psycopg2's libpq, PyMySQL) holds all of it besides what is
    made of it, which for 100,000 providers is tens of MB. Read them all
    before the next statement."""
    return timing.fetched(_batches(
        conn.execution_options(stream_results=True)
        .execute(statement, parameters)))


def _batches(result):
    """The rows of ``result`` in lists of :data:`BATCH`, the last one
    short: nothing is fetched after it (a short batch is the end of the
    cursor; SQLAlchemy's own batches end with an empty FETCH)."""
    with result:
        while True:
            rows = result.fetchmany(BATCH)
            if rows:
                yield rows
            if len(rows) < BATCH:
                return


#: The statements of a listing read by :func:`paged`: its first page,
#: the rest after a key, and the whole.
Pages = collections.namedtuple('Pages', 'first rest whole')


def pages(listing, key):
    """The :class:`Pages` of a listing by ``key``, a unique column
    (``listing`` is ordered by it and selects it first, or its greatest
    value in the rows of a group): its first :data:`BATCH` + 1 rows,
    the rows after a key (bound parameter ``after``), and all."""
    return Pages(listing.limit(BATCH + 1),
                 listing.where(key > sa.bindparam('after')), listing)


def paged(conn, listing, parameters, run_first):
    """The rows of ``listing`` (:func:`pages`, with its bound
    ``parameters``) without their key (the first column): those of its
    first page, the result of ``run_first()`` (a statement kept built:
    prepared on PostgreSQL), then, only when that came back full, the
    rest after its last key, :func:`streamed`.

    A listing of a few rows, the scheduler's, is then one statement
    without a cursor: on PostgreSQL a cursor cost DECLARE, three FETCHes
    and CLOSE, five round trips more, and the statement's parse and
    plan at each request (DECLARE takes no EXECUTE): 1.6 ms of the
    backend's CPU for a listing of 100 providers, 0.4 prepared. The
    page and the rest evaluate the listing's conditions twice, though
    (the capacity of every provider for ``resources``: 4.5 ms more of
    PostgreSQL's CPU for 2,000): a listing that went past its first
    page last time is read whole on a cursor, as before (and on a page
    again once it was short). Memory stays bounded by a batch. The rest
    is read in a snapshot of its own (a statement's, as every one's at
    READ COMMITTED): each row is listed once, in key order, as it was
    at one moment of the read.
    """
    if listing.first in _LONG:
        return _whole(conn, listing, parameters)
    rows = run_first().fetchall()
    if len(rows) <= BATCH:
        return map(_WITHOUT_KEY, rows)
    _LONG.add(listing.first)
    return itertools.chain(
        map(_WITHOUT_KEY, rows[:BATCH]),
        _rest(conn, listing.rest, {**parameters,
                                   'after': rows[BATCH - 1][0]}))


def _rest(conn, rest, parameters):
    """The rows of :func:`paged`'s ``rest``, run once they are asked
    for (after the first page)."""
    yield from map(_WITHOUT_KEY, streamed(conn, rest, parameters))


def _whole(conn, listing, parameters):
    """The rows of :func:`paged`'s ``listing``, whole, on a cursor."""
    rows = streamed(conn, listing.whole, parameters)
    first = list(itertools.islice(rows, BATCH + 1))
    if len(first) <= BATCH:
        _LONG.discard(listing.first)
    yield from map(_WITHOUT_KEY, first)
    yield from map(_WITHOUT_KEY, rows)


#: The first pages (:func:`pages`) of the listings whose last read went
#: past them, weakly (a listing's statements go with it).
_LONG = weakref.WeakSet()

#: A row of a listing of :func:`pages` without its key.
_WITHOUT_KEY = operator.itemgetter(slice(1, None))


def repeated(conn, name, sql, parameters):
    """The result of driver SQL ``sql`` with ``parameters``, a statement
    run again and again with the same text and values (a statement kept
    built, :func:`placement.objects.kept.execute`), named ``name``.

    On PostgreSQL and MariaDB/MySQL (``[placement_database]
    prepared_statements``) it is prepared once per connection and then
    executed: the server no longer parses it (and PostgreSQL no longer
    plans it) at every request: half of PostgreSQL's CPU for the
    candidates' look-up and narrowing statements; on MariaDB, which
    optimises a prepared statement again at each ``EXECUTE``, the
    parse, 0.5 of the 3.9 ms of its CPU for a candidates request's
    three statements (``tools/results/2026-11-30-mariaprep.rst``).
    The values are written into the prepared text (:data:`_PREPARE`),
    so that there are no parameters and its plan is what the statement
    gets when sent as text; PostgreSQL plans it again by itself when a
    table's statistics or definition change. PREPARE is not undone by a
    rollback; a connection opened anew (the old one lost) has nothing
    prepared (SQLAlchemy clears ``info``). A connection keeps the last
    :data:`MOST_PREPARED`. A MariaDB/MySQL server that holds
    ``max_prepared_stmt_count`` statements (of all its sessions)
    refuses more: the statement then runs as text, and so does every
    statement the connection has not prepared, until it is replaced.
    """
    if not conn.get_execution_options().get(_PREPARES):
        return conn.exec_driver_sql(sql, parameters)
    prepared = conn.info.setdefault(_PREPARES, collections.OrderedDict())
    if name in prepared:
        prepared.move_to_end(name)
    elif (conn.info.get(_REFUSED)
          or not _prepared(conn, prepared, name, sql, parameters)):
        return conn.exec_driver_sql(sql, parameters)
    return conn.exec_driver_sql(f'EXECUTE {name}')


def _prepared(conn, prepared, name, sql, parameters):
    """Whether ``sql`` is now prepared as ``name`` on ``conn``, noted in
    ``prepared`` (its names, in the order of their last use) with the
    least used dropped; False if the server refused it."""
    if len(prepared) >= MOST_PREPARED:
        oldest = next(iter(prepared))
        conn.exec_driver_sql(f'DEALLOCATE PREPARE {oldest}')
        del prepared[oldest]
    try:
        _PREPARE[conn.dialect.name](conn, name, sql, parameters)
    except sa.exc.DBAPIError as exc:
        if not failures.prepared_statements_full(exc):
            raise
        # A failed statement leaves a MariaDB/MySQL transaction as it
        # was: the read goes on.
        LOG.warning('The database server holds as many prepared '
                    'statements as it allows (max_prepared_stmt_count): '
                    'this connection runs the statements it has not '
                    'prepared as text until it is replaced.')
        conn.info[_REFUSED] = True
        return False
    prepared[name] = None
    return True


def _prepare_postgresql(conn, name, sql, parameters):
    conn.exec_driver_sql(f'PREPARE {name} AS {sql}', parameters)


def _prepare_mysql(conn, name, sql, parameters):
    # The text PyMySQL would send for sql and parameters, its values
    # escaped and written in: Cursor.mogrify is public PyMySQL API
    # (documented "the exact string that would be sent to the database
    # by calling the execute() method"); PyMySQL has no prepare of the
    # binary protocol, and SQL PREPARE takes the statement's text as a
    # string literal.
    with conn.connection.dbapi_connection.cursor() as cursor:
        text = cursor.mogrify(sql, parameters)
    conn.exec_driver_sql(f'PREPARE {name} FROM %s', (text,))


#: How each database prepares a statement (:func:`repeated`).
_PREPARE = {'postgresql': _prepare_postgresql, 'mysql': _prepare_mysql}

#: The statements a connection keeps prepared (the last used): a plan of
#: the candidates' look-up or narrowing holds 0.3-0.55 MB of a
#: PostgreSQL server process's memory, its parse 0.16-0.36 MB of a
#: MariaDB session's.
MOST_PREPARED = 32

#: The execution option of an engine whose repeated statements are
#: prepared (:func:`repeated`), and the key of a connection's ``info``
#: of the names it prepared (an ordered dict, oldest use first).
_PREPARES = 'placement_prepares'
#: The key of a connection's ``info`` that says its server refused to
#: prepare more.
_REFUSED = 'placement_prepares_refused'


def read_committed(operation):
    """Mark a read ``operation`` that is right when each of its
    statements reads what was committed before it (READ COMMITTED): one
    statement, or statements that stand alone (the look-up of the names
    a listing asks for, then the listing of their ids).

    :meth:`Database.read` runs it so on PostgreSQL
    (:func:`_setup_postgresql`): without a transaction, each statement
    in a snapshot of its own (as each statement of a transaction at
    READ COMMITTED, PostgreSQL's default), so no BEGIN and no COMMIT,
    two round trips, until it streams: a server-side cursor needs a
    transaction, opened before it. On MySQL it is any read: switching a
    connection to autocommit and back would cost a round trip each
    way, more than the COMMIT it spares.
    """
    setattr(operation, _COMMITTED_READ, True)
    return operation


#: The attribute of a :func:`read_committed` operation, and the
#: execution option of its connection.
_COMMITTED_READ = 'placement_committed_read'


class RetryTransaction(Exception):
    """Raised by an operation when what it read moved under it.

    The transaction is rolled back and the operation run again in a
    fresh one, which reads everything anew; the message is that of the
    409 ``placement.concurrent_update`` when the attempts run out.
    """


def _backoff(attempt):
    """A jittered, exponentially growing pause before ``attempt``."""
    return random.uniform(0, min(_MAX_BACKOFF, _BASE_BACKOFF * 2 ** attempt))


# Seconds: the first pause is at most 20 ms, no pause more than half a
# second, so that colliding writers spread out without stalling.
_BASE_BACKOFF = 0.01
_MAX_BACKOFF = 0.5


class Database:
    """The engines, and the one way the object layer uses them.

    Every transaction is run by :meth:`read` or :meth:`write`, which
    commit it, and run it again in a fresh transaction when the database
    gave it up (deadlock, lock wait timeout, Galera certification
    failure), when its connection broke before COMMIT, or when the
    operation raised :class:`RetryTransaction`. The attempts are bounded
    in number (``[placement_database] transaction_retry_count``, and the
    caller's count for RetryTransaction) and in time (none starts
    later than 1.5 times ``lock_wait_timeout`` after the first, so that a
    write stuck behind a lock holder is answered within about twice
    that). When they run out, contention is a
    ConcurrentUpdate (409) and an unreachable database
    DatabaseUnavailable (503). A transaction whose pooled connection
    broke is run again at once and not counted, as many times as the
    pool holds connections: it is how a connection that broke since its
    last use is found (in place of a ping before every transaction),
    and it alone is replaced (:func:`_replace_alone`). A connection
    lost during the COMMIT of a write is CommitOutcomeUnknown (503) at
    once: the write may have happened, so it is neither acknowledged
    nor run again (that of a read is run again as any lost connection).
    """

    def __init__(self, db_conf):
        self._db_conf = db_conf
        self.engine = create_engine(db_conf)
        self.backend = self.engine.url.get_backend_name()
        self.reader_engine = self.engine
        metrics.observe_pool(self.engine, 'primary')
        if db_conf.slave_connection:
            self.reader_engine = create_engine(db_conf, 'slave_connection')
            metrics.observe_pool(self.reader_engine, 'replica')
        self._retry_count = db_conf.transaction_retry_count
        # One attempt that waited out a lock is followed by one more.
        self._time_limit = 1.5 * db_conf.lock_wait_timeout

    def read(self, operation, *args, primary=False, **kwargs):
        """``operation(conn, *args, **kwargs)`` in a read transaction
        (none for a :func:`read_committed` one on PostgreSQL until it
        streams).

        On the ``slave_connection`` database when one is configured,
        unless ``primary``: a read that a write of the same request
        depends on must see what the client wrote before.
        """
        engine = self.engine if primary else self.reader_engine
        options = ({_COMMITTED_READ: True}
                   if getattr(operation, _COMMITTED_READ, False) else {})
        return self._run('read', engine, options, 0, operation, args,
                         kwargs)

    def write(self, operation, *args, read_committed=False,
              conflict_retries=0, **kwargs):
        """``operation(conn, *args, **kwargs)`` in a write transaction.

        ``conflict_retries``: how often a RetryTransaction is run again.
        ``read_committed``: see :meth:`writer`.
        """
        return self._run('write', self.engine,
                         self._write_options(read_committed),
                         conflict_retries, operation, args, kwargs)

    def reader(self):
        """One read transaction, as a context manager, never run again.

        For tools and tests; the service reads through :meth:`read`.
        """
        return _transaction(self.engine, {})

    def writer(self, read_committed=False):
        """One write transaction, as a context manager, never run again.

        For tools and tests; the service writes through :meth:`write`.
        ``read_committed``: each statement reads what has committed
        before it, not the snapshot of the transaction's first read, and
        locking reads take no gap locks, unlike MySQL's default
        REPEATABLE READ. It is PostgreSQL's default; SQLite runs one
        writer at a time.
        """
        return _transaction(self.engine, self._write_options(read_committed))

    def _write_options(self, read_committed):
        if self.backend == 'sqlite':
            return {'sqlite_begin': 'IMMEDIATE'}
        if not read_committed:
            return {}
        if self.backend == 'mysql':
            return {_MYSQL_READ_COMMITTED: True}
        return {'isolation_level': 'READ COMMITTED'}

    def _run(self, access, engine, options, conflict_retries, operation,
             args, kwargs):
        """Run the transaction, counting its outcome for the metrics."""
        try:
            result = self._attempts(access, engine, options,
                                    conflict_retries, operation, args,
                                    kwargs)
        except exception.ConcurrentUpdate:
            metrics.finished(access, metrics.CONFLICT)
            raise
        except failures.DatabaseUnavailable:
            metrics.finished(access, metrics.UNAVAILABLE)
            raise
        except Exception:
            metrics.finished(access, metrics.ROLLED_BACK)
            raise
        metrics.finished(access, metrics.COMMITTED)
        return result

    def _attempts(self, access, engine, options, conflict_retries,
                  operation, args, kwargs):
        deadline = time.monotonic() + self._time_limit
        conflicts = faults = broken = 0
        while True:
            try:
                with _transaction(engine, options,
                                  writes=access == 'write') as conn:
                    return operation(conn, *args, **kwargs)
            except RetryTransaction as exc:
                conflicts += 1
                if conflicts > conflict_retries:
                    raise exception.ConcurrentUpdate(str(exc)) from exc
                metrics.rerun(access, metrics.GENERATION_CONFLICT)
            except (sa.exc.DBAPIError, sa.exc.TimeoutError) as exc:
                failure = failures.classify(exc)
                if failure not in _RETRIED:
                    _raise_unavailable(failure, exc)
                    raise
                cause = failures.rerun_cause(exc, failure).value
                if (failures.pooled_connection_broke(exc)
                        and broken < _pooled(engine)):
                    broken += 1
                    metrics.rerun(access, cause)
                    continue
                faults += 1
                if faults > self._retry_count or (
                        time.monotonic() > deadline):
                    _raise_exhausted(failure, exc)
                metrics.rerun(access, cause)
            time.sleep(_backoff(conflicts + faults))

    def wait_until_reachable(self, max_retries, retry_interval,
                             writable=False):
        """Connect to each configured database, retrying as allowed.

        A refusal that no retry cures (credentials, unknown database, a
        file that cannot be opened, or written when ``writable``) is
        DatabaseMisconfigured at once. Otherwise each failed attempt is
        one warning naming the host and port, and after ``max_retries``
        retries (-1: forever) ``retry_interval`` seconds apart the
        database is DatabaseUnreachable.
        """
        engines = [(self.engine, 'connection', writable)]
        if self.reader_engine is not self.engine:
            engines.append((self.reader_engine, 'slave_connection', False))
        for engine, option, probe_write in engines:
            _wait_until_reachable(
                engine, option, _masked(getattr(self._db_conf, option)),
                probe_write, max_retries, retry_interval)

    def dispose(self):
        self.engine.dispose()
        self.reader_engine.dispose()


_RETRIED = (failures.Failure.CONTENTION, failures.Failure.DISCONNECTED)


def _pooled(engine):
    """The connections ``engine``'s pool holds, in use or not (at least
    1; 1 for a pool that does not say)."""
    pool = engine.pool
    if isinstance(pool, sa.pool.QueuePool):
        return max(pool.size() + pool.overflow(), 1)
    return 1


def connected(db_conf, writable=False, max_retries=None):
    """A Database that could be connected to, as ``db_conf``
    (``[placement_database]``) says; ``max_retries`` replaces its own.

    For the service's start and the commands: a FatalError says in one
    line why the database cannot be used.
    """
    db = Database(db_conf)
    db.wait_until_reachable(
        db_conf.max_retries if max_retries is None else max_retries,
        db_conf.retry_interval, writable=writable)
    return db

# Where a URL without a port connects.
_DEFAULT_PORTS = {'mysql': 3306, 'postgresql': 5432}


def _address(url):
    """``host:port`` of ``url``, or its socket or file."""
    if url.get_backend_name() == 'sqlite':
        return url.database or ':memory:'
    socket = url.query.get('unix_socket') or url.query.get('host')
    if socket:
        return socket
    port = url.port or _DEFAULT_PORTS.get(url.get_backend_name())
    return f'{url.host or "localhost"}:{port}'


def _wait_until_reachable(engine, option, target, probe_write, max_retries,
                          retry_interval):
    attempt = 0
    while True:
        attempt += 1
        try:
            with engine.connect() as conn:
                if probe_write and engine.url.get_backend_name() == 'sqlite':
                    _probe_sqlite_write(conn)
                return
        except (sa.exc.DBAPIError, TypeError) as exc:
            if failures.refuses_connection(exc):
                raise DatabaseMisconfigured(
                    option, target, failures.cause(exc)) from exc
            if 0 <= max_retries < attempt:
                raise fatal.DatabaseUnreachable(
                    f'[placement_database] {option} = {target}: not '
                    f'reachable at {_address(engine.url)} after {attempt} '
                    f'attempt{"s" if attempt > 1 else ""}: '
                    f'{failures.cause(exc)}') from exc
            cause = failures.cause(exc)
        # Logged outside the except block: oslo.log would append the
        # exception being handled to the line.
        of = '' if max_retries < 0 else f' of {max_retries + 1}'
        LOG.warning(
            'Database of [placement_database] %s not reachable at %s '
            '(attempt %s%s): %s; retrying in %ss', option,
            _address(engine.url), attempt, of, cause, retry_interval)
        time.sleep(retry_interval)


def _probe_sqlite_write(conn):
    """Write the file's header as it is: a read-only file fails here,
    not on the first write a client asks for.

    In a ``BEGIN IMMEDIATE`` transaction: another process writing (a
    worker starting at the same time) is waited for; a read first would
    fail at once on the upgrade to a write once the other committed.
    """
    conn.execution_options(sqlite_begin='IMMEDIATE')
    version = conn.exec_driver_sql('PRAGMA user_version').scalar()
    conn.exec_driver_sql(f'PRAGMA user_version = {int(version)}')


@contextlib.contextmanager
def _transaction(engine, options, writes=True):
    """A transaction: COMMIT when the block succeeds, else ROLLBACK.

    A connection lost during the COMMIT of one that ``writes`` is
    CommitOutcomeUnknown; of a read, it is the lost connection it is
    (run again as any): a read has nothing to lose.
    """
    with engine.connect() as conn:
        if options:
            conn = conn.execution_options(**options)
        transaction = conn.begin()
        try:
            yield conn
        except BaseException:
            _rollback(conn, transaction)
            raise
        try:
            transaction.commit()
        except sa.exc.DBAPIError as exc:
            if writes and (failures.classify(exc)
                           is failures.Failure.DISCONNECTED):
                raise failures.CommitOutcomeUnknown(
                    'The connection to the database was lost while '
                    'committing; the outcome is unknown.') from exc
            failures.failed_at_commit(exc)
            raise


def _rollback(conn, transaction):
    """Roll back; a connection that cannot even do that is dropped.

    The error that caused the rollback is the one to report.
    """
    try:
        transaction.rollback()
    except sa.exc.DBAPIError:
        conn.invalidate()


_NOT_RUN_AGAIN = {
    failures.Failure.TIMEOUT:
        'A database statement took longer than allowed or was cancelled.',
    failures.Failure.READ_ONLY: 'The database refuses writes.',
}


def _raise_unavailable(failure, exc):
    """DatabaseUnavailable for a failure that is not run again."""
    if failure in _NOT_RUN_AGAIN:
        raise failures.DatabaseUnavailable(
            _NOT_RUN_AGAIN[failure], failure) from exc


def _raise_exhausted(failure, exc):
    if failure is failures.Failure.CONTENTION:
        raise exception.ConcurrentUpdate(
            'Another process was changing the same data at the same time '
            'and kept it locked; retry.') from exc
    raise failures.DatabaseUnavailable(
        'The database is not reachable.', failure) from exc
