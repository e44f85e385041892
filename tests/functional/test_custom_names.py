"""Custom resource classes and traits: concurrency and use by providers.

Races are run against two applications with engines of their own, as two
worker processes would be. Uses of classes and traits (inventories,
allocations, provider traits) are inserted directly: the tests do not
depend on the APIs that manage them.
"""

import concurrent.futures
import threading
import uuid

import pytest
import sqlalchemy as sa
import webob

from placement import deploy
from placement import exception
from placement import policy
from placement.db import models
from placement.objects import name_table
from placement.objects import resource_class as rc_obj
from placement.objects import trait as trait_obj
from tests import database

pytestmark = pytest.mark.db

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RP_TRAIT = models.ResourceProviderTrait.__table__
# Upstream's first id of a custom resource class.
FIRST_CUSTOM_ID = 10000
WORKERS = 2
CALLERS = 8


class Worker:
    """One application with its own engine: a placement worker process."""

    def __init__(self, url):
        conf = database.make_conf(url, api__auth_strategy='noauth2')
        self.db = deploy.prepare_database(conf)
        self.app = deploy.build_stack(conf, self.db,
                                      policy.make_enforcer(conf))

    def request(self, method, path, version='latest', body=None):
        req = webob.Request.blank(path, method=method, headers={
            'x-auth-token': 'admin', 'accept': 'application/json',
            'openstack-api-version': f'placement {version}'})
        if body is not None:
            req.content_type = 'application/json'
            req.json_body = body
        return req.get_response(self.app)


@pytest.fixture
def workers(db_url):
    started = [Worker(db_url) for _ in range(WORKERS)]
    yield started
    for worker in started:
        worker.db.dispose()


def _race(workers, method, path, body=None, version='latest'):
    """Send CALLERS requests at once; their sorted statuses.

    ``path`` may contain ``{index}``, the number of the caller.
    """
    barrier = threading.Barrier(CALLERS)

    def call(index):
        barrier.wait()
        worker = workers[index % len(workers)]
        return worker.request(method, path.format(index=index), version,
                              body)

    with concurrent.futures.ThreadPoolExecutor(CALLERS) as pool:
        responses = list(pool.map(call, range(CALLERS)))
    for response in responses:
        assert response.status_int < 500, response.text
    return sorted(response.status_int for response in responses)


def test_concurrent_post_of_one_class(workers):
    statuses = _race(workers, 'POST', '/resource_classes',
                     body={'name': 'CUSTOM_RACE'})
    assert statuses == [201] + [409] * (CALLERS - 1)


def test_concurrent_creation_of_many_classes(workers, db):
    """Each takes an id of its own from 10000 up, none is refused."""
    statuses = _race(workers, 'PUT', '/resource_classes/CUSTOM_N{index}')
    assert statuses == [201] * CALLERS
    with db.reader() as conn:
        ids = [rc_obj.get_by_name(conn, f'CUSTOM_N{index}').id
               for index in range(CALLERS)]
    assert sorted(ids) == list(range(FIRST_CUSTOM_ID,
                                     FIRST_CUSTOM_ID + CALLERS))


def test_concurrent_put_of_one_class(workers):
    statuses = _race(workers, 'PUT', '/resource_classes/CUSTOM_RACE')
    assert statuses == [201] + [204] * (CALLERS - 1)


def test_concurrent_put_of_one_trait(workers):
    statuses = _race(workers, 'PUT', '/traits/CUSTOM_RACE')
    assert statuses == [201] + [204] * (CALLERS - 1)


def test_concurrent_delete_of_one_class(workers):
    assert workers[0].request(
        'PUT', '/resource_classes/CUSTOM_RACE').status_int == 201
    statuses = _race(workers, 'DELETE', '/resource_classes/CUSTOM_RACE')
    assert statuses == [204] + [404] * (CALLERS - 1)


def test_concurrent_delete_of_one_trait(workers):
    assert workers[0].request('PUT', '/traits/CUSTOM_RACE').status_int == 201
    statuses = _race(workers, 'DELETE', '/traits/CUSTOM_RACE')
    assert statuses == [204] + [404] * (CALLERS - 1)


def test_concurrent_renames_to_one_name(workers):
    for index in range(CALLERS):
        assert workers[0].request(
            'PUT', f'/resource_classes/CUSTOM_R{index}').status_int == 201
    statuses = _race(workers, 'PUT', '/resource_classes/CUSTOM_R{index}',
                     body={'name': 'CUSTOM_TARGET'}, version='1.6')
    assert statuses == [200] + [409] * (CALLERS - 1)
    listed = workers[1].request('GET', '/resource_classes').json
    customs = [rc['name'] for rc in listed['resource_classes']
               if rc['name'].startswith('CUSTOM_')]
    assert len(customs) == CALLERS
    assert 'CUSTOM_TARGET' in customs


