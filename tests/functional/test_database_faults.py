"""Database faults other than an outage or a held lock: a database that
refuses writes, a statement cancelled by another session, a connection
ended by the server between two statements.

Each is a 503 with Retry-After (never a 500) that changes nothing, or
no error at all when the request had finished with the connection; and
the service answers again once the fault is gone, without a restart.
"""

import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from tests.functional import app as app_client
from tests.functional import sessions as db_sessions

pytestmark = pytest.mark.db

_ALLOC = models.Allocation.__table__
# What makes each new session of the service refuse writes.
_READ_ONLY_SESSION = {
    'mysql': 'SET SESSION TRANSACTION READ ONLY',
    'postgresql': 'SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY',
    'sqlite': 'PRAGMA query_only = 1',
}


def _allocations(db, consumer):
    with db.reader() as conn:
        return conn.execute(sa.select(sa.func.count()).select_from(_ALLOC)
                            .where(_ALLOC.c.consumer_id == consumer)).scalar()


def _assert_503(response):
    assert response.status_int == 503, response.text
    assert response.headers['Retry-After']
    assert response.json['errors'][0]['status'] == 503


@pytest.fixture
def api(db_url):
    application, db = app_client.build_stack(db_url)
    try:
        yield app_client.API(application, db)
    finally:
        db.dispose()


def test_read_only_database_is_503_then_writes_again(api, db):
    rp_uuid = api.provider({'VCPU': {'total': 4}})
    engine = api.db.engine
    statement = _READ_ONLY_SESSION[api.db.backend]

    def read_only(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        cursor.execute(statement)
        cursor.close()
        # Outside a transaction: PostgreSQL's SET rolled back is undone.
        dbapi_connection.commit()

    sa.event.listen(engine, 'connect', read_only)
    engine.dispose()
    consumer = str(uuid.uuid4())
    try:
        _assert_503(api.claim(rp_uuid, consumer))
        _assert_503(api.request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories/VCPU',
            body={'total': 8, 'resource_provider_generation': 1}))
        assert api.request(
            'GET', f'/resource_providers/{rp_uuid}').status_int == 200
    finally:
        sa.event.remove(engine, 'connect', read_only)
    assert _allocations(db, consumer) == 0
    assert api.inventories(rp_uuid)['inventories']['VCPU']['total'] == 4
    # The read-only connections stay in the pool until they break; a
    # database made writable again is so for new sessions.
    engine.dispose()
    assert api.claim(rp_uuid, consumer).status_int == 204
    assert _allocations(db, consumer) == 1


def _server_only(db):
    if db.backend == 'sqlite':
        pytest.skip('SQLite has no session of another client to end')


def _waiting_session(conn, backend):
    """The id of a session of this database waiting for a row lock."""
    if backend == 'mysql':
        return conn.execute(sa.text(
            "SELECT trx_mysql_thread_id FROM information_schema.innodb_trx "
            "WHERE trx_state = 'LOCK WAIT'")).scalar()
    return conn.execute(sa.text(
        "SELECT pid FROM pg_stat_activity WHERE datname = "
        "current_database() AND wait_event_type = 'Lock'")).scalar()


def _cancel(conn, backend, session):
    if backend == 'mysql':
        conn.execute(sa.text(f'KILL QUERY {int(session)}'))
    else:
        conn.execute(sa.text('SELECT pg_cancel_backend(:pid)'),
                     {'pid': session})


def test_cancelled_statement_is_503_and_writes_nothing(db_url, db):
    """An operator's KILL QUERY / pg_cancel_backend of a claim waiting
    for a lock: 503, not retried, nothing written."""
    _server_only(db)
    application, service_db = app_client.build_stack(
        db_url, placement_database__lock_wait_timeout=120)
    api = app_client.API(application, service_db)
    rp = models.ResourceProvider.__table__
    try:
        rp_uuid = api.provider({'VCPU': {'total': 4}})
        consumer = str(uuid.uuid4())
        answers = []
        claimer = threading.Thread(
            target=lambda: answers.append(api.claim(rp_uuid, consumer)))
        with db.writer() as holder:
            holder.execute(sa.update(rp).where(rp.c.uuid == rp_uuid)
                           .values(name=rp.c.name))
            claimer.start()
            with db.engine.connect() as admin:
                admin = admin.execution_options(isolation_level='AUTOCOMMIT')
                session = None
                while session is None and claimer.is_alive():
                    time.sleep(0.05)
                    session = _waiting_session(admin, db.backend)
                assert session is not None, answers and answers[0].text
                _cancel(admin, db.backend, session)
            claimer.join()
        _assert_503(answers[0])
        assert _allocations(db, consumer) == 0
        assert api.claim(rp_uuid, consumer).status_int == 204
    finally:
        service_db.dispose()


