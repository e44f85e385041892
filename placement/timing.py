"""Where a request's server time goes.

:func:`middleware` times each request and splits it into ``sql``
(statements, from the engine's cursor events, and the fetching of
streamed rows), ``serialise`` (JSON encoding, measured by
:func:`serialising`) and ``app`` (everything else: parsing, assembly,
rendering); the request log and the metrics read the split from
:func:`of`. With ``[placement] debug_timing`` on, each response also
carries it as a ``Server-Timing`` header (the W3C Server Timing syntax),
in milliseconds.
"""

import contextlib
import contextvars
import itertools
import time

import sqlalchemy as sa
from sqlalchemy import event

_SPENT = contextvars.ContextVar('placement_timing', default=None)


def _add(part, seconds):
    spent = _SPENT.get()
    if spent is not None:
        spent[part] += seconds


@contextlib.contextmanager
def serialising():
    """Count the time of the block as serialisation."""
    started = time.perf_counter()
    try:
        yield
    finally:
        _add('serialise', time.perf_counter() - started)


def fetched(batches):
    """The rows of ``batches`` (lists of rows of a streamed result), the
    time spent fetching each counted as ``sql``: the driver reads them a
    batch at a time after the statement's cursor events."""
    if _SPENT.get() is None:
        return itertools.chain.from_iterable(batches)
    return _fetched_timed(iter(batches))


def _fetched_timed(batches):
    while True:
        started = time.perf_counter()
        rows = next(batches, None)
        _add('sql', time.perf_counter() - started)
        if rows is None:
            return
        yield from rows


def _before_execute(_conn, _cursor, _statement, _params, context, _many):
    if _SPENT.get() is not None:
        context.placement_started = time.perf_counter()


def _after_execute(_conn, _cursor, _statement, _params, context, _many):
    started = getattr(context, 'placement_started', None)
    if started is not None:
        _add('sql', time.perf_counter() - started)


def _listen():
    for name, listener in (('before_cursor_execute', _before_execute),
                           ('after_cursor_execute', _after_execute)):
        if not event.contains(sa.engine.Engine, name, listener):
            event.listen(sa.engine.Engine, name, listener)


#: Where the request's :class:`Spent` is kept.
ENVIRON = 'placement.timing'


class Spent(dict):
    """The seconds a request has spent so far in ``sql`` and
    ``serialise``, and since it started."""

    def __init__(self):
        super().__init__(sql=0.0, serialise=0.0)
        self.started = time.perf_counter()

    def split(self):
        """``{sql, serialise, app, total}`` in seconds, until now."""
        total = time.perf_counter() - self.started
        return {'sql': self['sql'], 'serialise': self['serialise'],
                'app': total - self['sql'] - self['serialise'],
                'total': total}


def of(environ):
    """The :class:`Spent` of the request of ``environ`` (None if untimed)."""
    return environ.get(ENVIRON)


def header(split):
    """The ``Server-Timing`` value of a :meth:`Spent.split`."""
    return ', '.join(f'{name};dur={seconds * 1000:.1f}'
                     for name, seconds in split.items())


def middleware(conf):
    """The timing middleware; it adds the header with ``debug_timing``."""
    debug = conf.placement.debug_timing

    def wrap(application):
        _listen()

        def timed(environ, start_response):
            spent = environ[ENVIRON] = Spent()
            token = _SPENT.set(spent)

            def start_timed(status, headers, exc_info=None):
                if debug:
                    headers = [*headers,
                               ('Server-Timing', header(spent.split()))]
                return start_response(status, headers, exc_info)
            try:
                return application(environ, start_timed)
            finally:
                _SPENT.reset(token)
        return timed
    return wrap