@pytest.mark.parametrize('table', [rc_obj.RC, trait_obj.TRAIT])
def test_insert_of_an_existing_name_keeps_the_transaction(db, table):
    """The unique constraint fails in a savepoint; the rest goes on."""
    with db.writer() as conn:
        name_table.insert(conn, table, 'CUSTOM_TWICE', 'thing')
        with pytest.raises(exception.DuplicateName):
            name_table.insert(conn, table, 'CUSTOM_TWICE', 'thing')
        name_table.insert(conn, table, 'CUSTOM_AFTER', 'thing')
    with db.reader() as conn:
        assert name_table.get(conn, table, 'CUSTOM_TWICE') is not None
        assert name_table.get(conn, table, 'CUSTOM_AFTER') is not None


def test_ensure_that_loses_the_race(db, monkeypatch):
    """Created between our read and our insert: not created by us."""
    with db.writer() as conn:
        rc_obj.create(conn, 'CUSTOM_LATE')
    monkeypatch.setattr(name_table, 'get', lambda *args: None)
    with db.writer() as conn:
        assert name_table.ensure(
            conn, rc_obj.RC, 'CUSTOM_LATE', 'thing') == (None, False)


def test_custom_class_takes_the_next_free_id(db, monkeypatch):
    """The highest id read is stale (another writer's class committed
    since): the next id is tried, not a conflict reported."""
    with db.writer() as conn:
        rc_obj.create(conn, 'CUSTOM_EARLY')
    monkeypatch.setattr(name_table, '_highest_id', lambda conn, table: 0)
    with db.writer() as conn:
        rc_obj.create(conn, 'CUSTOM_LATE')
    with db.reader() as conn:
        assert [rc_obj.get_by_name(conn, name).id
                for name in ('CUSTOM_EARLY', 'CUSTOM_LATE')] == [
            FIRST_CUSTOM_ID, FIRST_CUSTOM_ID + 1]


def _provider(conn):
    rp_uuid = str(uuid.uuid4())
    rp_id = conn.execute(sa.insert(RP).values(
        uuid=rp_uuid, name=rp_uuid, generation=0)).inserted_primary_key[0]
    conn.execute(sa.update(RP).where(RP.c.id == rp_id)
                 .values(root_provider_id=rp_id))
    return rp_id


def _add_inventory(db, class_name):
    with db.writer() as conn:
        rc_id = rc_obj.get_by_name(conn, class_name).id
        return conn.execute(sa.insert(INV).values(
            resource_provider_id=_provider(conn), resource_class_id=rc_id,
            total=1, reserved=0, min_unit=1, max_unit=1, step_size=1,
            allocation_ratio=1.0)).inserted_primary_key[0]


def _add_allocation(db, class_name):
    with db.writer() as conn:
        rc_id = rc_obj.get_by_name(conn, class_name).id
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=_provider(conn), resource_class_id=rc_id,
            consumer_id=str(uuid.uuid4()), used=1))


def _associate(db, trait_name):
    with db.writer() as conn:
        trait_id = trait_obj.get_by_name(conn, trait_name).id
        rp_id = _provider(conn)
        conn.execute(sa.insert(RP_TRAIT).values(
            resource_provider_id=rp_id, trait_id=trait_id))
        return rp_id


def _error(response, status):
    assert response.status_int == status, response.text
    return response.json['errors'][0]


@pytest.fixture
def worker(workers):
    return workers[0]


@pytest.mark.parametrize('version, code', [
    ('1.2', None), ('1.22', None), ('1.23', 'placement.undefined_code'),
    ('latest', 'placement.undefined_code')])
def test_delete_class_with_inventory(worker, db, version, code):
    worker.request('PUT', '/resource_classes/CUSTOM_USED')
    inventory_id = _add_inventory(db, 'CUSTOM_USED')
    error = _error(worker.request(
        'DELETE', '/resource_classes/CUSTOM_USED', version), 409)
    assert error.get('code') == code
    assert 'CUSTOM_USED' in error['detail']
    assert worker.request(
        'GET', '/resource_classes/CUSTOM_USED').status_int == 200
    with db.writer() as conn:
        conn.execute(sa.delete(INV).where(INV.c.id == inventory_id))
    assert worker.request(
        'DELETE', '/resource_classes/CUSTOM_USED', version).status_int == 204


