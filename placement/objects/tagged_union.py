"""One statement of several queries, each row tagged with its query's
name, and the constants written into statements.

A statement costs a round trip and about half a millisecond of the
service's CPU whatever it reads: a request that reads several things
(names of classes, traits and aggregates; the folded rows of several
groups) reads them in one UNION, each part's rows carrying its tag. A
tag, like a separator of folded strings, is written in the statement's
text rather than sent as a parameter: SQLAlchemy would otherwise make
the parameters and the driver escape them at each execution, and a
statement whose values are all in its text can be kept prepared
(:func:`placement.db.api.repeated`).
"""

import sqlalchemy as sa


def constant(value):
    """SQL: ``value``, a short text without quotes (a tag, a separator,
    a flag's text) or an integer, written in the statement."""
    if isinstance(value, int):
        return sa.literal_column(str(value), sa.Integer)
    if "'" in value or '\\' in value:
        raise ValueError(f'not a constant of a statement: {value!r}')
    return sa.literal_column(f"'{value}'", sa.String)


def union(queries):
    """One statement of ``{tag: query}`` (texts), each query's rows with
    its tag as their last column; None without queries."""
    parts = [query.add_columns(constant(tag))
             for tag, query in queries.items()]
    if not parts:
        return None
    return sa.union_all(*parts) if len(parts) > 1 else parts[0]
