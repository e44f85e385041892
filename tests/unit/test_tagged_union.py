"""tagged_union: the tags and constants written into a statement's text,
and the UNION of tagged queries read back on a real (SQLite) database."""

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import sqlite

from placement.objects import tagged_union


def _rendered(expression):
    return str(sa.select(expression).compile(
        dialect=sqlite.dialect()))


def test_constants_are_written_in_the_statement():
    assert _rendered(tagged_union.constant('class')) == "SELECT 'class'"
    assert _rendered(tagged_union.constant(7)) == 'SELECT 7'


@pytest.mark.parametrize('text', ["it's", 'back\\slash'])
def test_a_text_that_would_need_escaping_is_refused(text):
    with pytest.raises(ValueError):
        tagged_union.constant(text)


def test_rows_carry_the_tag_of_their_query():
    engine = sa.create_engine('sqlite://')
    queries = {'one': sa.select(sa.literal_column('1')),
               'two': sa.select(sa.literal_column('2'))}
    statement = tagged_union.union(queries)
    assert not statement.compile(engine).params
    with engine.connect() as conn:
        assert sorted(conn.execute(statement)) == [(1, 'one'), (2, 'two')]
        assert list(conn.execute(tagged_union.union(
            {'alone': sa.select(sa.literal_column('3'))}))) == [(3, 'alone')]


def test_no_queries_no_statement():
    assert tagged_union.union({}) is None
