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
import threading

#: The most ids (or names) a statement kept may name: those of
#: schedulers are few and repeated, and a statement of thousands of
#: aggregates is large.
MOST_IDS = 64


class Kept:
    """The statements of the last ``size`` different keys."""

    def __init__(self, size):
        self._size = size
        self._statements = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, build, ids):
        """What is kept for ``key`` (hashable, and equal only for equal
        statements), else what ``build()`` makes (a statement, or a
        tuple holding one and how to read its rows), kept if it names
        at most :data:`MOST_IDS` ``ids``."""
        if ids > MOST_IDS:
            return build()
        with self._lock:
            statement = self._statements.get(key)
            if statement is not None:
                self._statements.move_to_end(key)
                return statement
        statement = build()
        with self._lock:
            self._statements[key] = statement
            while len(self._statements) > self._size:
                self._statements.popitem(last=False)
        return statement
