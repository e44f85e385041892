"""Writes that meet another transaction's write of the same rows: no
500, and no row left referring to a deleted one.

Links of a provider (aggregates, traits) written while another
transaction writes the same links.

Another connection links the provider in a transaction left open; the
API's write, which read the links as they were committed before, then
inserts a link that the other transaction holds (or removes the trait
it links). When the other commits, the insert fails on the primary key
(or the foreign key): the write is run again on what is committed, and
answers as if it had come after the other one.

Aggregates given before 1.19 (no generation) to a provider that another
transaction deletes, or a provider deleted while another gives it
aggregates so: no link is left to a deleted provider (the schema has no
foreign key there). Two such PUTs: the second's list, not both.

The projects, users and consumer types a claim creates on first use,
in the order of their names whatever the order of the consumers: two
claims creating some of the same ones otherwise deadlocked (PostgreSQL
detects it after a second, and a burst of such claims got 409s after
twenty).

Inventories of a custom resource class written while another
transaction deletes the class, or the class deleted while another adds
its first inventory (the schema has no foreign key from inventories to
resource classes): whichever comes second waits for the first and is
refused, 400 for the inventory of a deleted class, 409 for the delete
of a class in use.
"""

import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from placement.objects import aggregate
from placement.objects import inventory as inventory_obj
from placement.objects import resource_class
from placement.objects import resource_provider
from placement.objects import trait as trait_obj

pytestmark = pytest.mark.db

AGG = str(uuid.uuid4())


def _while_open(db, write, request):
    """``request()`` in a thread while ``write(conn)`` is in a
    transaction left open, which commits once the request had time to
    block on it; the response."""
    responses = []
    with db.writer() as conn:
        write(conn)
        thread = threading.Thread(target=lambda: responses.append(request()))
        thread.start()
        # The request reads, then waits for the rows this one holds.
        time.sleep(1.5)
    thread.join()
    return responses[0]


OTHER_AGG = str(uuid.uuid4())


@pytest.mark.parametrize('version, wanted', [
    ('1.10', AGG), ('1.19', AGG),
    # Two PUTs without generation of different lists: the second's list
    # is the provider's, not both united.
    ('1.10', OTHER_AGG)], ids=['1.10', '1.19', '1.10-another-list'])
def test_aggregates_given_by_another_writer(api, db, version, wanted):
    rp_uuid = api.provider()
    body = [wanted] if version == '1.10' else {
        'aggregates': [wanted], 'resource_provider_generation': 1}

    def put():
        return api.request('PUT', f'/resource_providers/{rp_uuid}/aggregates',
                           version=version, body=body)

    # The other writer is of a microversion without generations: it
    # moves none, and the request's generation still matches after it.
    response = _while_open(
        db, lambda conn: aggregate.replace_of(conn, rp_uuid, None, [AGG]),
        put)
    assert response.status_int == 200, response.text
    got = api.request('GET', f'/resource_providers/{rp_uuid}/aggregates',
                      version='1.19').json
    assert got['aggregates'] == [wanted]


def test_trait_deleted_by_another_writer(api, db):
    rp_uuid = api.provider()
    name = 'CUSTOM_GOING'
    assert api.request('PUT', f'/traits/{name}').status_int == 201

    def put():
        return api.request('PUT', f'/resource_providers/{rp_uuid}/traits',
                           body={'traits': [name],
                                 'resource_provider_generation': 1})

    response = _while_open(db, lambda conn: trait_obj.delete(conn, name),
                           put)
    assert response.status_int == 400, response.text
    assert name in response.json['errors'][0]['detail']
    got = api.request('GET', f'/resource_providers/{rp_uuid}/traits').json
    assert got == {'traits': [], 'resource_provider_generation': 1}



def _links(db):
    with db.reader() as conn:
        return conn.execute(sa.select(
            aggregate._RP_AGG.c.resource_provider_id)).scalars().all()


def test_provider_deleted_by_another_writer(api, db):
    rp_uuid = api.provider()

    def put():
        return api.request('PUT', f'/resource_providers/{rp_uuid}/aggregates',
                           version='1.10', body=[AGG])

    def delete(conn):
        resource_provider.delete(conn, rp_uuid)

    responses = []
    with db.writer(read_committed=True) as conn:
        delete(conn)
        thread = threading.Thread(target=lambda: responses.append(put()))
        thread.start()
        time.sleep(1.5)
    thread.join()
    assert responses[0].status_int == 404, responses[0].text
    assert _links(db) == []


