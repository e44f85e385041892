"""A row lock held longer than ``lock_wait_timeout`` gives a clean 409.

Another connection holds the provider's row locked (on SQLite: the
database's write lock) while the API writes to that provider: the write
waits ``lock_wait_timeout``, is run again, and is then answered 409
placement.concurrent_update without changing anything, instead of
waiting for the lock holder; reads are not blocked. Once the lock is
released the same write succeeds.
"""

import contextlib
import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from placement.db import models
from tests.functional import app as app_client

pytestmark = pytest.mark.db

_RP = models.ResourceProvider.__table__


@pytest.fixture
def api(db_url):
    application, db = app_client.build_stack(
        db_url, placement_database__lock_wait_timeout=1,
        placement_database__transaction_retry_count=1)
    try:
        yield app_client.API(application, db)
    finally:
        db.dispose()


def test_write_blocked_by_a_held_lock_is_a_clean_409(api, db):
    rp_uuid = api.provider({'VCPU': {'total': 4}})
    consumer = str(uuid.uuid4())
    with db.writer() as holder:
        holder.execute(sa.update(_RP).where(_RP.c.uuid == rp_uuid)
                       .values(name=_RP.c.name))
        response = api.claim(rp_uuid, consumer)
        assert response.status_int == 409, response.text
        assert response.json['errors'][0]['code'] == (
            'placement.concurrent_update')
        inventory = api.request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories/VCPU',
            body={'total': 8, 'resource_provider_generation': 1})
        assert inventory.status_int == 409, inventory.text
        assert api.request(
            'GET', f'/resource_providers/{rp_uuid}').status_int == 200
    assert api.request(
        'GET', f'/allocations/{consumer}').json['allocations'] == {}
    assert api.claim(rp_uuid, consumer).status_int == 204
    assert api.request(
        'GET', f'/resource_providers/{rp_uuid}/inventories/VCPU'
    ).json['total'] == 4


#: How long the other connection holds the rows: far longer than the
#: wait allowed, so that an answer before the holder lets go is the bound
#: at work, not the holder's release.
_HOLD = 12
#: lock_wait_timeout of :func:`api` (1 s): the first attempt waits it,
#: the retry as much again; the rest is the retry's pause and a machine
#: shared with other work. A generous bound: the feature is a time bound.
_BOUND = 2 * 1 + 3


@contextlib.contextmanager
def _rows_held(db):
    """Every provider row locked by another connection (SELECT ... FOR
    UPDATE; on SQLite the database's write lock), in a transaction left
    open, released after :data:`_HOLD` seconds at the latest."""
    done = threading.Event()
    locked = threading.Event()

    def hold():
        with db.writer() as holder:
            if db.backend == 'sqlite':
                holder.execute(sa.update(_RP).values(name=_RP.c.name))
            else:
                holder.execute(sa.select(_RP.c.id).with_for_update()).all()
            locked.set()
            done.wait(_HOLD)

    holder = threading.Thread(target=hold)
    holder.start()
    locked.wait()
    try:
        yield
    finally:
        done.set()
        holder.join()


def _child(api, rp_uuid):
    child = str(uuid.uuid4())
    return api.request('POST', '/resource_providers', body={
        'name': child, 'uuid': child, 'parent_provider_uuid': rp_uuid})


_WRITES = {
    'claim': lambda api, rp_uuid: api.claim(rp_uuid, str(uuid.uuid4())),
    'inventory': lambda api, rp_uuid: api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories/VCPU',
        body={'total': 8, 'resource_provider_generation': 1}),
    'traits': lambda api, rp_uuid: api.request(
        'PUT', f'/resource_providers/{rp_uuid}/traits',
        body={'traits': ['HW_CPU_X86_AVX'],
              'resource_provider_generation': 1}),
    'child': _child,
    'delete': lambda api, rp_uuid: api.request(
        'DELETE', f'/resource_providers/{rp_uuid}'),
}


@pytest.mark.parametrize('write', sorted(_WRITES))
def test_a_write_waits_for_held_rows_at_most_twice_the_timeout(
        api, db, write):
    """Issue 29: each backend's wait is measured and bounded by
    lock_wait_timeout plus the retry's own wait."""
    rp_uuid = api.provider({'VCPU': {'total': 4}})
    with _rows_held(db):
        started = time.monotonic()
        response = _WRITES[write](api, rp_uuid)
        waited = time.monotonic() - started
    assert response.status_int == 409, response.text
    assert response.json['errors'][0]['code'] == (
        'placement.concurrent_update')
    assert waited < _BOUND, f'{write} waited {waited:.1f} s'


# What each backend's sessions say with lock_wait_timeout=3 and
# statement_timeout=30 (SQLite has no statement limit); PostgreSQL's
# without JIT compilation.
_SESSION_SETTINGS = {
    'sqlite': [('PRAGMA busy_timeout', '3000')],
    'mysql': [('SELECT @@SESSION.innodb_lock_wait_timeout', '3'),
              ('SELECT @@SESSION.max_statement_time', '30.0'),
              ('SELECT @@SESSION.group_concat_max_len', '16777216')],
    'postgresql': [('SHOW lock_timeout', '3s'),
                   ('SHOW statement_timeout', '30s'),
                   ('SHOW jit', 'off')],
}


def test_every_session_has_the_configured_waits(db_url):
    application, db = app_client.build_stack(
        db_url, placement_database__lock_wait_timeout=3,
        placement_database__statement_timeout=30)

    def settings(conn):
        return [(query, str(conn.exec_driver_sql(query).scalar()))
                for query, _expected in _SESSION_SETTINGS[db.backend]]
    try:
        assert db.read(settings) == _SESSION_SETTINGS[db.backend]
        assert db.write(settings) == _SESSION_SETTINGS[db.backend]
    finally:
        db.dispose()