def test_delete_class_with_allocations_only(worker, db):
    worker.request('PUT', '/resource_classes/CUSTOM_USED')
    _add_allocation(db, 'CUSTOM_USED')
    _error(worker.request('DELETE', '/resource_classes/CUSTOM_USED'), 409)


def test_delete_standard_class_in_use_is_refused_as_standard(worker, db):
    _add_inventory(db, 'VCPU')
    _error(worker.request('DELETE', '/resource_classes/VCPU'), 400)


def test_rename_class_in_use_before_1_7(worker, db):
    """A rename keeps the row (and id): its inventories follow it."""
    worker.request('PUT', '/resource_classes/CUSTOM_OLD')
    inventory_id = _add_inventory(db, 'CUSTOM_OLD')
    response = worker.request('PUT', '/resource_classes/CUSTOM_OLD', '1.6',
                              body={'name': 'CUSTOM_NEW'})
    assert response.status_int == 200, response.text
    with db.reader() as conn:
        rc_id = conn.scalar(sa.select(INV.c.resource_class_id)
                            .where(INV.c.id == inventory_id))
        assert rc_obj.get_by_name(conn, 'CUSTOM_NEW').id == rc_id


def test_delete_in_use_caught_by_the_foreign_key(db):
    """A use added after the check: the foreign key answers Conflict.

    Traits only: upstream's schema, which this service keeps, has no
    foreign key to resource classes.
    """
    with db.writer() as conn:
        trait_obj.ensure(conn, 'CUSTOM_FK')
    _associate(db, 'CUSTOM_FK')
    with db.writer() as conn:
        row = trait_obj.get_by_name(conn, 'CUSTOM_FK')
        with pytest.raises(exception.Conflict):
            name_table.delete(conn, trait_obj.TRAIT, row.id, (), 'in use')
    with db.reader() as conn:
        assert trait_obj.get_by_name(conn, 'CUSTOM_FK').id == row.id


@pytest.mark.parametrize('version, code', [
    ('1.6', None), ('1.22', None), ('1.23', 'placement.undefined_code'),
    ('latest', 'placement.undefined_code')])
def test_delete_trait_of_a_provider(worker, db, version, code):
    worker.request('PUT', '/traits/CUSTOM_USED')
    rp_id = _associate(db, 'CUSTOM_USED')
    error = _error(worker.request('DELETE', '/traits/CUSTOM_USED', version),
                   409)
    assert error.get('code') == code
    assert 'CUSTOM_USED' in error['detail']
    with db.writer() as conn:
        conn.execute(sa.delete(RP_TRAIT)
                     .where(RP_TRAIT.c.resource_provider_id == rp_id))
    assert worker.request(
        'DELETE', '/traits/CUSTOM_USED', version).status_int == 204


def test_list_traits_by_association(worker, db):
    for name in ('CUSTOM_ON', 'CUSTOM_OFF'):
        worker.request('PUT', f'/traits/{name}')
    _associate(db, 'CUSTOM_ON')
    _associate(db, 'CUSTOM_ON')
    _associate(db, 'HW_CPU_X86_AVX')

    def traits(query):
        response = worker.request('GET', f'/traits?{query}')
        assert response.status_int == 200, response.text
        return response.json['traits']

    assert traits('associated=true') == ['CUSTOM_ON', 'HW_CPU_X86_AVX']
    assert traits('associated=true&name=startswith:CUSTOM_') == [
        'CUSTOM_ON']
    assert traits('associated=false&name=startswith:CUSTOM_') == [
        'CUSTOM_OFF']
    assert traits('associated=false&name=in:CUSTOM_ON,HW_CPU_X86_AVX') == []
    assert 'HW_CPU_X86_SSE' in traits('associated=false')
    assert 'HW_CPU_X86_AVX' not in traits('associated=false')


def test_trait_ids_by_name(db):
    with db.writer() as conn:
        trait_obj.ensure(conn, 'CUSTOM_ONE')
    with db.reader() as conn:
        ids = trait_obj.ids_by_name(conn, ['CUSTOM_ONE', 'HW_CPU_X86_AVX'])
        assert set(ids) == {'CUSTOM_ONE', 'HW_CPU_X86_AVX'}
        assert ids['CUSTOM_ONE'] == trait_obj.get_by_name(
            conn, 'CUSTOM_ONE').id
        assert trait_obj.ids_by_name(conn, []) == {}
        with pytest.raises(exception.BadRequest,
                           match='No such trait.*CUSTOM_NONE, hw_cpu'):
            trait_obj.ids_by_name(
                conn, ['HW_CPU_X86_AVX', 'hw_cpu_x86_avx', 'CUSTOM_NONE',
                       'CUSTOM_\x00'])
