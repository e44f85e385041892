"""The round trips to the database of what a bulk loader sends per
provider: POST /resource_providers, then PUT .../inventories, PUT
.../traits and PUT .../aggregates on the new provider (see
tools/bench_allocation_candidates and tools/bench_loading).

Each is one transaction; the provider of a sub-resource URL is found
by the handler's transaction, not by a check of its own before it (the
404 of a missing provider still comes first, also before a bad body);
what a write stored is not read back.
"""

import uuid

import pytest
import sqlalchemy as sa

from tests.functional import round_trips

pytestmark = pytest.mark.db


def _create(api):
    rp_uuid = str(uuid.uuid4())
    response = api.request('POST', '/resource_providers',
                           body={'name': rp_uuid, 'uuid': rp_uuid})
    assert response.status_int == 200, response.text
    return rp_uuid


def _put(api, rp_uuid, what, values, generation=0):
    return api.request(
        'PUT', f'/resource_providers/{rp_uuid}/{what}',
        body={what: values, 'resource_provider_generation': generation})


@pytest.fixture
def loaded_api(api):
    """A provider in aggregate AGG already, so that it exists."""
    rp_uuid = _create(api)
    assert _put(api, rp_uuid, 'aggregates', [AGG]).status_int == 200
    return api


AGG = str(uuid.uuid4())


def test_post_resource_provider(loaded_api):
    with round_trips.RoundTrips(loaded_api.db.engine) as trips:
        _create(loaded_api)
    # The provider; its root is itself. A root is inserted without
    # looking for its name and uuid first, in a plain writer
    # transaction (no tree to lock, no isolation level to set).
    assert trips.statements == ['INSERT', 'UPDATE']
    assert (trips.commits, trips.pings, trips.isolation_changes,
            trips.rollbacks) == (1, 0, 0, 0)


def test_post_resource_provider_with_a_taken_name(loaded_api):
    """The insert fails; a second transaction looks and names it."""
    taken = _create(loaded_api)
    with round_trips.RoundTrips(loaded_api.db.engine) as trips:
        response = loaded_api.request('POST', '/resource_providers', body={
            'name': taken, 'uuid': str(uuid.uuid4())})
    assert response.status_int == 409, response.text
    assert response.json['errors'][0]['detail'].endswith(
        f'Conflicting resource provider name: {taken} already exists.')
    backend = loaded_api.db.backend
    read_committed = ['SET'] if backend == 'mysql' else []
    assert trips.statements == ['INSERT', *read_committed, 'SELECT']
    # Each transaction rolled back once, by the service, not the pool.
    assert (trips.commits, trips.rollbacks) == (0, 2)


