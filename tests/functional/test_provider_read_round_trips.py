"""The round trips to the database of nova-compute's reads of one
provider's inventories, traits, aggregates and allocations (GET
/resource_providers/{uuid}/...): one statement each, which finds the
provider and its rows together; a missing provider is the same 404.
And of the provider listing (GET /resource_providers): one statement
a page. And of a provider, a trait or a resource class alone, and of
the traits and the resource classes. On PostgreSQL all of them without
a transaction (no BEGIN, no COMMIT), but the rest of a listing longer
than a page, read on a server-side cursor.
"""

import uuid

import pytest
from sqlalchemy import event

from placement.db import api as db_api
from placement.objects import kept
from placement.objects import provider_filter
from placement.objects import resource_provider
from tests.functional import round_trips

pytestmark = pytest.mark.db

AGG = str(uuid.uuid4())
#: Two consumers' allocations of the filled provider.
CONSUMERS = {str(uuid.uuid4()): {'VCPU': 2, 'DISK_GB': 10},
             str(uuid.uuid4()): {'VCPU': 1}}
INVENTORIES = {'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}}
TRAITS = ['HW_CPU_X86_SSE', 'HW_CPU_X86_AVX2']


def _provider(api, filled):
    rp_uuid = str(uuid.uuid4())
    response = api.request('POST', '/resource_providers',
                           body={'name': rp_uuid, 'uuid': rp_uuid})
    assert response.status_int == 200, response.text
    if filled:
        for generation, (what, values) in enumerate([
                ('inventories', INVENTORIES), ('traits', TRAITS),
                ('aggregates', [AGG])]):
            response = api.request(
                'PUT', f'/resource_providers/{rp_uuid}/{what}', body={
                    what: values, 'resource_provider_generation': generation})
            assert response.status_int == 200, response.text
        for consumer, resources in CONSUMERS.items():
            response = api.request('PUT', f'/allocations/{consumer}', body={
                'allocations': {rp_uuid: {'resources': resources}},
                'consumer_generation': None, 'project_id': str(uuid.uuid4()),
                'user_id': str(uuid.uuid4()), 'consumer_type': 'INSTANCE'})
            assert response.status_int == 204, response.text
    return rp_uuid


def _read(api, rp_uuid, what):
    return _read_path(api, f'/resource_providers/{rp_uuid}/{what}')


def _read_path(api, path):
    with round_trips.RoundTrips(api.db.engine) as trips:
        response = api.request('GET', path)
    assert trips.statements == ['SELECT']
    # No BEGIN on PostgreSQL either: one statement needs no transaction.
    assert (trips.commits, trips.pings, trips.begins) == (1, 0, 0)
    return response


@pytest.mark.parametrize('filled', [True, False])
def test_one_statement_reads_a_provider_and_its_rows(api, filled):
    rp_uuid = _provider(api, filled)
    # Three writes of the provider, then a claim by each consumer.
    generation = 3 + len(CONSUMERS) if filled else 0
    inventories = _read(api, rp_uuid, 'inventories')
    assert inventories.status_int == 200, inventories.text
    assert inventories.json['resource_provider_generation'] == generation
    assert sorted(inventories.json['inventories']) == (
        ['DISK_GB', 'VCPU'] if filled else [])
    # Last-Modified only when an inventory is dated, as upstream.
    assert ('Last-Modified' in inventories.headers) is filled
    traits = _read(api, rp_uuid, 'traits')
    assert traits.json == {'traits': sorted(TRAITS) if filled else [],
                           'resource_provider_generation': generation}
    assert 'Last-Modified' in traits.headers
    aggregates = _read(api, rp_uuid, 'aggregates')
    assert aggregates.json == {'aggregates': [AGG] if filled else [],
                               'resource_provider_generation': generation}
    allocations = _read(api, rp_uuid, 'allocations')
    assert allocations.json == {
        'allocations': {consumer: {'resources': resources,
                                   'consumer_generation': 1}
                        for consumer, resources in CONSUMERS.items()}
        if filled else {},
        'resource_provider_generation': generation}


@pytest.mark.parametrize('what', ['inventories', 'traits', 'aggregates',
                                  'allocations'])
@pytest.mark.parametrize('missing', [
    # Fixed: xdist's workers must collect the same parameters.
    '7d6b1b1e-3f1c-4a55-9a35-0a6a0e0f5d11', 'not-a-uuid'])
def test_a_missing_provider_is_404_in_one_statement_or_none(
        api, what, missing):
    with round_trips.RoundTrips(api.db.engine) as trips:
        response = api.request(
            'GET', f'/resource_providers/{missing}/{what}')
    assert response.status_int == 404, response.text
    assert response.json['errors'][0]['detail'].endswith(
        f'No resource provider with uuid {missing} found')
    # Not a uuid: no provider can have it, nothing is asked.
    assert trips.statements == (
        [] if missing == 'not-a-uuid' else ['SELECT'])


@pytest.mark.parametrize('path', [
    '/traits', '/traits?name=startswith:HW_', '/traits?associated=true',
    '/traits/HW_CPU_X86_AVX2', '/resource_classes',
    '/resource_classes/VCPU'])
def test_a_name_or_the_names_are_read_in_one_statement(api, path):
    response = _read_path(api, path)
    # A trait is there or not: 204, no body.
    assert response.status_int == (
        204 if path.startswith('/traits/') else 200), response.text


def test_a_provider_is_read_in_one_statement(api):
    rp_uuid = _provider(api, False)
    response = _read_path(api, f'/resource_providers/{rp_uuid}')
    assert response.status_int == 200, response.text
    assert response.json['uuid'] == rp_uuid


def test_a_listing_of_one_page_reads_without_a_transaction(api):
    """A listing of one page is one statement, without a cursor (no
    DECLARE, FETCH or CLOSE), and on PostgreSQL without a transaction
    (no BEGIN, no COMMIT): at READ COMMITTED each statement reads a
    snapshot of its own in one anyway."""
    rp_uuid = _provider(api, False)
    with round_trips.RoundTrips(api.db.engine) as trips:
        response = api.request(
            'GET', f'/resource_providers?in_tree={rp_uuid}')
    assert response.status_int == 200, response.text
    assert [provider['uuid'] for provider
            in response.json['resource_providers']] == [rp_uuid]
    assert trips.statements == ['SELECT']
    assert (trips.streamed, trips.begins) == (0, 0)


@pytest.mark.parametrize('query', ['', '?resources=VCPU:1'])
def test_a_listing_past_its_page_opens_a_transaction_for_its_cursor(
        api, monkeypatch, query):
    """The rest of a listing longer than a page is read on a server-side
    cursor, which needs a transaction on PostgreSQL: psycopg2 sends BEGIN
    before it, once, and the page before it was read without one. Read
    again, the listing is read whole on a cursor, BEGIN before it."""
    monkeypatch.setattr(db_api, 'BATCH', 2)
    # (MariaDB's listing folded: one provider a text.)
    monkeypatch.setattr(resource_provider, 'LISTED_PER_TEXT', 1)
    monkeypatch.setattr(provider_filter, '_KEPT', kept.Kept(128))
    uuids = [api.provider({'VCPU': {'total': 1}}) for _ in range(5)]
    for _ in range(2):
        with round_trips.RoundTrips(api.db.engine) as trips:
            response = api.request('GET', f'/resource_providers{query}')
        assert response.status_int == 200, response.text
        assert [provider['uuid'] for provider
                in response.json['resource_providers']] == uuids
        assert trips.streamed == 1
        assert trips.begins == (api.db.backend == 'postgresql')
    # The connection went back to the pool as it was: a write on it is
    # one transaction.
    with round_trips.RoundTrips(api.db.engine) as trips:
        response = api.request('PUT', f'/resource_providers/{uuids[0]}',
                               body={'name': 'renamed'})
    assert response.status_int == 200, response.text
    assert trips.begins == (api.db.backend == 'postgresql')


def test_a_write_after_a_read_without_a_transaction_has_one(api):
    """The connection a read ran on without a transaction returns to the
    pool as it was: the next write on it is one transaction."""
    rp_uuid = _provider(api, True)
    _read(api, rp_uuid, 'inventories')
    with round_trips.RoundTrips(api.db.engine) as trips:
        response = api.request('PUT', f'/allocations/{uuid.uuid4()}', body={
            'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
            'consumer_generation': None, 'project_id': str(uuid.uuid4()),
            'user_id': str(uuid.uuid4()), 'consumer_type': 'INSTANCE'})
    assert response.status_int == 204, response.text
    # One BEGIN, before the first statement: none without a transaction.
    assert trips.begins == (api.db.backend == 'postgresql')


def test_a_connection_opened_in_a_transaction_still_reads(api):
    """A 'connect' listener that leaves its connection in a transaction
    (as tools/bench_cpu.py's does): the read goes on in it."""

    def left_open(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        cursor.execute('SELECT 1')
        cursor.close()

    rp_uuid = _provider(api, True)
    api.db.engine.dispose()
    event.listen(api.db.engine, 'connect', left_open)
    try:
        response = api.request(
            'GET', f'/resource_providers/{rp_uuid}/inventories')
    finally:
        event.remove(api.db.engine, 'connect', left_open)
        api.db.engine.dispose()
    assert response.status_int == 200, response.text
    assert sorted(response.json['inventories']) == ['DISK_GB', 'VCPU']


def test_a_listing_runs_its_statements_kept_built_without_a_cursor(api):
    """The look-up of a listing's trait and aggregates, and the listing
    (its first page: all of it), run again from the SQL of their first
    run, prepared on PostgreSQL and MariaDB, not built and compiled at
    each request, and without a server-side cursor; on PostgreSQL
    without a transaction: the two statements alone, no BEGIN and no
    COMMIT."""
    rp_uuid = _provider(api, True)
    path = f'/resource_providers?member_of={AGG}&required=HW_CPU_X86_AVX2'
    runs = []

    def noted(_conn, _cursor, statement, _parameters, context, _many):
        runs.append((statement.split()[0], context.compiled is not None))

    event.listen(api.db.engine, 'before_cursor_execute', noted)
    try:
        for _ in range(3):
            with round_trips.RoundTrips(api.db.engine) as trips:
                response = api.request('GET', path)
            assert [provider['uuid'] for provider
                    in response.json['resource_providers']] == [rp_uuid]
    finally:
        event.remove(api.db.engine, 'before_cursor_execute', noted)
    run_again = 'SELECT' if api.db.backend == 'sqlite' else 'EXECUTE'
    assert runs[-2:] == [(run_again, False)] * 2
    assert trips.statements == [run_again] * 2
    assert (trips.streamed, trips.commits, trips.begins) == (0, 1, 0)
