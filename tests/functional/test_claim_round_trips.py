"""The round trips to the database of a claim (PUT /allocations).

A claim's time is nearly all waiting on the database, one round trip
after another: these tests pin how many a claim makes, so that an added
statement is a deliberate choice. Counted: the statements the service
sends (not SQLite's BEGIN, which MySQL and PostgreSQL do not send as a
statement of their own), the COMMIT, and the pool's connection pings
(none: a stale connection is found by its first statement instead).
And the plan of its read: by index, whatever the number of providers.
"""

import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from tests.functional import app as app_client
from tests.functional import round_trips

pytestmark = pytest.mark.db


def _claim(api, consumer, rp_uuid, generation=None):
    response = api.request('PUT', f'/allocations/{consumer}', body={
        'allocations': {rp_uuid: {'resources': {'VCPU': 2,
                                                'MEMORY_MB': 512}}},
        'project_id': 'project', 'user_id': 'user',
        'consumer_type': 'INSTANCE', 'consumer_generation': generation})
    assert response.status_int == 204, response.text


@pytest.fixture
def api(wsgi_stack):
    application, db = wsgi_stack
    api = app_client.API(application, db)
    rp_uuid = api.provider({'VCPU': {'total': 64},
                            'MEMORY_MB': {'total': 65536}})
    # The project, user and consumer type exist, as they do for all but
    # a project's first claim.
    _claim(api, str(uuid.uuid4()), rp_uuid)
    return api, rp_uuid


def test_claim_of_a_new_consumer(api):
    api, rp_uuid = api
    with round_trips.RoundTrips(api.db.engine) as trips:
        _claim(api, str(uuid.uuid4()), rp_uuid)
    # The consumers, their allocations and owners' ids, and the
    # providers' generations, inventories and usage; the consumer; the
    # allocations; last, the providers' generations, locked until the
    # COMMIT only.
    assert trips.statements == ['SELECT', 'INSERT', 'INSERT', 'UPDATE']
    assert (trips.commits, trips.pings, trips.rollbacks) == (1, 0, 0)


def test_claim_replacing_a_consumers_allocations(api):
    api, rp_uuid = api
    consumer = str(uuid.uuid4())
    _claim(api, consumer, rp_uuid)
    with round_trips.RoundTrips(api.db.engine) as trips:
        _claim(api, consumer, rp_uuid, generation=1)
    assert trips.statements == [
        'SELECT', 'UPDATE', 'DELETE', 'INSERT', 'UPDATE']
    assert (trips.commits, trips.pings) == (1, 0)


def _plan(conn, backend, statement, parameters):
    """What the database says it would do for ``statement``, as text."""
    explain = {'sqlite': 'EXPLAIN QUERY PLAN ', 'mysql': 'EXPLAIN ',
               'postgresql': 'EXPLAIN '}[backend]
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        cursor.execute(explain + statement, parameters)
        return [' '.join(str(column) for column in row)
                for row in cursor.fetchall()]
    finally:
        cursor.close()


def _scans_providers(backend, plan):
    """Whether ``plan`` reads every provider rather than by an index."""
    if backend == 'mysql':
        # table, then type: ALL (the rows) or index (a whole index).
        return any(' resource_providers ALL ' in line
                   or ' resource_providers index ' in line
                   for line in plan)
    if backend == 'postgresql':
        return any('Seq Scan on resource_providers' in line
                   for line in plan)
    return any('SCAN resource_providers' in line for line in plan)


def test_claim_reads_its_provider_by_index(api):
    """The read of a claim finds the provider by its uuid, not by a scan
    of every provider: the cost of a claim does not grow with the cloud
    (an OR of the uuids with a subquery scanned them on MySQL and
    PostgreSQL)."""
    api, rp_uuid = api
    backend = api.db.backend
    with api.db.writer() as conn:
        conn.execute(sa.insert(app_client.RP), [
            {'uuid': str(uuid.uuid4()), 'name': f'rp-{n}', 'generation': 0}
            for n in range(2000)])
        conn.execute(sa.update(app_client.RP).where(
            app_client.RP.c.root_provider_id.is_(None)).values(
                root_provider_id=app_client.RP.c.id))
    with api.db.engine.connect() as conn:
        conn.exec_driver_sql({
            'mysql': 'ANALYZE TABLE resource_providers, inventories, '
                     'allocations, consumers',
            'postgresql': 'ANALYZE', 'sqlite': 'ANALYZE'}[backend])
        conn.commit()
    reads = []

    def _read(_conn, _cursor, statement, parameters, *_args):
        if statement.startswith('SELECT') and not reads:
            reads.append((statement, parameters))
    event.listen(api.db.engine, 'before_cursor_execute', _read)
    try:
        _claim(api, str(uuid.uuid4()), rp_uuid)
    finally:
        event.remove(api.db.engine, 'before_cursor_execute', _read)
    with api.db.engine.connect() as conn:
        plan = _plan(conn, backend, *reads[0])
    assert not _scans_providers(backend, plan), plan
