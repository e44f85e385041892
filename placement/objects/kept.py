"""Statements kept built, by a key of everything they are built from.

SQLAlchemy builds a statement in Python each time, and computes its
cache key (a walk of the whole statement) each time it runs a new one:
for the narrowing statement of a candidates request, with its capacity
flags and trait and aggregate probes, the two cost more CPU than its
execution. A statement object is immutable once built and keeps its
cache key, so that one built before runs at once. Schedulers ask the
same few things (flavors, aggregates, traits) again and again.

:func:`conditions._built` keeps conditions that are functions of their
arguments; this keeps statements built by a method from the state of
its object, under a key the caller makes of that state.
"""

import collections
import itertools
import threading
import weakref

import sqlalchemy as sa

from placement.db import api as db_api

#: The most ids (or names) a statement kept may name: those of
#: schedulers are few and repeated, and a statement of thousands of
#: aggregates is large.
MOST_IDS = 64


class Recent:
    """Values of the last ``size`` different keys, shared by a worker's
    threads."""

    def __init__(self, size):
        self._size = size
        self._values = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, default=None):
        """The value of ``key`` (now the most recent), else ``default``."""
        with self._lock:
            value = self._values.get(key, default)
            if key in self._values:
                self._values.move_to_end(key)
            return value

    def put(self, key, value):
        """``key`` is ``value``, the oldest key dropped past the size."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self._size:
                self._values.popitem(last=False)

    def drop(self, key):
        """``key`` has no value any more."""
        with self._lock:
            self._values.pop(key, None)


class Kept:
    """The statements of the last ``size`` different keys."""

    def __init__(self, size):
        self._statements = Recent(size)

    def get(self, key, build, ids):
        """What is kept for ``key`` (hashable, and equal only for equal
        statements), else what ``build()`` makes (a statement, or a
        tuple holding one and how to read its rows), kept if it names
        at most :data:`MOST_IDS` ``ids`` (and :func:`execute` then runs
        its statement again as it ran it first)."""
        if ids > MOST_IDS:
            return build()
        statement = self._statements.get(key)
        if statement is not None:
            return statement
        statement = build()
        for item in statement if isinstance(statement, tuple) else [statement]:
            if isinstance(item, sa.sql.ClauseElement):
                _PREPARED[item] = weakref.WeakKeyDictionary()
        self._statements.put(key, statement)
        return statement


#: ``{statement kept: {dialect: (name, SQL, parameters) or None}}``,
#: weakly: a statement dropped by its :class:`Kept` goes (and an
#: engine's dialect with its engine).
_PREPARED = weakref.WeakKeyDictionary()

#: Numbers of the names of the statements run again
#: (:func:`db_api.repeated`; ``next`` of a count is atomic).
_NUMBERS = itertools.count()


def execute(conn, statement):
    """``conn.execute(statement)``; a statement kept (by :meth:`Kept.get`)
    runs again from the SQL and parameters its first run sent to the
    driver: its values are all in it, and SQLAlchemy would otherwise
    make its parameters and expand its IN lists again each time (a
    third of the service's CPU for the narrowing statement, 0.17 of 0.5
    ms). A statement whose columns need converting (none of those kept
    so far) always runs as any other. On PostgreSQL and MariaDB it is
    prepared once per connection (:func:`db_api.repeated`)."""
    prepared = _PREPARED.get(statement)
    if prepared is None:
        return conn.execute(statement)
    dialect = conn.dialect
    sent = prepared.get(dialect)
    if sent is not None:
        return db_api.repeated(conn, *sent)
    result = conn.execute(statement)
    if dialect not in prepared:
        prepared[dialect] = (
            None if _converted(statement, dialect)
            else (f'placement_kept_{next(_NUMBERS)}',
                  result.context.statement, result.context.parameters[0]))
    return result


def _converted(statement, dialect):
    """Whether SQLAlchemy converts the values of a column of
    ``statement`` read from ``dialect``'s driver (the parameters it
    sends are converted already)."""
    return any(column.type.dialect_impl(dialect).result_processor(
        dialect, None) for column in statement.selected_columns)
