"""Statements kept built run as prepared statements on PostgreSQL and
MariaDB: each prepared once per connection (``PREPARE``) and executed
(``EXECUTE``), so that the server parses it once; on SQLite (and with
``prepared_statements`` off) they run from their SQL as text.
"""

import pytest
import sqlalchemy as sa

from placement.db import api as db_api
from placement.objects import kept
from placement.objects import trait
from tests import database
from tests.functional import round_trips
from tests.functional import sessions as db_sessions

pytestmark = pytest.mark.db

TRAITS = ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2']


def _statement(names):
    """A statement kept built, as the candidates' look-up is."""
    return kept.Kept(4).get(
        tuple(names), lambda: sa.select(trait.TRAIT.c.name).where(
            trait.TRAIT.c.name.in_(names)).order_by(trait.TRAIT.c.name),
        len(names))


def _run(conn, statement):
    return [name for name, in kept.execute(conn, statement)]


def _prepares(db):
    return db.backend in ('postgresql', 'mysql')


class _Prepares:
    """Records the texts the engine prepares while it is entered:
    ``{name: statement text}``."""

    def __init__(self, engine):
        self.engine = engine
        self.texts = {}

    def _statement(self, _conn, _cursor, statement, parameters, *_args):
        words = statement.split()
        if words[0] == 'PREPARE':
            # PostgreSQL's PREPARE name AS <SQL>, MariaDB's PREPARE name
            # FROM <its text as a string literal>.
            self.texts[words[1]] = (' '.join(words[3:]) if words[2] == 'AS'
                                    else parameters[0])

    def __enter__(self):
        sa.event.listen(self.engine, 'before_cursor_execute',
                        self._statement)
        return self

    def __exit__(self, *exc_info):
        sa.event.remove(self.engine, 'before_cursor_execute',
                        self._statement)


def _prepared(conn, texts):
    """``{name: statement text}`` of the session's prepared statements
    among ``texts`` (:class:`_Prepares`' record): PostgreSQL lists them;
    MariaDB only with its performance schema, so each is executed."""
    if conn.dialect.name == 'postgresql':
        return dict(conn.exec_driver_sql(
            'SELECT name, statement FROM pg_prepared_statements').all())
    prepared = {}
    for name, text in texts.items():
        try:
            conn.exec_driver_sql(f'EXECUTE {name}').all()
        except sa.exc.DBAPIError:
            continue
        prepared[name] = text
    return prepared


def test_a_kept_statement_is_prepared_once_per_connection(db):
    statement = _statement(TRAITS)
    with db.engine.connect() as conn:
        with round_trips.RoundTrips(db.engine) as trips, \
                _Prepares(db.engine) as prepares:
            runs = [_run(conn, statement) for _ in range(4)]
        prepared = _prepared(conn, prepares.texts)
    assert runs == [sorted(TRAITS)] * 4
    # The first run compiles it; the others run it from its SQL.
    assert trips.statements == (
        ['SELECT', 'PREPARE', 'EXECUTE', 'EXECUTE', 'EXECUTE']
        if _prepares(db) else ['SELECT'] * 4)
    if _prepares(db):
        (text,) = prepared.values()
        # Its values written in: its one plan is that of those values.
        assert all(f"'{name}'" in text for name in TRAITS)


def test_a_statement_prepared_survives_a_rollback(db):
    """PREPARE is not transactional: the connection keeps it."""
    statement = _statement(TRAITS[:2])
    with db.engine.connect() as conn:
        with conn.begin() as transaction:
            _run(conn, statement)
            _run(conn, statement)
            transaction.rollback()
        with round_trips.RoundTrips(db.engine) as trips:
            assert _run(conn, statement) == sorted(TRAITS[:2])
    assert trips.statements == (
        ['EXECUTE'] if _prepares(db) else ['SELECT'])


def test_a_new_connection_prepares_again(db):
    """A connection lost and opened anew (SQLAlchemy's invalidation
    after a disconnect) has nothing prepared: the statement is prepared
    on it again, not executed by a name the new session never had."""
    statement = _statement(TRAITS[1:])
    with db.engine.connect() as conn:
        _run(conn, statement)
        _run(conn, statement)
        conn.invalidate()
        conn.rollback()
        with round_trips.RoundTrips(db.engine) as trips:
            assert _run(conn, statement) == sorted(TRAITS[1:])
            assert _run(conn, statement) == sorted(TRAITS[1:])
    assert trips.statements == (
        ['PREPARE', 'EXECUTE', 'EXECUTE'] if _prepares(db)
        else ['SELECT', 'SELECT'])


def test_a_lost_connection_is_read_again_prepared(db):
    """The server side of a pooled connection that prepared the
    statement is gone: the read is run again on a new connection, which
    prepares it again."""
    if db.backend == 'sqlite':
        pytest.skip('SQLite has no server connection to lose')
    statement = _statement(TRAITS)
    for _ in range(2):
        assert db.read(_run, statement) == sorted(TRAITS)
    with db.engine.connect() as conn:
        own = db_sessions.own_id(conn)
    db_sessions.end(db.engine.url, own)
    with round_trips.RoundTrips(db.engine) as trips:
        assert db.read(_run, statement) == sorted(TRAITS)
    # The first attempt fails on the connection lost.
    assert trips.statements == (
        ['EXECUTE', 'PREPARE', 'EXECUTE'] if _prepares(db)
        else ['SELECT', 'SELECT'])


def test_a_connection_keeps_the_last_statements_prepared(db, monkeypatch):
    monkeypatch.setattr(db_api, 'MOST_PREPARED', 2)
    statements = [_statement([name]) for name in TRAITS]
    with db.engine.connect() as conn:
        with round_trips.RoundTrips(db.engine) as trips, \
                _Prepares(db.engine) as prepares:
            for statement in statements:
                assert _run(conn, statement) == _run(conn, statement)
            # The first is prepared again, in place of the least used.
            assert _run(conn, statements[0]) == [TRAITS[0]]
        kept_prepared = (sorted(_prepared(conn, prepares.texts).values())
                         if _prepares(db) else [])
    assert trips.statements == (
        ['SELECT', 'PREPARE', 'EXECUTE'] * 2
        + ['SELECT', 'DEALLOCATE', 'PREPARE', 'EXECUTE']
        + ['DEALLOCATE', 'PREPARE', 'EXECUTE'] if _prepares(db)
        else ['SELECT'] * 7)
    if _prepares(db):
        assert [[name for name in TRAITS if f"'{name}'" in text]
                for text in kept_prepared] in (
            [[TRAITS[0]], [TRAITS[2]]], [[TRAITS[2]], [TRAITS[0]]])


def test_switched_off_statements_run_as_text(db_url):
    """``prepared_statements = false``, for a pooler or proxy that hands
    one client's statements to several server connections."""
    db = db_api.Database(database.make_conf(
        db_url, placement_database__prepared_statements=False,
    ).placement_database)
    try:
        statement = _statement(TRAITS)
        with round_trips.RoundTrips(db.engine) as trips:
            with db.engine.connect() as conn:
                assert [_run(conn, statement) for _ in range(3)] == [
                    sorted(TRAITS)] * 3
        assert trips.statements == ['SELECT'] * 3
    finally:
        db.dispose()
