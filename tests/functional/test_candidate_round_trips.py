"""The round trips to the database of GET /allocation_candidates.

Each statement is a round trip and a parse of its rows in the driver's
Python: these tests pin how many the scheduler's member_of + required
query makes (a sharing provider in the aggregate, as the benchmark's
cloud has), so that an added statement is a deliberate choice.
"""

import uuid

import pytest
from sqlalchemy import event

from tests.functional import round_trips

pytestmark = pytest.mark.db

AGGREGATE = str(uuid.uuid4())
QUERY = ('/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'
         f'&member_of=in:{AGGREGATE}&required=CUSTOM_FAST')


def _ok(response):
    assert response.status_int < 300, response.text
    return response


def _arrange(api, rp_uuid, traits=(), aggregates=()):
    generation = 1
    if traits:
        _ok(api.request('PUT', f'/resource_providers/{rp_uuid}/traits',
                        body={'traits': list(traits),
                              'resource_provider_generation': generation}))
        generation += 1
    if aggregates:
        _ok(api.request('PUT', f'/resource_providers/{rp_uuid}/aggregates',
                        body={'aggregates': list(aggregates),
                              'resource_provider_generation': generation}))


@pytest.fixture
def cloud(api):
    """Four hosts in the aggregate (two FAST, one of them full), one
    FAST host outside it, and a sharing provider of disk in it."""
    _ok(api.request('PUT', '/traits/CUSTOM_FAST'))
    hosts = {}
    for name, traits, aggregates in (
            ('fast', ['CUSTOM_FAST'], [AGGREGATE]),
            ('fast_used', ['CUSTOM_FAST'], [AGGREGATE]),
            ('slow', [], [AGGREGATE]),
            ('slow2', [], [AGGREGATE]),
            ('outside', ['CUSTOM_FAST'], [])):
        hosts[name] = api.provider({'VCPU': {'total': 4},
                                    'MEMORY_MB': {'total': 4096}})
        _arrange(api, hosts[name], traits, aggregates)
    api.allocate(hosts['fast_used'], 'VCPU', 4)
    api.allocate(hosts['fast'], 'VCPU', 1)
    hosts['disk'] = api.provider({'DISK_GB': {'total': 100}})
    _arrange(api, hosts['disk'], ['MISC_SHARES_VIA_AGGREGATE'], [AGGREGATE])
    return api, hosts


@pytest.mark.parametrize('limit', ['', '&limit=1000'])
def test_member_of_and_required_with_sharing_is_three_statements(
        cloud, limit):
    """The look-up of names with the sharing providers and may_match's
    tests; the narrowing of the window with the roots the sharing
    provider is shared with; the trees with their usage. The
    inventories and traits of the trees' providers are one statement
    more the first time, kept by the worker after."""
    api, hosts = cloud
    with round_trips.RoundTrips(api.db.engine) as trips:
        first = _ok(api.request('GET', QUERY + limit)).json
    assert trips.statements == ['SELECT'] * 4
    with round_trips.RoundTrips(api.db.engine) as trips:
        found = _ok(api.request('GET', QUERY + limit)).json
    assert trips.executed == 3
    assert found == first
    assert [{rp: sorted(resources['resources'])
             for rp, resources in candidate['allocations'].items()}
            for candidate in found['allocation_requests']] == [
        {hosts['fast']: ['MEMORY_MB', 'VCPU'],
         hosts['disk']: ['DISK_GB']}]
    summaries = found['provider_summaries']
    assert set(summaries) == {hosts['fast'], hosts['disk']}
    assert summaries[hosts['fast']]['traits'] == ['CUSTOM_FAST']
    assert summaries[hosts['disk']]['traits'] == [
        'MISC_SHARES_VIA_AGGREGATE']
    assert summaries[hosts['fast']]['resources']['VCPU'] == {
        'capacity': 4, 'used': 1}


@pytest.mark.parametrize('limit', ['', '&limit=1000'])
def test_a_request_asked_again_runs_its_three_statements_from_their_sql(
        cloud, limit):
    """The look-up, the narrowing and the trees' load are kept built:
    asked again, a request runs the SQL of their first run, none
    compiled; on PostgreSQL and MariaDB prepared once per connection
    (the second time), then executed."""
    api, hosts = cloud
    requests = []

    def noted(_conn, _cursor, statement, _parameters, context, _many):
        if not statement.startswith('BEGIN'):  # SQLite's
            requests[-1].append(
                (statement.split()[0], context.compiled is not None))

    answers = []
    event.listen(api.db.engine, 'before_cursor_execute', noted)
    try:
        for _ in range(3):
            requests.append([])
            answers.append(_ok(api.request('GET', QUERY + limit)).json)
    finally:
        event.remove(api.db.engine, 'before_cursor_execute', noted)
    assert len(answers[0]['allocation_requests']) == 1
    assert answers[1:] == answers[:1] * 2
    # The fourth: the texts of the trees' providers, kept after.
    assert requests[0] == [('SELECT', True)] * 4
    if api.db.backend == 'sqlite':
        assert requests[1:] == [[('SELECT', False)] * 3] * 2
    else:
        assert requests[1:] == [[('PREPARE', False), ('EXECUTE', False)] * 3,
                                [('EXECUTE', False)] * 3]


def test_a_request_that_can_match_nothing_is_one_statement(cloud):
    """may_match's tests come with the names: a required trait nobody
    has answers after one statement."""
    api, _ = cloud
    _ok(api.request('PUT', '/traits/CUSTOM_NOBODY'))
    with round_trips.RoundTrips(api.db.engine) as trips:
        found = _ok(api.request(
            'GET', QUERY.replace('CUSTOM_FAST', 'CUSTOM_NOBODY')
            + '&limit=10')).json
    assert found['allocation_requests'] == []
    assert trips.statements == ['SELECT']


def test_groups_of_different_queries_are_narrowed_by_one_statement(api):
    """Each distinct group has its narrowing query, and a window's
    queries are one statement."""
    _ok(api.request('PUT', '/traits/CUSTOM_PHYSNET_A'))
    host = api.provider({'VCPU': {'total': 4}})
    nic = str(uuid.uuid4())
    _ok(api.request('POST', '/resource_providers', body={
        'name': 'nic', 'uuid': nic, 'parent_provider_uuid': host}))
    _ok(api.request('PUT', f'/resource_providers/{nic}/inventories', body={
        'inventories': {'SRIOV_NET_VF': {'total': 2}},
        'resource_provider_generation': 0}))
    _arrange(api, nic, ['CUSTOM_PHYSNET_A'])
    with round_trips.RoundTrips(api.db.engine) as trips:
        found = _ok(api.request(
            'GET', '/allocation_candidates?resources=VCPU:1'
            '&resources1=SRIOV_NET_VF:1&required1=CUSTOM_PHYSNET_A')).json
    # The look-up, the narrowing, the tree and its providers' texts.
    assert trips.statements == ['SELECT'] * 4
    assert [candidate['mappings'] for candidate
            in found['allocation_requests']] == [{'': [host], '1': [nic]}]
