"""Counting the round trips a request makes to the database."""

from sqlalchemy import event


class RoundTrips:
    """Records the round trips the engine makes while it is entered.

    ``statements``: the first word of each statement the service sends
    (not SQLite's BEGIN, which MySQL and PostgreSQL do not send as a
    statement of their own); ``commits``; ``pings`` of the pool (none:
    a stale connection is found by its first statement instead);
    ``isolation_changes``: the session isolation level set (on MySQL a
    SET and a COMMIT each, not seen as statements); ``rollbacks``, of
    the driver's connection, a ROLLBACK on MySQL (none after a
    transaction that committed: the pool does not reset a connection
    returned to it); ``begins``: the BEGINs psycopg2 sent before a
    statement (PostgreSQL only; none for a statement run without a
    transaction, whose COMMIT psycopg2 skips too); ``streamed``: the
    statements run on a server-side cursor (``stream_results``: on
    PostgreSQL each a DECLARE, FETCHes and a CLOSE, not seen as
    statements).
    """

    def __init__(self, engine):
        self.engine = engine
        self.statements = []
        self.commits = 0
        self.pings = 0
        self.isolation_changes = 0
        self.rollbacks = 0
        self.begins = 0
        self.streamed = 0
        self._idle = False

    @property
    def executed(self):
        """How many statements ran: those of :attr:`statements` but the
        PREPAREs (a statement prepared runs as its EXECUTE)."""
        return sum(word != 'PREPARE' for word in self.statements)

    def _statement(self, _conn, cursor, statement, _parameters, context,
                   _many):
        if not statement.startswith('BEGIN'):
            self.statements.append(statement.split()[0])
            self.streamed += bool(
                context.execution_options.get('stream_results'))
        self._idle = _idle(cursor)

    def _executed(self, _conn, cursor, *_args):
        if self._idle and not _idle(cursor):
            self.begins += 1

    def _commit(self, _conn):
        self.commits += 1

    def __enter__(self):
        event.listen(self.engine, 'before_cursor_execute', self._statement)
        event.listen(self.engine, 'after_cursor_execute', self._executed)
        event.listen(self.engine, 'commit', self._commit)
        ping = self._ping = self.engine.dialect.do_ping

        def counted_ping(dbapi_connection):
            self.pings += 1
            return ping(dbapi_connection)
        self.engine.dialect.do_ping = counted_ping
        set_level = self._set_level = self.engine.dialect.set_isolation_level

        def counted_set_level(dbapi_connection, level):
            self.isolation_changes += 1
            return set_level(dbapi_connection, level)
        self.engine.dialect.set_isolation_level = counted_set_level
        rollback = self._rollback = self.engine.dialect.do_rollback

        def counted_rollback(dbapi_connection):
            self.rollbacks += 1
            return rollback(dbapi_connection)
        self.engine.dialect.do_rollback = counted_rollback
        return self

    def __exit__(self, *exc_info):
        event.remove(self.engine, 'before_cursor_execute', self._statement)
        event.remove(self.engine, 'after_cursor_execute', self._executed)
        event.remove(self.engine, 'commit', self._commit)
        self.engine.dialect.do_ping = self._ping
        self.engine.dialect.set_isolation_level = self._set_level
        self.engine.dialect.do_rollback = self._rollback


def _idle(cursor):
    """Whether psycopg2's connection of ``cursor`` is outside a
    transaction (False on other drivers)."""
    info = getattr(cursor.connection, 'info', None)
    status = getattr(info, 'transaction_status', None)
    return status is not None and status == _PSYCOPG2_IDLE


#: psycopg2.extensions.TRANSACTION_STATUS_IDLE (libpq's PQTRANS_IDLE).
_PSYCOPG2_IDLE = 0
