"""The round trips to the database of a read of a consumer's allocations
(GET /allocations/{consumer}): one statement, which reads the
allocations with what is shown of the consumer (its generation, project,
user and type); a consumer without a record shows its allocations only.
"""

import uuid

import pytest
import sqlalchemy as sa

from tests.functional import round_trips

pytestmark = pytest.mark.db


def _read(api, consumer, version='latest'):
    with round_trips.RoundTrips(api.db.engine) as trips:
        response = api.request('GET', f'/allocations/{consumer}',
                               version=version)
    assert response.status_int == 200, response.text
    assert trips.statements == ['SELECT']
    # No BEGIN on PostgreSQL either: one statement needs no transaction.
    assert (trips.commits, trips.pings, trips.begins) == (1, 0, 0)
    return response


def test_one_statement_reads_the_allocations_and_the_consumer(api):
    first, second = api.provider(), api.provider()
    consumer, project, user = (str(uuid.uuid4()) for _ in range(3))
    response = api.request('PUT', f'/allocations/{consumer}', body={
        'allocations': {first: {'resources': {'VCPU': 2, 'DISK_GB': 10}},
                        second: {'resources': {'MEMORY_MB': 512}}},
        'consumer_generation': None, 'project_id': project,
        'user_id': user, 'consumer_type': 'MIGRATION'})
    assert response.status_int == 204, response.text
    response = _read(api, consumer)
    assert response.json == {
        'allocations': {
            first: {'generation': 2,
                    'resources': {'VCPU': 2, 'DISK_GB': 10}},
            second: {'generation': 2, 'resources': {'MEMORY_MB': 512}}},
        'consumer_generation': 1, 'project_id': project, 'user_id': user,
        'consumer_type': 'MIGRATION'}
    assert 'Last-Modified' in response.headers
    # Before consumer types (1.38) and generations (1.28).
    assert _read(api, consumer, version='1.27').json == {
        'allocations': response.json['allocations'],
        'project_id': project, 'user_id': user}


def test_a_consumer_without_a_record_shows_its_allocations_only(api):
    rp_uuid = api.provider()
    api.allocate(rp_uuid, 'VCPU', 3)
    with api.db.reader() as conn:
        consumer = conn.scalar(sa.select(
            sa.column('consumer_id')).select_from(sa.table('allocations')))
    response = _read(api, consumer)
    assert response.json == {'allocations': {
        rp_uuid: {'generation': 1, 'resources': {'VCPU': 3}}}}


def test_a_consumer_without_allocations_is_an_empty_body(api):
    response = _read(api, str(uuid.uuid4()))
    assert response.json == {'allocations': {}}
