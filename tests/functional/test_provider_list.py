"""GET /resource_providers is serialised as the rows stream from the
database (util.SerialisedArray, db.api.streamed): every provider, in id
order, over many chunks, with the latest change as Last-Modified."""

import datetime

import pytest
import sqlalchemy as sa

from placement import util
from tests.functional import app

pytestmark = pytest.mark.db


def _changed(api, rp_uuid, when):
    with api.db.writer() as conn:
        conn.execute(sa.update(app.RP).where(app.RP.c.uuid == rp_uuid)
                     .values(updated_at=when))


@pytest.mark.parametrize('version', ['1.14', '1.15', 'latest'])
def test_a_listing_of_many_chunks(api, monkeypatch, version):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    uuids = [api.provider() for _ in range(5)]
    _changed(api, uuids[0], datetime.datetime(2030, 1, 1, 12, 0, 0))
    _changed(api, uuids[3], datetime.datetime(2031, 1, 1, 12, 0, 0))
    _changed(api, uuids[4], datetime.datetime(2029, 1, 1, 12, 0, 0))
    response = api.request('GET', '/resource_providers', version)
    assert response.status_int == 200, response.text
    listed = response.json['resource_providers']
    assert [provider['uuid'] for provider in listed] == uuids
    assert [provider['name'] for provider in listed] == uuids
    if version == '1.14':
        assert 'last-modified' not in response.headers
    else:
        assert response.headers['last-modified'] == (
            'Wed, 01 Jan 2031 12:00:00 GMT')


def test_a_filtered_listing_of_many_chunks(api, monkeypatch):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    small = [api.provider({'VCPU': {'total': 1}}) for _ in range(3)]
    large = [api.provider({'VCPU': {'total': 8}}) for _ in range(5)]
    response = api.request('GET', '/resource_providers?resources=VCPU:4')
    assert response.status_int == 200, response.text
    assert small
    assert [provider['uuid'] for provider
            in response.json['resource_providers']] == large


def test_an_empty_listing_is_dated_all_the_same(api):
    response = api.request('GET', '/resource_providers?name=nobody')
    assert response.status_int == 200, response.text
    assert response.json == {'resource_providers': []}
    # With nothing listed, the time of the answer stands in.
    assert 'last-modified' in response.headers
