"""Object-layer and webob errors of handlers, through a real handler stack.

Each error is raised by a tiny handler wrapped like the service's
handlers (PlacementWsgify under the request id and microversion
middleware) so the tests see the rendered error documents.
"""

import json

import orjson
import pytest
import webob

from placement import exception
from placement import util
from placement import wsgi_wrapper
from tests.unit import stack

# object-layer errors


@wsgi_wrapper.PlacementWsgify
def _conflicting(req):
    raise exception.ConcurrentUpdate('generation mismatch')


def test_object_error_renders_its_status_and_code():
    response = stack.call(_conflicting, version='1.23')
    assert response.status_code == 409
    error = stack.error_of(response)
    assert error['title'] == 'Conflict'
    assert 'generation mismatch' in error['detail']
    assert error['code'] == 'placement.concurrent_update'


def test_object_error_has_no_code_before_1_23():
    response = stack.call(_conflicting, version='1.22')
    assert response.status_code == 409
    assert 'code' not in stack.error_of(response)


@pytest.mark.parametrize('error, status', [
    (exception.PlacementError, 400), (exception.BadRequest, 400),
    (exception.NotFound, 404), (exception.InventoryInUse, 409),
])
def test_object_error_status_by_class(error, status):
    @wsgi_wrapper.PlacementWsgify
    def failing(req):
        raise error('no')

    response = stack.call(failing)
    assert response.status_code == status
    assert stack.error_of(response)['code'] == error.code


def test_handlers_run_through_wsgi_wrapper_render_webob_errors():
    @wsgi_wrapper.PlacementWsgify
    def gone(req):
        raise webob.exc.HTTPGone('It left.')

    response = stack.call(gone, version='1.22')
    assert response.status_code == 410
    assert 'It left.' in stack.error_of(response)['detail']


# Bodies serialised a chunk at a time (util.JsonArray, util.JsonObject).

def _whole_and_chunked(items, pairs):
    """The body made whole and with lazy parts, and its chunks."""
    whole = {'before': [1, {'a': None}], 'items': list(items),
             'pairs': dict(pairs), 'after': 'é'}
    lazy = {'before': [1, {'a': None}], 'items': util.JsonArray(iter(items)),
            'pairs': util.JsonObject(iter(pairs)), 'after': 'é'}
    return orjson.dumps(whole), list(util.dump_json_chunks(lazy))


@pytest.mark.parametrize('count', [0, 1, 2, 3, 4, 7])
def test_chunks_join_to_the_whole_body(monkeypatch, count):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    items = [{'n': n, 'text': f'"{n}"'} for n in range(count)]
    pairs = [(f'k{n}', [n, 1.5]) for n in range(count)]
    whole, chunks = _whole_and_chunked(items, pairs)
    assert b''.join(chunks) == whole
    # About one bytes object per chunk of items, not one per item.
    assert len(chunks) == 1 + 2 * ((count + 1) // 2)


@pytest.mark.parametrize('count', [0, 1, 5])
def test_a_serialised_array_is_made_at_once_and_splices_alike(
        monkeypatch, count):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    made = []

    def items():
        for n in range(count):
            made.append(n)
            yield {'n': n}

    array = util.SerialisedArray(items())
    assert made == list(range(count))
    chunks = util.dump_json_chunks({'items': array, 'after': 1})
    assert b''.join(chunks) == orjson.dumps(
        {'items': [{'n': n} for n in range(count)], 'after': 1})
    # Spliced once: the array holds none of its chunks any more.
    assert list(array.chunks()) == []


def test_items_are_made_while_serialised(monkeypatch):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    made = []

    def items():
        for n in range(5):
            made.append(n)
            yield n

    array = util.JsonArray(items())
    assert made == []
    assert next(array.chunks()) == b'[0,1]'
    assert made == [0, 1]
    # In a body (streamed), as the body's chunks are read, and only then.
    chunks = util.dump_json_chunks({'items': array})
    assert made == [0, 1]
    assert next(chunks) == b'{"items":[2,3'
    assert made == [0, 1, 2, 3]
    assert b''.join(chunks) == b',4]}'


@pytest.mark.parametrize('count', [0, 1, 3])
def test_lazy_parts_anywhere_join_to_the_whole_body(monkeypatch, count):
    """Nested in objects and arrays, and generators as arrays; a string
    that looks like a marker stays as it is."""
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    rows = [{'name': f'rp{n}', 'traits': ['A', 'B']} for n in range(count)]

    def body(lazy):
        return {'cluster': {'services': [{'resources': {'VCPU': {
            'capacity': 8,
            'subcapacities': (row for row in rows) if lazy else rows}}},
            {'pairs': util.JsonObject(iter([('x', 1), ('y', 2)]))
             if lazy else {'x': 1, 'y': 2}}],
            'note': '"lazy-0"', 'empty': util.JsonArray([]) if lazy else []}}

    assert b''.join(util.dump_json_chunks(body(True))) == orjson.dumps(
        body(False))


def test_what_json_cannot_hold_is_still_refused():
    with pytest.raises(TypeError):
        util.dump_json_chunks({'a': object()})
    with pytest.raises(TypeError):
        list(util.dump_json_chunks({'a': util.JsonArray([object()])}))


def test_a_body_without_lazy_parts_is_one_chunk():
    assert list(util.dump_json_chunks({'a': [1, 2]})) == [b'{"a":[1,2]}']
    assert list(util.dump_json_chunks([1])) == [b'[1]']



def test_integers_past_64_bits_are_written_as_their_digits(monkeypatch):
    """As the stdlib's json writes them (a capacity of a huge ratio),
    in the body and in its lazy parts; orjson's own range as it is."""
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    big = [2 ** 64, -2 ** 63 - 1, 2 ** 64 - 1, -2 ** 63, True, 1.5]

    def body(lazy):
        items = [{'capacity': n} for n in big]
        return {'a': (n for n in big) if lazy else big,
                'b': util.JsonArray(items) if lazy else items,
                'c': (3 * 2 ** 70, [2 ** 80]),
                'pairs': util.JsonObject([('x', 2 ** 90)])
                if lazy else {'x': 2 ** 90}}

    assert b''.join(util.dump_json_chunks(body(True))) == json.dumps(
        body(False), separators=(',', ':')).encode()
    assert list(util.dump_json_chunks({'n': 2 ** 100})) == [
        b'{"n":1267650600228229401496703205376}']
