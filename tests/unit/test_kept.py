"""Statements kept built, and run from their SQL compiled once."""

import sqlalchemy as sa

from placement.objects import kept

_T = sa.table('t', sa.column('id', sa.Integer), sa.column('name', sa.String))


def _engine():
    engine = sa.create_engine('sqlite://')
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (id INTEGER, name TEXT)')
        conn.exec_driver_sql(
            "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    return engine


def _runs(engine):
    """``[compiled by SQLAlchemy at execution?]`` of each statement run."""
    runs = []
    sa.event.listen(engine, 'before_cursor_execute',
                    lambda _conn, _cursor, _sql, _parameters, context,
                    _many: runs.append(context.compiled is not None))
    return runs


def _names(ids):
    """A statement of an IN list and a literal, as the kept ones are."""
    return (sa.select(_T.c.name, sa.literal('x'))
            .where(_T.c.id.in_(ids)).order_by(_T.c.id))


def test_a_kept_statement_runs_again_as_it_ran_first():
    engine = _engine()
    runs = _runs(engine)
    statement = kept.Kept(4).get(('names', 1, 3), lambda: _names([1, 3]), 2)
    with engine.connect() as conn:
        for _ in range(3):
            assert kept.execute(conn, statement).all() == [
                ('a', 'x'), ('c', 'x')]
    assert runs == [True, False, False]


def test_a_statement_not_kept_runs_as_any_other():
    engine = _engine()
    runs = _runs(engine)
    many = kept.Kept(4).get(('names', 'many'), lambda: _names([1, 2]),
                            kept.MOST_IDS + 1)
    with engine.connect() as conn:
        assert kept.execute(conn, _names([2])).all() == [('b', 'x')]
        assert kept.execute(conn, many).all() == [('a', 'x'), ('b', 'x')]
    assert runs == [True, True]


def test_a_kept_statement_of_converted_columns_runs_as_any_other():
    """SQLite has no booleans: SQLAlchemy converts them both ways."""
    engine = _engine()
    runs = _runs(engine)
    statement = kept.Kept(4).get(
        'flag', lambda: sa.select(sa.literal(True, sa.Boolean)), 0)
    with engine.connect() as conn:
        for _ in range(2):
            (flag,), = kept.execute(conn, statement).all()
            assert flag is True
    assert runs == [True, True]
