"""Resource providers where HTTP alone cannot arrange the test.

Allocation rows are inserted directly (for the usage seen by the
``resources`` filter and by DELETE), links are checked under a URL prefix
(SCRIPT_NAME), and concurrent re-parenting is checked for loops.
"""

import concurrent.futures
import json
import uuid

import pytest
import sqlalchemy as sa
import webob

from placement.db import models

pytestmark = pytest.mark.db

RP = models.ResourceProvider.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
INV = models.Inventory.__table__


class Client:
    """Requests through the whole WSGI stack as the admin."""

    def __init__(self, app, db):
        self.app = app
        self.db = db

    def __call__(self, method, path, body=None, version='latest',
                 script_name=''):
        req = webob.Request.blank(
            path, method=method, environ={'SCRIPT_NAME': script_name},
            headers={'x-auth-token': 'admin',
                     'accept': 'application/json',
                     'openstack-api-version': f'placement {version}'})
        if body is not None:
            req.content_type = 'application/json'
            req.body = json.dumps(body).encode('utf-8')
        return req.get_response(self.app)

    def create(self, name, parent=None, inventories=None):
        """A new provider; its uuid."""
        response = self('POST', '/resource_providers',
                        {'name': name, 'parent_provider_uuid': parent})
        assert response.status_int == 200, response.text
        rp_uuid = response.json['uuid']
        if inventories:
            response = self(
                'PUT', f'/resource_providers/{rp_uuid}/inventories',
                {'inventories': inventories,
                 'resource_provider_generation': 0})
            assert response.status_int == 200, response.text
        return rp_uuid

    def allocate(self, rp_uuid, class_name, used):
        """An allocation row of a new consumer against the provider."""
        with self.db.writer() as conn:
            conn.execute(sa.insert(ALLOC).values(
                resource_provider_id=sa.select(RP.c.id).where(
                    RP.c.uuid == rp_uuid).scalar_subquery(),
                resource_class_id=sa.select(RC.c.id).where(
                    RC.c.name == class_name).scalar_subquery(),
                consumer_id=str(uuid.uuid4()), used=used))

    def listed(self, query):
        response = self('GET', f'/resource_providers?{query}')
        assert response.status_int == 200, response.text
        return [rp['name'] for rp in response.json['resource_providers']]


@pytest.fixture
def client(wsgi_stack):
    return Client(*wsgi_stack)


