"""Metrics of the transactions and the connection pools.

:mod:`placement.db.api` calls :func:`finished` and :func:`rerun`;
:func:`observe_pool` follows an engine's pool through its events.
"""

from sqlalchemy import event

from placement.metrics import definitions

COMMITTED = 'committed'
ROLLED_BACK = 'rolled_back'
CONFLICT = 'conflict'
UNAVAILABLE = 'unavailable'
GENERATION_CONFLICT = 'generation_conflict'


def finished(access, outcome):
    """A transaction of ``access`` (read, write) ended with ``outcome``."""
    definitions.TRANSACTIONS.labels(access, outcome).inc()


def rerun(access, cause):
    """A transaction is run again because of ``cause`` (a string)."""
    definitions.RERUNS.labels(access, cause).inc()


def observe_pool(engine, name):
    """Keep the pool gauges of ``engine`` (labelled ``name``) current."""
    pool = engine.pool
    in_use = definitions.POOL_IN_USE.labels(name)
    overflow = definitions.POOL_OVERFLOW.labels(name)
    size = getattr(pool, 'size', None)
    if callable(size):
        definitions.POOL_SIZE.labels(name).set(size())

    def _overflow():
        count = getattr(pool, 'overflow', None)
        if callable(count):
            overflow.set(max(count(), 0))

    @event.listens_for(pool, 'checkout')
    def _checkout(_dbapi_connection, _record, _proxy):
        in_use.inc()
        _overflow()

    @event.listens_for(pool, 'checkin')
    def _checkin(_dbapi_connection, _record):
        in_use.dec()
        _overflow()