def test_put_traits_of_a_new_provider(loaded_api):
    rp_uuid = _create(loaded_api)
    with round_trips.RoundTrips(loaded_api.db.engine) as trips:
        response = _put(loaded_api, rp_uuid, 'traits',
                        ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE'])
    assert response.status_int == 200, response.text
    assert response.json['resource_provider_generation'] == 1
    # The provider, the traits' ids and its current traits; its
    # generation; the new links.
    assert trips.statements == ['SELECT', 'UPDATE', 'INSERT']
    assert (trips.commits, trips.pings) == (1, 0)


def test_put_the_traits_a_provider_has(loaded_api):
    """Nothing changes: one read, which also checks the generation."""
    rp_uuid = _create(loaded_api)
    traits = ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE']
    assert _put(loaded_api, rp_uuid, 'traits', traits).status_int == 200
    with round_trips.RoundTrips(loaded_api.db.engine) as trips:
        response = _put(loaded_api, rp_uuid, 'traits', traits, 1)
        stale = _put(loaded_api, rp_uuid, 'traits', traits, 0)
    assert response.status_int == 200, response.text
    assert response.json['resource_provider_generation'] == 1
    assert stale.status_int == 409, stale.text
    assert stale.json['errors'][0]['code'] == 'placement.concurrent_update'
    assert stale.json['errors'][0]['detail'].endswith(
        'Please update the generation and try again. actual: 1, given: 0.')
    assert trips.statements == ['SELECT', 'SELECT']


def test_put_inventories_of_a_new_provider(loaded_api):
    rp_uuid = _create(loaded_api)
    with round_trips.RoundTrips(loaded_api.db.engine) as trips:
        response = _put(loaded_api, rp_uuid, 'inventories', {
            'VCPU': {'total': 8}, 'DISK_GB': {'total': 100}})
    assert response.status_int == 200, response.text
    assert response.json['resource_provider_generation'] == 1
    # The provider; its generation; the classes' ids and its current
    # inventories; the new rows, not read back.
    assert trips.statements == ['SELECT', 'UPDATE', 'SELECT', 'INSERT']
    assert (trips.commits, trips.pings) == (1, 0)
    stored = loaded_api.request(
        'GET', f'/resource_providers/{rp_uuid}/inventories')
    assert stored.json == response.json
    assert stored.headers['Last-Modified'] == response.headers[
        'Last-Modified']


def test_put_aggregates_of_a_new_provider(loaded_api):
    rp_uuid = _create(loaded_api)
    with round_trips.RoundTrips(loaded_api.db.engine) as trips:
        response = _put(loaded_api, rp_uuid, 'aggregates', [AGG])
    assert response.status_int == 200, response.text
    assert response.json['resource_provider_generation'] == 1
    # The provider, the aggregates' ids and its current aggregates; its
    # generation; the new links.
    assert trips.statements == ['SELECT', 'UPDATE', 'INSERT']
    assert (trips.commits, trips.pings) == (1, 0)


def test_put_replacing_traits_and_aggregates(loaded_api):
    """Links removed and added, a new aggregate created: the same
    statement finds the wanted ids and the current links."""
    rp_uuid = _create(loaded_api)
    assert _put(loaded_api, rp_uuid, 'traits',
                ['HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE']).status_int == 200
    assert _put(loaded_api, rp_uuid, 'aggregates', [AGG], 1).status_int == 200
    new_agg = str(uuid.uuid4())
    response = _put(loaded_api, rp_uuid, 'traits',
                    ['HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2'], 2)
    assert response.status_int == 200, response.text
    response = _put(loaded_api, rp_uuid, 'aggregates', [new_agg], 3)
    assert response.status_int == 200, response.text
    traits = loaded_api.request('GET', f'/resource_providers/{rp_uuid}/traits')
    assert traits.json == {'traits': ['HW_CPU_X86_SSE', 'HW_CPU_X86_SSE2'],
                           'resource_provider_generation': 4}
    aggs = loaded_api.request(
        'GET', f'/resource_providers/{rp_uuid}/aggregates')
    assert aggs.json == {'aggregates': [new_agg],
                         'resource_provider_generation': 4}
    # And to none: only the current links are read.
    assert _put(loaded_api, rp_uuid, 'traits', [], 4).status_int == 200
    assert _put(loaded_api, rp_uuid, 'aggregates', [], 5).status_int == 200
    traits = loaded_api.request('GET', f'/resource_providers/{rp_uuid}/traits')
    assert traits.json == {'traits': [], 'resource_provider_generation': 6}


@pytest.mark.parametrize('what', ['traits', 'aggregates', 'inventories'])
def test_missing_provider_is_404_before_a_bad_body(api, what):
    missing = str(uuid.uuid4())
    for body in ({'bad': 'body'}, {what: {} if what == 'inventories' else [],
                                    'resource_provider_generation': 0}):
        response = api.request(
            'PUT', f'/resource_providers/{missing}/{what}', body=body)
        assert response.status_int == 404, response.text
        assert response.json['errors'][0]['detail'].endswith(
            f'No resource provider with uuid {missing} found')


def test_read_committed_write_sees_what_committed_during_it(api):
    """The tree writes run at READ COMMITTED: a row committed by another
    transaction after their first read is seen by the next; the
    connection's next transaction is back at the default level."""
    if api.db.backend == 'sqlite':
        pytest.skip('SQLite runs one writer at a time')
    rp = sa.table('resource_providers', sa.column('id'))
    count = sa.select(sa.func.count()).select_from(rp)
    with api.db.writer(read_committed=True) as conn:
        before = conn.scalar(count)
        _create(api)
        assert conn.scalar(count) == before + 1
    if api.db.backend == 'mysql':
        with api.db.writer() as conn:   # REPEATABLE READ: a snapshot
            before = conn.scalar(count)
            _create(api)
            assert conn.scalar(count) == before