def test_read_whose_connection_the_server_ended_is_answered(db):
    """The server ends the connection of a read once it has its rows:
    the read is answered (on MySQL, whose read ends with a COMMIT that
    now fails, by running it again; on PostgreSQL, whose read ran
    without a transaction, at once), and the broken connection goes
    back to the pool to be replaced, not kept out of it."""
    _server_only(db)
    sessions = []

    @db_api.read_committed
    def read_then_lose_connection(conn):
        sessions.append(db_sessions.own_id(conn))
        if len(sessions) == 1:
            db_sessions.end(db.engine.url, sessions[0])
        return 'rows'

    # A connection that served a READ COMMITTED write holds that level
    # as its own (psycopg2), and its switch back from autocommit after
    # a read is then a statement to the server.
    db.write(lambda conn: conn.execute(sa.text('SELECT 1')),
             read_committed=True)
    assert db.read(read_then_lose_connection) == 'rows'
    assert db.engine.pool.checkedout() == 0
    later = db.read(db_api.read_committed(db_sessions.own_id))
    assert later != sessions[0]


def _pooled_sessions(db, count):
    """The server's ids of the sessions of ``count`` connections, opened
    at once and back in ``db``'s pool."""
    held = [db.engine.connect() for _ in range(count)]
    try:
        return [db_sessions.own_id(conn) for conn in held]
    finally:
        for conn in held:
            conn.close()


def test_a_connection_the_server_ended_is_replaced_alone(db):
    """The server ends one of the pool's connections (an operator's
    KILL CONNECTION, a timeout of its own): the read that meets it runs
    again on another, and the pool's other connections are kept
    (SQLAlchemy discarded every connection of the pool opened before
    the failure)."""
    _server_only(db)
    sessions = _pooled_sessions(db, 3)
    db_sessions.end(db.engine.url, sessions[0])
    seen = {db.read(db_api.read_committed(db_sessions.own_id))
            for _ in range(6)}
    assert sessions[0] not in seen
    assert set(sessions[1:]) <= seen


def test_a_pool_whose_connections_the_server_ended_is_answered_at_once(
        db, monkeypatch):
    """Every connection of the pool ended (a server restart): the read
    meets them in turn, each failing at once, runs again without a
    pause after each, and is answered on a new one."""
    _server_only(db)
    sessions = _pooled_sessions(db, 3)
    for session in sessions:
        db_sessions.end(db.engine.url, session)

    def pause(_attempts):
        raise AssertionError('paused between attempts')
    monkeypatch.setattr(db_api, '_backoff', pause)
    assert db.read(db_api.read_committed(db_sessions.own_id)) not in sessions
    assert db.engine.pool.checkedout() == 0


def test_stream_whose_connection_the_server_ended_logs_no_error(
        db, caplog):
    """The server ends the connection of a streamed read once its last
    rows came: closing its cursor then fails, and that is no ERROR
    traceback in the log (the lost connection is the expected condition
    it is, met again by the COMMIT or the next statement); the read is
    answered."""
    _server_only(db)
    count = db_api.BATCH * 2 + db_api.BATCH // 2
    numbers = {
        'mysql': f'SELECT seq FROM seq_1_to_{count}',
        'postgresql': f'SELECT generate_series(1, {count})'}[db.backend]
    sessions = []

    def stream_then_lose_connection(conn):
        sessions.append(db_sessions.own_id(conn))
        rows = 0
        for batch in db_api.streamed(conn, sa.text(numbers)):
            rows += len(batch)
            if rows == count and len(sessions) == 1:
                db_sessions.end(db.engine.url, sessions[0])
        return rows

    with caplog.at_level('DEBUG'):
        assert db.read(stream_then_lose_connection) == count
    assert [record.getMessage() for record in caplog.records
            if record.levelname == 'ERROR'] == []


def test_write_whose_commit_lost_its_connection_says_so(api, db):
    """The connection of a claim is ended as its COMMIT is sent: the
    outcome is unknown to the service, and the 503 says so, for the
    client to read the allocations back rather than take the claim as
    refused."""
    _server_only(db)
    rp_uuid = api.provider({'VCPU': {'total': 4}})
    engine = api.db.engine

    def end_session_before_commit(conn):
        db_sessions.end(db.engine.url, db_sessions.own_id(conn))

    sa.event.listen(engine, 'commit', end_session_before_commit)
    consumer = str(uuid.uuid4())
    try:
        response = api.claim(rp_uuid, consumer)
    finally:
        sa.event.remove(engine, 'commit', end_session_before_commit)
    _assert_503(response)
    assert 'may or may not have been made' in (
        response.json['errors'][0]['detail'])
    assert _allocations(db, consumer) == 0
    assert api.claim(rp_uuid, consumer).status_int == 204
