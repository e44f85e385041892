"""The transaction layer: what it runs again, how often, and what a caller
gets when the attempts run out (on a throw-away SQLite file)."""

import prometheus_client
import pymysql
import pytest
import sqlalchemy as sa

from placement import exception
from placement.db import api as db_api
from placement.db import failures
from tests import database

_T = sa.table('t', sa.column('n', sa.Integer))


@pytest.fixture
def db(tmp_path):
    conf = database.make_conf(
        f'sqlite:///{tmp_path}/t.sqlite',
        placement_database__transaction_retry_count=3)
    db = db_api.Database(conf.placement_database)
    with db.writer() as conn:
        conn.exec_driver_sql('CREATE TABLE t (n INTEGER)')
    yield db
    db.dispose()


def _mysql_error(code, message, connection_invalidated=False):
    """A PyMySQL error as SQLAlchemy raises it on MySQL
    (``connection_invalidated``: on a pooled connection, which it
    invalidated)."""
    return sa.exc.OperationalError(
        'STATEMENT', {}, pymysql.err.OperationalError(code, message),
        connection_invalidated=connection_invalidated)


def _gone_away():
    """The error of a pooled connection the server ended since its last
    use."""
    return _mysql_error(2006, 'MySQL server has gone away',
                        connection_invalidated=True)


class _Failing:
    """Inserts a row, then raises the next of ``errors`` (if any)."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, conn):
        self.calls += 1
        conn.execute(sa.insert(_T).values(n=self.calls))
        if self.errors:
            raise self.errors.pop(0)
        return self.calls


def _rows(db):
    with db.reader() as conn:
        return conn.scalars(sa.select(_T.c.n)).all()


def test_deadlock_runs_again_in_a_fresh_transaction(db):
    operation = _Failing(_mysql_error(1213, 'Deadlock found'),
                         _mysql_error(1205, 'Lock wait timeout exceeded'))
    assert db.write(operation) == 3
    # The rolled back attempts left nothing behind.
    assert _rows(db) == [3]


def test_lost_connection_before_commit_runs_again(db):
    operation = _Failing(_mysql_error(2013, 'Lost connection'))
    assert db.write(operation) == 2
    assert _rows(db) == [2]


def test_contention_that_lasts_is_a_concurrent_update(db):
    operation = _Failing(*[_mysql_error(1213, 'Deadlock found')] * 10)
    with pytest.raises(exception.ConcurrentUpdate):
        db.write(operation)
    assert operation.calls == 4  # one and transaction_retry_count more
    assert _rows(db) == []


def test_unreachable_database_that_lasts_is_unavailable(db):
    operation = _Failing(*[_mysql_error(2003, "Can't connect")] * 10)
    with pytest.raises(failures.DatabaseUnavailable):
        db.write(operation)
    # One and transaction_retry_count more: a connection that cannot be
    # opened is not one that broke since its last use.
    assert operation.calls == 4


def test_a_stale_pooled_connection_is_replaced_without_retries(tmp_path):
    """In place of a ping before every transaction: a pooled connection
    that broke since its last use is run again even when no retry is
    configured, as many times as the pool holds connections (one
    here)."""
    conf = database.make_conf(
        f'sqlite:///{tmp_path}/t.sqlite',
        placement_database__transaction_retry_count=0)
    db = db_api.Database(conf.placement_database)
    with db.writer() as conn:
        conn.exec_driver_sql('CREATE TABLE t (n INTEGER)')
    assert not db.engine.pool._pre_ping
    assert db.write(_Failing(_gone_away())) == 2
    with pytest.raises(failures.DatabaseUnavailable):
        db.write(_Failing(_gone_away(), _gone_away()))
    db.dispose()


def test_statement_timeout_is_unavailable_at_once(db):
    operation = _Failing(_mysql_error(1969, 'max_statement_time exceeded'))
    with pytest.raises(failures.DatabaseUnavailable) as caught:
        db.write(operation)
    assert caught.value.failure is failures.Failure.TIMEOUT
    assert operation.calls == 1


def test_other_database_errors_are_not_run_again(db):
    operation = _Failing(_mysql_error(1062, 'Duplicate entry'))
    with pytest.raises(sa.exc.OperationalError):
        db.write(operation)
    assert operation.calls == 1


def test_retry_transaction_is_bounded_by_the_callers_count(db):
    operation = _Failing(*[db_api.RetryTransaction('moved')] * 10)
    with pytest.raises(exception.ConcurrentUpdate, match='moved'):
        db.write(operation, conflict_retries=2)
    assert operation.calls == 3
    assert _rows(db) == []


def test_retry_transaction_then_success(db):
    operation = _Failing(db_api.RetryTransaction('moved'))
    assert db.write(operation, conflict_retries=1) == 2


def test_reads_run_again_too(db):
    operation = _Failing(_mysql_error(2006, 'MySQL server has gone away'))
    assert db.read(operation) == 2


def test_connection_lost_during_commit_is_never_acknowledged(
        db, monkeypatch):
    def lost(_dbapi_connection):
        raise _mysql_error(2013, 'Lost connection')
    monkeypatch.setattr(db.engine.dialect, 'do_commit', lost)
    operation = _Failing()
    with pytest.raises(failures.CommitOutcomeUnknown):
        db.write(operation)
    # Not run again: the first attempt may have been committed.
    assert operation.calls == 1


def test_deadlock_on_commit_runs_again(db, monkeypatch):
    """Galera refuses a transaction at COMMIT when certification fails."""
    commit = db.engine.dialect.do_commit
    refusals = [_mysql_error(
        1213, 'Deadlock found when trying to get lock; try restarting '
              'transaction')]

    def certify(dbapi_connection):
        if refusals:
            dbapi_connection.rollback()
            raise refusals.pop()
        commit(dbapi_connection)
    monkeypatch.setattr(db.engine.dialect, 'do_commit', certify)
    before = _counts()
    assert db.write(_Failing()) == 2
    assert _rows(db) == [2]
    assert _counted(before, _counts()) == {
        ('transaction_reruns', 'write', 'galera_certification'): 1,
        ('transactions', 'write', 'committed'): 1}


def test_slave_connection_serves_the_reads(tmp_path):
    conf = database.make_conf(
        f'sqlite:///{tmp_path}/main.sqlite',
        placement_database__slave_connection=(
            f'sqlite:///{tmp_path}/replica.sqlite'))
    db = db_api.Database(conf.placement_database)
    with db.writer() as conn:
        conn.exec_driver_sql('CREATE TABLE t (n INTEGER)')
    db.write(lambda conn: conn.execute(sa.insert(_T).values(n=1)))

    def _names(conn):
        return conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table'").all()
    assert db.read(_names) == []  # the replica has no table yet
    assert db.read(_names, primary=True) == [('t',)]
    db.dispose()


def test_pool_options_configure_the_server_engines():
    """No connection is made: the engine is only configured."""
    conf = database.make_conf(
        'mysql+pymysql://placement@127.0.0.1:1/placement',
        placement_database__max_pool_size=7,
        placement_database__max_overflow=3,
        placement_database__pool_timeout=4,
        placement_database__connection_recycle_time=600,
        placement_database__slave_connection=(
            'mysql+pymysql://placement@127.0.0.2:1/placement'))
    db = db_api.Database(conf.placement_database)
    for engine in (db.engine, db.reader_engine):
        assert engine.pool.size() == 7
        assert engine.pool._max_overflow == 3
        assert engine.pool._timeout == 4
        assert engine.pool._recycle == 600
        assert not engine.pool._pre_ping
    assert db.reader_engine.url.host == '127.0.0.2'
    db.dispose()


def _counts():
    """The transaction metrics of this process, by labels."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for metric in prometheus_client.REGISTRY.collect()
            if metric.name.startswith('placement_db_transaction')
            for sample in metric.samples if sample.name.endswith('_total')}


