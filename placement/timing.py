"""Where a request's server time goes, for benchmarks (debug only).

With ``[placement] debug_timing`` on, :func:`middleware` times each
request and answers with a ``Server-Timing`` header (the W3C
Server Timing syntax) that splits it into ``sql`` (statements, from
the engine's cursor events), ``serialise`` (JSON encoding, measured by
:func:`serialising`) and ``app`` (everything else: parsing, assembly,
rendering), in milliseconds. Off, nothing is measured and no header is
sent.
"""

import contextlib
import contextvars
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


def fetched(result):
    """The rows of a streamed ``result``, the time spent fetching them
    counted as ``sql``: the driver reads them a batch at a time after
    the statement's cursor events."""
    if _SPENT.get() is None:
        return result
    return _fetched_timed(result.partitions())


def _fetched_timed(partitions):
    while True:
        started = time.perf_counter()
        rows = next(partitions, None)
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


def header(spent, total):
    """The ``Server-Timing`` value for the parts ``spent`` of ``total``
    seconds."""
    app = total - spent['sql'] - spent['serialise']
    parts = {'sql': spent['sql'], 'serialise': spent['serialise'],
             'app': app, 'total': total}
    return ', '.join(f'{name};dur={seconds * 1000:.1f}'
                     for name, seconds in parts.items())


def middleware(conf):
    """The timing middleware when ``debug_timing`` is on, else none."""
    def wrap(application):
        if not conf.placement.debug_timing:
            return application
        _listen()

        def timed(environ, start_response):
            spent = {'sql': 0.0, 'serialise': 0.0}
            token = _SPENT.set(spent)
            started = time.perf_counter()

            def start_timed(status, headers, exc_info=None):
                total = time.perf_counter() - started
                headers = [*headers,
                           ('Server-Timing', header(spent, total))]
                return start_response(status, headers, exc_info)
            try:
                return application(environ, start_timed)
            finally:
                _SPENT.reset(token)
        return timed
    return wrap