def test_resources_filter_subtracts_usage(client):
    client.create('big', inventories={
        'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 1024}})
    small = client.create('small', inventories={'VCPU': {'total': 4}})
    client.allocate(small, 'VCPU', 1)
    client.allocate(small, 'VCPU', 1)
    assert client.listed('resources=VCPU:2') == ['big', 'small']
    assert client.listed('resources=VCPU:3') == ['big']
    client.allocate(small, 'VCPU', 2)
    assert client.listed('resources=VCPU:1') == ['big']


def test_resources_filter_with_allocation_ratio_and_reserved(client):
    rp = client.create('ratio', inventories={
        'VCPU': {'total': 4, 'reserved': 1, 'allocation_ratio': 1.5}})
    client.allocate(rp, 'VCPU', 3)
    # (4 - 1) * 1.5 = 4.5, of which 3 are used.
    assert client.listed('resources=VCPU:1') == ['ratio']
    assert client.listed('resources=VCPU:2') == []


def test_resources_filter_ignores_other_classes_usage(client):
    rp = client.create('mixed', inventories={
        'VCPU': {'total': 2}, 'DISK_GB': {'total': 10}})
    client.allocate(rp, 'DISK_GB', 10)
    assert client.listed('resources=VCPU:2') == ['mixed']
    assert client.listed('resources=VCPU:2,DISK_GB:1') == []


@pytest.mark.parametrize('version, code', [
    ('1.0', None), ('1.22', None),
    ('1.23', 'placement.resource_provider.inuse'),
    ('latest', 'placement.resource_provider.inuse')])
def test_delete_provider_with_allocations(client, version, code):
    rp = client.create('used', inventories={'VCPU': {'total': 2}})
    client.allocate(rp, 'VCPU', 1)
    response = client('DELETE', f'/resource_providers/{rp}',
                      version=version)
    assert response.status_int == 409, response.text
    assert response.json['errors'][0].get('code') == code
    inventories = client('GET', f'/resource_providers/{rp}/inventories')
    assert set(inventories.json['inventories']) == {'VCPU'}


def test_delete_provider_removes_its_rows(client):
    rp = client.create('full', inventories={'VCPU': {'total': 2}})
    other = client.create('other', inventories={'VCPU': {'total': 2}})
    client.allocate(other, 'VCPU', 1)
    for path, body in (
            ('traits', {'traits': ['HW_CPU_X86_AVX'],
                        'resource_provider_generation': 1}),
            ('aggregates', {'aggregates': [str(uuid.uuid4())],
                            'resource_provider_generation': 2})):
        response = client('PUT', f'/resource_providers/{rp}/{path}', body)
        assert response.status_int == 200, response.text
    response = client('DELETE', f'/resource_providers/{rp}')
    assert response.status_int == 204, response.text
    with client.db.reader() as conn:
        for table in (INV, models.ResourceProviderTrait.__table__,
                      models.ResourceProviderAggregate.__table__):
            assert conn.scalar(sa.select(sa.func.count()).select_from(
                table).where(table.c.resource_provider_id != sa.select(
                    RP.c.id).where(RP.c.uuid == other)
                    .scalar_subquery())) == 0


def test_links_and_location_under_a_prefix(client):
    response = client('POST', '/resource_providers', {'name': 'prefixed'},
                      script_name='/placement')
    assert response.status_int == 200, response.text
    rp = response.json['uuid']
    assert response.location.endswith(f'/placement/resource_providers/{rp}')
    hrefs = {link['rel']: link['href'] for link in response.json['links']}
    assert hrefs['self'] == f'/placement/resource_providers/{rp}'
    assert hrefs['traits'] == f'/placement/resource_providers/{rp}/traits'
    listed = client('GET', '/resource_providers', script_name='/placement')
    assert listed.json['resource_providers'][0]['links'][0]['href'] == (
        f'/placement/resource_providers/{rp}')


def _parents(client):
    with client.db.reader() as conn:
        return {row.id: row for row in conn.execute(sa.select(RP))}


def _assert_forest(client):
    """No loops, and every provider's root is the top of its chain."""
    rows = _parents(client)
    for row in rows.values():
        seen, current = set(), row
        while current.parent_provider_id is not None:
            assert current.id not in seen, 'loop in the provider tree'
            seen.add(current.id)
            current = rows[current.parent_provider_id]
        assert row.root_provider_id == current.id


def test_concurrent_crossed_reparenting_builds_no_loop(client):
    """Moving A under B while B moves under A: at most one wins."""
    for attempt in range(10):
        a = client.create(f'a{attempt}')
        b = client.create(f'b{attempt}')
        child = client.create(f'c{attempt}', parent=b)
        moves = [(a, b), (b, a), (child, a)]
        with concurrent.futures.ThreadPoolExecutor(len(moves)) as pool:
            statuses = list(pool.map(
                lambda move: client(
                    'PUT', f'/resource_providers/{move[0]}',
                    {'name': client('GET', f'/resource_providers/{move[0]}')
                     .json['name'],
                     'parent_provider_uuid': move[1]}).status_int,
                moves))
        assert set(statuses) <= {200, 400, 409}, statuses
        assert statuses[:2].count(200) <= 1, statuses
        _assert_forest(client)


def test_concurrent_children_of_a_moving_provider(client):
    """Children created while their parent moves get the new root."""
    top = client.create('top')
    middle = client.create('middle')
    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        move = pool.submit(client, 'PUT', f'/resource_providers/{middle}',
                           {'name': 'middle', 'parent_provider_uuid': top})
        children = list(pool.map(
            lambda index: client('POST', '/resource_providers', {
                'name': f'child{index}',
                'parent_provider_uuid': middle}).status_int,
            range(8)))
    assert move.result().status_int == 200, move.result().text
    assert set(children) <= {200, 409}, children
    _assert_forest(client)
    assert len(client.listed(f'in_tree={top}')) == 2 + children.count(200)


def test_concurrent_providers_join_new_aggregates(client):
    """Creators of the same new aggregates do not fail one another."""
    providers = [client.create(f'member{index}') for index in range(8)]
    aggregates = sorted(str(uuid.uuid4()) for _ in range(3))
    with concurrent.futures.ThreadPoolExecutor(len(providers)) as pool:
        responses = list(pool.map(
            lambda rp: client(
                'PUT', f'/resource_providers/{rp}/aggregates',
                {'aggregates': aggregates,
                 'resource_provider_generation': 0}),
            providers))
    assert [r.status_int for r in responses] == [200] * len(providers), [
        r.text for r in responses]
    for aggregate in aggregates:
        assert len(client.listed(f'member_of={aggregate}')) == len(
            providers)


def test_an_aggregate_held_in_capitals_is_named_as_the_database_compares(
        client):
    """A database upgraded from upstream may hold an aggregate's uuid as
    a client gave it, in capitals: ``member_of`` (lower case once
    parsed) finds it where the database's comparison does (MySQL's
    collation ignores case), on both searches."""
    held = str(uuid.uuid4()).upper()
    rp_uuid = client.create('cn', inventories={'VCPU': {'total': 4}})
    agg = models.PlacementAggregate.__table__
    with client.db.writer() as conn:
        aggregate_id = conn.execute(
            sa.insert(agg).values(uuid=held)).inserted_primary_key[0]
        conn.execute(sa.insert(models.ResourceProviderAggregate.__table__)
                     .values(resource_provider_id=sa.select(RP.c.id).where(
                         RP.c.uuid == rp_uuid).scalar_subquery(),
                             aggregate_id=aggregate_id))
        matches = conn.scalar(sa.select(sa.func.count()).where(
            agg.c.uuid == held.lower()))
    expected = ['cn'] if matches else []
    for query in (f'member_of={held.lower()}',
                  f'member_of=in:{held.lower()},{uuid.uuid4()}'):
        assert client.listed(query) == expected
        response = client(
            'GET', f'/allocation_candidates?resources=VCPU:1&{query}')
        assert response.status_int == 200, response.text
        assert len(response.json['allocation_requests']) == len(expected)
