"""Consumer generations for allocations that have no consumer record.

The case "existing allocations but no consumer record" of the consumer
generation spec (consumer-generations-spec.zh.txt): allocations written
before 1.8 whose record the online data migration has not created yet.
The API cannot make them, so the rows are inserted directly; every other
case of the spec is in gabbits/consumer-generations.yaml.

PUT /allocations/{uuid} and POST /allocations always succeed before 1.28
and create the record (with the incomplete project and user before 1.8);
from 1.28 the request must say ``consumer_generation: null``.
"""

import pytest
import sqlalchemy as sa

from placement.db import models
from tests.functional import legacy_data
from tests.functional.app import assert_error

pytestmark = pytest.mark.db

RP = models.ResourceProvider.__table__
CONSUMER = models.Consumer.__table__
INCOMPLETE = ('00000000-0000-0000-0000-000000000000',
              '00000000-0000-0000-0000-000000000000')
OWNER = ('6f1e2d3c-4b5a-4968-8776-655443322110',
         '7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d')


def _legacy_consumer(api):
    """A provider with one consumer-less allocation of VCPU: 1.

    Returns the provider and consumer uuids.
    """
    with api.db.writer() as conn:
        rp_id = legacy_data.add_provider(conn, 'legacy', with_root=True)
        [consumer] = legacy_data.add_consumerless_allocations(
            conn, rp_id, 1)
        rp_uuid = conn.scalar(sa.select(RP.c.uuid).where(RP.c.id == rp_id))
    return rp_uuid, consumer


def _has_record(api, consumer):
    with api.db.reader() as conn:
        return conn.scalar(sa.select(CONSUMER.c.id).where(
            CONSUMER.c.uuid == consumer)) is not None


def _body(version, rp_uuid, vcpu, generation):
    """One consumer's allocations as microversion 1.``version`` takes it."""
    if version < 12:
        body = {'allocations': [{'resource_provider': {'uuid': rp_uuid},
                                 'resources': {'VCPU': vcpu}}]}
    else:
        body = {'allocations': {rp_uuid: {'resources': {'VCPU': vcpu}}}}
    if version >= 8:
        body.update(project_id=OWNER[0], user_id=OWNER[1])
    if version >= 28:
        body['consumer_generation'] = generation
    return body


def _assert_written(api, consumer, rp_uuid, owner):
    """The consumer now has a record at generation 1 and VCPU: 2."""
    response = api.request('GET', f'/allocations/{consumer}', '1.28')
    assert response.status_int == 200, response.text
    assert response.json == {
        'allocations': {rp_uuid: {'generation': 1,
                                  'resources': {'VCPU': 2}}},
        'consumer_generation': 1,
        'project_id': owner[0], 'user_id': owner[1]}


def _assert_untouched(api, consumer, rp_uuid):
    assert not _has_record(api, consumer)
    response = api.request(
        'GET', f'/resource_providers/{rp_uuid}/allocations', '1.28')
    assert response.json['allocations'][consumer]['resources'] == {
        'VCPU': 1}
    assert response.json['resource_provider_generation'] == 0


@pytest.mark.parametrize('version, owner', [
    (0, INCOMPLETE), (7, INCOMPLETE), (8, OWNER), (12, OWNER),
    (27, OWNER), (28, OWNER), (39, OWNER)])
def test_put_creates_the_record(api, version, owner):
    rp_uuid, consumer = _legacy_consumer(api)
    body = _body(version, rp_uuid, 2, None)
    if version >= 38:
        body['consumer_type'] = 'INSTANCE'
    response = api.request(
        'PUT', f'/allocations/{consumer}', f'1.{version}', body)
    assert response.status_int == 204, response.text
    _assert_written(api, consumer, rp_uuid, owner)


@pytest.mark.parametrize('generation', [0, 1])
def test_put_at_1_28_needs_a_null_generation(api, generation):
    rp_uuid, consumer = _legacy_consumer(api)
    response = api.request('PUT', f'/allocations/{consumer}', '1.28',
                           _body(28, rp_uuid, 2, generation))
    assert_error(response, 409, 'placement.concurrent_update')
    _assert_untouched(api, consumer, rp_uuid)


@pytest.mark.parametrize('version', [13, 27, 28])
def test_post_creates_the_record(api, version):
    rp_uuid, consumer = _legacy_consumer(api)
    response = api.request(
        'POST', '/allocations', f'1.{version}',
        {consumer: _body(version, rp_uuid, 2, None)})
    assert response.status_int == 204, response.text
    _assert_written(api, consumer, rp_uuid, OWNER)


def test_post_at_1_28_needs_a_null_generation(api):
    rp_uuid, consumer = _legacy_consumer(api)
    response = api.request('POST', '/allocations', '1.28',
                           {consumer: _body(28, rp_uuid, 2, 1)})
    assert_error(response, 409, 'placement.concurrent_update')
    _assert_untouched(api, consumer, rp_uuid)


def test_safe_delete_at_1_28(api):
    """Empty allocations with a null generation remove legacy ones."""
    rp_uuid, consumer = _legacy_consumer(api)
    body = _body(28, rp_uuid, 2, None)
    body['allocations'] = {}
    response = api.request('PUT', f'/allocations/{consumer}', '1.28', body)
    assert response.status_int == 204, response.text
    assert not _has_record(api, consumer)
    response = api.request('GET', f'/allocations/{consumer}', '1.28')
    assert response.json == {'allocations': {}}
