"""GET /resource_providers is serialised as the rows stream from the
database (util.SerialisedArray, db.api.paged): every provider, in id
order, over many chunks, with the latest change as Last-Modified."""

import datetime
import urllib.parse
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from placement import util
from placement.db import api as db_api
from placement.objects import kept
from placement.objects import provider_filter
from placement.objects import resource_provider
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


@pytest.mark.parametrize('query', ['', '?resources=VCPU:1',
                                   '?required=!CUSTOM_NOTHING'])
def test_a_listing_longer_than_a_batch_streams_the_rest(api, monkeypatch,
                                                         query):
    """Memory stays bounded by a batch: the first page of a listing is
    read at once (a batch and one row, to know whether there is more),
    the rest on a server-side cursor a batch at a time, nothing fetched
    after a short batch; read again, a listing that went past its first
    page is read whole on a cursor, until it is short again. (Rows
    folded on MariaDB, one a text here, read the same.)"""
    monkeypatch.setattr(db_api, 'BATCH', 2)
    monkeypatch.setattr(resource_provider, 'LISTED_PER_TEXT', 1)
    monkeypatch.setattr(provider_filter, '_KEPT', kept.Kept(128))
    uuids = [api.provider() for _ in range(7)]
    if query.startswith('?required'):
        response = api.request('PUT', '/traits/CUSTOM_NOTHING')
        assert response.status_int == 201, response.text
    reads = []

    def noted(_conn, _cursor, statement, _parameters, context, _many):
        # (SQLite's BEGIN, PostgreSQL's PREPARE of a statement kept.)
        if not statement.startswith(('BEGIN', 'PREPARE')):
            reads.append(('cursor' if context.execution_options.get(
                'stream_results') else 'statement', None))

    def counted(fetch):
        def fetched(result, *args):
            rows = fetch(result, *args)
            reads.append((fetch.__name__, len(rows)))
            return rows
        return fetched

    def listed():
        reads.clear()
        response = api.request('GET', f'/resource_providers{query}')
        assert response.status_int == 200, response.text
        # (A look-up of the class or trait first, when there is one.)
        if query:
            assert reads[0] == ('statement', None)
            del reads[0]
        return [provider['uuid']
                for provider in response.json['resource_providers']]

    for method in ('fetchall', 'fetchmany'):
        monkeypatch.setattr(sa.engine.CursorResult, method,
                            counted(getattr(sa.engine.CursorResult, method)))
    event.listen(api.db.engine, 'before_cursor_execute', noted)
    try:
        assert listed() == uuids
        assert reads == [
            ('statement', None), ('fetchall', 3), ('cursor', None),
            ('fetchmany', 2), ('fetchmany', 2), ('fetchmany', 1)]
        assert listed() == uuids
        assert reads == [('cursor', None), ('fetchmany', 2),
                         ('fetchmany', 2), ('fetchmany', 2),
                         ('fetchmany', 1)]
        for rp_uuid in uuids[2:]:
            response = api.request('DELETE', f'/resource_providers/{rp_uuid}')
            assert response.status_int == 204, response.text
        assert listed() == uuids[:2]
        assert reads == [('cursor', None), ('fetchmany', 2),
                         ('fetchmany', 0)]
        assert listed() == uuids[:2]
        assert reads == [('statement', None), ('fetchall', 2)]
    finally:
        event.remove(api.db.engine, 'before_cursor_execute', noted)


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
