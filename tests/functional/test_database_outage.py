"""A database killed and restarted under load: 2xx or 503, then recovery.

A private MariaDB or PostgreSQL server (tests/functional/private_db.py)
serves the whole WSGI stack while threads write allocations and read
usages. The server is SIGKILLed, left down for a moment and started
again on the same data. Every answer must be a success or a 503 with
Retry-After (never a 500), the service must answer again within seconds
of the database's return without being restarted, and every write it
acknowledged must be in the database afterwards.
"""

import threading
import time
import uuid

import pytest
import sqlalchemy as sa
import webob

from placement.db import models
from tests.functional import app as app_client
from tests.functional import private_db

pytestmark = pytest.mark.outage

_WRITERS = 4
_OUTAGE_SECONDS = 2
# The service answers again this soon after the database accepts
# connections, or the test fails.
_RECOVERY_LIMIT = 15
_ALLOC = models.Allocation.__table__


class _Load:
    """Threads writing allocations of new consumers, one provider each."""

    def __init__(self, api, providers):
        self.api = api
        self.providers = providers
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.answers = []  # (status, Retry-After header)
        self.acknowledged = []  # consumer uuids written with a 2xx
        self.threads = [threading.Thread(target=self._write, args=(rp,))
                        for rp in providers]

    def _write(self, rp_uuid):
        # Bounded by count as well as by the stop event.
        for _ in range(5000):
            if self.stop.is_set():
                return
            consumer = str(uuid.uuid4())
            response = self.api.request(
                'PUT', f'/allocations/{consumer}', body={
                    'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
                    'project_id': 'p', 'user_id': 'u',
                    'consumer_generation': None,
                    'consumer_type': 'INSTANCE'})
            usages = self.api.request(
                'GET', f'/resource_providers/{rp_uuid}/usages')
            with self.lock:
                for answer in (response, usages):
                    self.answers.append(
                        (answer.status_int, answer.headers.get('Retry-After')))
                if response.status_int == 204:
                    self.acknowledged.append(consumer)
            if response.status_int == 503:
                time.sleep(0.05)

    def statuses(self):
        with self.lock:
            return [status for status, _ in self.answers]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)


def _wait_for(condition, limit):
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _answers_again(api, rp_uuid):
    def answering():
        return api.request(
            'GET', f'/resource_providers/{rp_uuid}/usages').status_int == 200
    return answering


@pytest.fixture(params=[private_db.MariaDB, private_db.PostgreSQL],
                ids=['mariadb', 'postgresql'])
def server(request):
    server = request.param()
    try:
        server.start()
        yield server
    finally:
        server.destroy()


def test_killed_database_is_503_then_recovers_with_every_write(server):
    url = server.create_database('placement')
    application, db = app_client.build_stack(
        url, placement_database__sync_on_startup=True)
    api = app_client.API(application, db)
    try:
        providers = [api.provider({'VCPU': {'total': 100000}})
                     for _ in range(_WRITERS)]
        with _Load(api, providers) as load:
            assert _wait_for(lambda: len(load.acknowledged) >= 20, 30)
            server.kill()
            assert _wait_for(lambda: 503 in load.statuses(), 30)
            time.sleep(_OUTAGE_SECONDS)
            server.start()
            assert _wait_for(_answers_again(api, providers[0]),
                             _RECOVERY_LIMIT)
            acknowledged_before = len(load.acknowledged)
            assert _wait_for(
                lambda: len(load.acknowledged) > acknowledged_before + 20,
                30)
        assert set(load.statuses()) <= {200, 204, 503}
        assert all(int(retry_after) > 0 for status, retry_after
                   in load.answers if status == 503)
        with db.reader() as conn:
            written = set(conn.scalars(sa.select(_ALLOC.c.consumer_id)))
        assert set(load.acknowledged) <= written
        for rp_uuid in providers:
            usages = api.request(
                'GET', f'/resource_providers/{rp_uuid}/usages').json
            allocations = api.request(
                'GET', f'/resource_providers/{rp_uuid}/allocations').json
            assert usages['usages'].get('VCPU', 0) == len(
                allocations['allocations'])
    finally:
        db.dispose()


def _health(application):
    return webob.Request.blank('/healthcheck').get_response(
        application).status_int


def test_healthcheck_follows_the_database_without_a_restart(server):
    url = server.create_database('placement')
    application, db = app_client.build_stack(
        url, placement_database__sync_on_startup=True)
    try:
        assert _health(application) == 200
        server.kill()
        assert _wait_for(lambda: _health(application) == 503, 30)
        server.start()
        assert _wait_for(lambda: _health(application) == 200,
                         _RECOVERY_LIMIT)
    finally:
        db.dispose()
