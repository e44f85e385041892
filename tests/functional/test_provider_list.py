"""GET /resource_providers is serialised as the rows stream from the
database (util.SerialisedArray, db.api.streamed): every provider, in id
order, over many chunks, with the latest change as Last-Modified."""

import datetime
import urllib.parse
import uuid

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


NAMES = ['quote " and backslash \\ here', 'tab\tnew\nline', 'é ü 中文 😀',
         '</script> & <b>', 'x\u0001y', 'trailing space ']


def test_a_listing_of_a_tree_shows_names_and_uuids_as_stored(api,
                                                             monkeypatch):
    """Rows folded into JSON by the database (MariaDB) read back as
    they are stored: names with quotes, backslashes, control and
    non-ASCII characters, parents and roots; the same JSON as GET of
    each provider."""
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    uuids = []
    for index, name in enumerate(NAMES):
        rp_uuid = str(uuid.uuid4())
        body = {'name': name, 'uuid': rp_uuid}
        if index:
            body['parent_provider_uuid'] = uuids[index // 2]
        response = api.request('POST', '/resource_providers', body=body)
        assert response.status_int == 200, response.text
        uuids.append(rp_uuid)
    response = api.request('GET', '/resource_providers')
    assert response.status_int == 200, response.text
    listed = response.json['resource_providers']
    assert [provider['name'] for provider in listed] == NAMES
    for provider in listed:
        one = api.request('GET', f'/resource_providers/{provider["uuid"]}')
        assert one.json == provider
    for name in NAMES:
        response = api.request('GET', '/resource_providers?' +
                               urllib.parse.urlencode({'name': name}))
        assert [p['name'] for p in response.json['resource_providers']] == [
            name]