def _counted(before, after):
    """What was counted between two :func:`_counts`, without labels'
    names: ``{(metric, access, outcome or cause): increase}``."""
    return {(name.removeprefix('placement_db_').removesuffix('_total'),
             *(value for _label, value in labels)): count - before.get(
                 (name, labels), 0)
            for (name, labels), count in after.items()
            if count != before.get((name, labels), 0)}


def test_outcomes_and_reruns_are_counted(db, monkeypatch):
    before = _counts()
    db.write(_Failing(_mysql_error(1213, 'Deadlock found'),
                      _mysql_error(1205, 'Lock wait timeout exceeded'),
                      _mysql_error(2013, 'Lost connection')))
    with pytest.raises(exception.ConcurrentUpdate):
        db.write(_Failing(*[_mysql_error(1213, 'Deadlock found')] * 10))
    with pytest.raises(failures.DatabaseUnavailable):
        db.read(_Failing(*[_mysql_error(2003, "Can't connect")] * 10))
    with pytest.raises(exception.NotFound):
        db.read(_Failing(exception.NotFound('no such provider')))
    assert _counted(before, _counts()) == {
        ('transactions', 'write', 'committed'): 1,
        ('transactions', 'write', 'conflict'): 1,
        ('transactions', 'read', 'unavailable'): 1,
        ('transactions', 'read', 'rolled_back'): 1,
        # 1 then 3 deadlocks run again (the 4th is given up).
        ('transaction_reruns', 'write', 'deadlock'): 4,
        ('transaction_reruns', 'write', 'lock_wait'): 1,
        ('transaction_reruns', 'write', 'connection_lost'): 1,
        # 3 connections that could not be opened (the 4th given up).
        ('transaction_reruns', 'read', 'connection_lost'): 3,
    }
