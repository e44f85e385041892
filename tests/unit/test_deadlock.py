"""Which database errors mean "deadlock: run the transaction again"."""

import sqlalchemy as sa

from placement.objects import resource_provider


class _PgError(Exception):
    def __init__(self, pgcode):
        super().__init__(pgcode)
        self.pgcode = pgcode


def _db_error(orig):
    return sa.exc.OperationalError('STATEMENT', {}, orig)


def test_mysql_deadlock_and_lock_wait_timeout():
    assert resource_provider.is_deadlock(
        _db_error(Exception(1213, 'Deadlock found')))
    assert resource_provider.is_deadlock(
        _db_error(Exception(1205, 'Lock wait timeout exceeded')))


def test_postgresql_deadlock_and_serialization_failure():
    assert resource_provider.is_deadlock(_db_error(_PgError('40P01')))
    assert resource_provider.is_deadlock(_db_error(_PgError('40001')))


def test_other_errors_are_not_deadlocks():
    assert not resource_provider.is_deadlock(
        _db_error(Exception(1062, 'Duplicate entry')))
    assert not resource_provider.is_deadlock(_db_error(_PgError('23505')))
    assert not resource_provider.is_deadlock(ValueError('no database'))


def test_deadlock_behind_a_failed_savepoint_rollback():
    """MySQL drops the savepoints with the deadlocked transaction."""
    try:
        try:
            raise _db_error(Exception(1213, 'Deadlock found'))
        except sa.exc.OperationalError:
            raise _db_error(Exception(1305, 'SAVEPOINT sa_1 does not exist'))
    except sa.exc.OperationalError as exc:
        assert resource_provider.is_deadlock(exc)
