"""The ``[placement_database]`` group."""

from oslo_config import cfg

from placement.conf import groups

placement_db_group = cfg.OptGroup(
    'placement_database', title='Placement API database options',
    help="""
The *Placement API Database* is the database used with the placement
service. If the connection option is not set, the placement service will
not start.
""")

placement_db_opts = [
    cfg.StrOpt(
        'connection',
        secret=True,
        help='The SQLAlchemy connection string to use to connect to the '
             'database.'),
    cfg.StrOpt(
        'connection_parameters',
        default='',
        help='Optional URL parameters to append onto the connection URL at '
             'connect time; specify as param1=value1&param2=value2&...'),
    cfg.BoolOpt(
        'sqlite_synchronous',
        default=True,
        help='If True, SQLite uses synchronous mode.'),
    cfg.StrOpt(
        'slave_connection',
        secret=True,
        help='The SQLAlchemy connection string to use to connect to the '
             'slave database. When set, the read-only requests (GET) '
             'read from it; every write, and every read a write makes, '
             'goes to ``connection``. A client reads its own writes only '
             'if the replica is synchronous (a Galera node with '
             '``wsrep_sync_wait``); with asynchronous replication a GET '
             'after a write may see the data as it was, which makes '
             'clients that cache generations retry. Unset: reads go to '
             '``connection`` too.'),
    cfg.StrOpt(
        'mysql_sql_mode',
        default='TRADITIONAL',
        help='The SQL mode to be used for MySQL sessions. This option, '
             'including the default, overrides any server-set SQL mode. To '
             'use whatever SQL mode is set by the server configuration, set '
             'this to no value. Example: mysql_sql_mode='),
    cfg.IntOpt(
        'connection_recycle_time',
        default=3600,
        help='Connections which have been present in the connection pool '
             'longer than this number of seconds will be replaced with a '
             'new one the next time they are checked out from the pool.'),
    cfg.IntOpt(
        'max_pool_size',
        help='Maximum number of SQL connections to keep open in a pool. '
             'Setting a value of 0 indicates no limit. Unset: '
             'placement-api\'s --threads per worker, else SQLAlchemy\'s '
             'default of 5 per process (not used with SQLite).'),
    cfg.IntOpt(
        'max_retries',
        default=10,
        help='Maximum number of database connection retries during startup. '
             'Set to -1 to specify an infinite retry count. Only a '
             'database that does not answer (connection refused, timed '
             'out) is retried, each failed attempt logged with the host '
             'and port; one that refuses the connection for good (wrong '
             'credentials, unknown database, unreadable or read-only '
             'SQLite file) stops the service and the commands at once. '
             'placement-status tries once.'),
    cfg.IntOpt(
        'retry_interval',
        default=10,
        help='Interval between retries of opening a SQL connection, in '
             'seconds.'),
    cfg.IntOpt(
        'max_overflow',
        help='If set, use this value for max_overflow with SQLAlchemy: '
             'how many connections may be opened beyond max_pool_size '
             'when all pooled ones are in use (default 10).'),
    cfg.IntOpt(
        'connection_debug',
        default=0,
        min=0, max=100,
        help='Verbosity of SQL debugging information: 0=None, '
             '100=Everything.'),
    cfg.BoolOpt(
        'connection_trace',
        default=False,
        help='Add Python stack traces to SQL as comment strings.'),
    cfg.IntOpt(
        'pool_timeout',
        help='If set, use this value for pool_timeout with SQLAlchemy: '
             'seconds a request waits for a free connection (default '
             '30) before it is answered 503 Service Unavailable.'),
    cfg.IntOpt(
        'lock_wait_timeout',
        default=10,
        min=1,
        help='Seconds a statement waits for a row lock held by another '
             'transaction before the database gives up its transaction '
             '(MySQL/MariaDB ``innodb_lock_wait_timeout``, PostgreSQL '
             '``lock_timeout``, SQLite ``busy_timeout``, set per '
             'session). The transaction is then run again, and no new '
             'attempt starts later than 1.5 times this after the first: '
             'a write stuck behind a lock holder is answered 409 '
             'placement.concurrent_update within about twice this time, '
             'not after a stall of minutes.'),
    cfg.IntOpt(
        'statement_timeout',
        default=0,
        min=0,
        help='Seconds a single statement may run before the database '
             'cancels it (PostgreSQL ``statement_timeout``, MariaDB '
             '``max_statement_time``; not applied on MySQL and SQLite); '
             'the request is answered 503 Service Unavailable. 0: no '
             'limit.'),
    cfg.BoolOpt(
        'prepared_statements',
        default=True,
        # Its name when it prepared on PostgreSQL alone.
        deprecated_name='postgresql_prepared_statements',
        help='On PostgreSQL and MariaDB/MySQL, prepare the statements '
             'the service runs again and again with the same values '
             '(those it keeps built: the candidate search\'s look-up, '
             'narrowing and small tree loads, a provider listing\'s '
             'look-up of names) once per connection (``PREPARE``), and '
             'run them with ``EXECUTE``: the database then parses '
             'them (PostgreSQL: and plans them) once per connection, '
             'not at every request. A connection keeps the last 32 '
             '(each holds up to about 0.5 MB of the server\'s memory). '
             'On MariaDB/MySQL, once the server holds '
             '``max_prepared_stmt_count`` statements a connection runs '
             'the rest as text. Turn it off behind a pooler or proxy '
             'that hands one client\'s statements to several server '
             'connections (PgBouncer\'s transaction or statement '
             'pooling, ProxySQL\'s multiplexing), where a statement '
             'prepared on one server connection is not there on the '
             'next.'),
    cfg.IntOpt(
        'transaction_retry_count',
        default=5,
        min=0,
        help='How often a transaction is run again, in a fresh '
             'transaction after a short random pause, when the database '
             'gave it up (deadlock, lock wait timeout, Galera '
             'certification failure) or its connection was lost before '
             'it committed. When they run out: 409 '
             'placement.concurrent_update for contention, 503 Service '
             'Unavailable for an unreachable database.'),
    cfg.BoolOpt(
        'sync_on_startup',
        default=False,
        help='If True, database schema migrations will be attempted when the '
             'web service starts.'),
]


def register_opts(conf):
    groups.register(conf, placement_db_group, placement_db_opts)


def list_opts():
    return {placement_db_group: placement_db_opts}
