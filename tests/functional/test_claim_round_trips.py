"""The round trips to the database of a claim (PUT /allocations).

A claim's time is nearly all waiting on the database, one round trip
after another: these tests pin how many a claim makes, so that an added
statement is a deliberate choice. Counted: the statements the service
sends (not SQLite's BEGIN, which MySQL and PostgreSQL do not send as a
statement of their own), the COMMIT, and the pool's connection pings
(none: a stale connection is found by its first statement instead).
"""

import uuid

import pytest

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