def test_provider_given_aggregates_by_another_writer(api, db):
    rp_uuid = api.provider()

    def delete():
        return api.request('DELETE', f'/resource_providers/{rp_uuid}')

    response = _while_open(
        db, lambda conn: aggregate.replace_of(conn, rp_uuid, None, [AGG]),
        delete)
    assert response.status_int == 204, response.text
    assert _links(db) == []


_CLASS = 'CUSTOM_GOING'


def _with_class(api):
    assert api.request('PUT', f'/resource_classes/{_CLASS}').status_int == 201
    return api.provider({'VCPU': {'total': 4}})


_ADD_CLASS = {
    'PUT': {'inventories': {'VCPU': {'total': 4}, _CLASS: {'total': 4}},
            'resource_provider_generation': 1},
    'POST': {'resource_class': _CLASS, 'total': 4,
             'resource_provider_generation': 1},
}


@pytest.mark.parametrize('method', sorted(_ADD_CLASS))
def test_class_deleted_by_another_writer(api, db, method):
    rp_uuid = _with_class(api)

    def add():
        return api.request(
            method, f'/resource_providers/{rp_uuid}/inventories',
            body=_ADD_CLASS[method])

    response = _while_open(
        db, lambda conn: resource_class.delete(conn, _CLASS), add)
    assert response.status_int == 400, response.text
    assert f'No such resource class {_CLASS}' in response.text
    assert api.inventories(rp_uuid)['inventories'].keys() == {'VCPU'}


def _add(conn, rp_uuid):
    provider = resource_provider.get_by_uuid(conn, rp_uuid)
    inventory_obj.add(conn, provider, _CLASS,
                      inventory_obj.Inventory(total=4))


@pytest.mark.parametrize('version', ['1.2', '1.7'])
def test_class_given_inventory_by_another_writer(api, db, version):
    rp_uuid = _with_class(api)

    def delete():
        return api.request('DELETE', f'/resource_classes/{_CLASS}',
                           version=version)

    response = _while_open(db, lambda conn: _add(conn, rp_uuid), delete)
    assert response.status_int == 409, response.text
    assert api.request(
        'GET', f'/resource_classes/{_CLASS}').status_int == 200
    assert api.inventories(rp_uuid)['inventories'].keys() == {
        'VCPU', _CLASS}


@pytest.mark.parametrize('method', ['PUT', 'DELETE'])
def test_inventory_of_a_deleted_class_is_replaced(api, db, method):
    """An inventory left by the race before it was fixed (its class
    deleted) is replaced and deleted as any other."""
    rp_uuid = _with_class(api)
    assert api.request(
        'POST', f'/resource_providers/{rp_uuid}/inventories',
        body=_ADD_CLASS['POST']).status_int == 201
    with db.writer() as conn:
        conn.execute(sa.delete(resource_class.RC).where(
            resource_class.RC.c.name == _CLASS))
    path = f'/resource_providers/{rp_uuid}/inventories'
    response = api.request(method, path, body=None if method == 'DELETE'
                           else {'inventories': {'VCPU': {'total': 2}},
                                 'resource_provider_generation': 2})
    assert response.status_int in (200, 204), response.text
    with db.reader() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(
            inventory_obj.INV)) == (1 if method == 'PUT' else 0)


def test_owners_created_in_the_order_of_their_names(api):
    rp_uuid = api.provider()
    # The consumers in uuid order name their projects in reverse order.
    consumers = {f'{index}0000000-0000-4000-8000-000000000000': project
                 for index, project in enumerate(['pc', 'pb', 'pa'])}
    inserted = []

    def record(_conn, _cursor, statement, parameters, _context, _many):
        if statement.startswith('INSERT INTO projects'):
            inserted.append(str(parameters))

    sa.event.listen(api.db.engine, 'before_cursor_execute', record)
    try:
        response = api.request('POST', '/allocations', body={
            uuid: {'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
                   'project_id': project, 'user_id': 'u',
                   'consumer_generation': None, 'consumer_type': 'INSTANCE'}
            for uuid, project in consumers.items()})
    finally:
        sa.event.remove(api.db.engine, 'before_cursor_execute', record)
    assert response.status_int == 204, response.text
    assert len(inserted) == 3
    assert [next(name for name in ('pa', 'pb', 'pc') if name in params)
            for params in inserted] == ['pa', 'pb', 'pc']
