"""The router: 404 for unknown URLs, 405 with Allow for unknown methods,
and routes that do not exist before their microversion (404, or 405
where the route says so)."""

import datetime
import gc

import pytest

from placement import contract
from placement import microversion
from placement import router as routing
from placement import util
from placement import wsgi_wrapper
from tests.unit import stack


@wsgi_wrapper.PlacementWsgify
def _echo(req):
    return util.Result({
        'method': req.method, 'name': util.path_arg(req, 'name')},
        status=200)


@wsgi_wrapper.PlacementWsgify
def _collection(req):
    return util.Result({'method': req.method}, status=200)


TABLE = (
    contract.Operation('GET', '/widgets', _collection),
    contract.Operation('POST', '/widgets', _collection,
                         versions=contract.since(microversion.v1(5))),
    contract.Operation('DELETE', '/widgets', _collection,
                         versions=contract.since(microversion.v1(7)),
                         too_early_status=405),
    contract.Operation('GET', '/widgets/{name}', _echo,
                         versions=contract.since(microversion.v1(10))),
    contract.Operation('PUT', '/widgets/{name}', _echo,
                         versions=contract.since(microversion.v1(10))),
    contract.Operation('DELETE', '/widgets/{name}', _echo,
                         versions=contract.since(microversion.v1(12))),
)


@pytest.fixture
def router():
    return routing.Router(TABLE)


def test_route_dispatch_with_path_argument(router):
    response = stack.call(router, '/widgets/blue', version='1.10')
    assert response.status_code == 200
    assert response.json == {'method': 'GET', 'name': 'blue'}


def test_unknown_url_is_404(router):
    response = stack.call(router, '/gadgets')
    assert response.status_code == 404
    assert '/gadgets' in stack.error_of(response)['detail']


@pytest.mark.parametrize('path', ['/widgets/', '/widgets/blue/',
                                  '/widgets//blue', '/widgetsx'])
def test_near_misses_are_404(router, path):
    assert stack.call(router, path).status_code == 404


def test_unknown_method_is_405_with_allow(router):
    response = stack.call(router, '/widgets/blue', method='PATCH')
    assert response.status_code == 405
    assert response.headers['Allow'] == 'DELETE, GET, PUT'
    assert stack.error_of(response)['code'] == 'placement.undefined_code'


def test_url_newer_than_the_request_is_404(router):
    response = stack.call(router, '/widgets/blue', version='1.9')
    assert response.status_code == 404


def test_method_newer_than_the_request_is_404(router):
    response = stack.call(router, '/widgets', method='POST', version='1.4')
    assert response.status_code == 404


def test_method_newer_than_the_request_may_be_405(router):
    response = stack.call(router, '/widgets', method='DELETE', version='1.6')
    assert response.status_code == 405
    assert response.headers['Allow'] == 'GET, POST'


def test_undeclared_method_of_a_newer_url_is_405(router):
    response = stack.call(router, '/widgets/blue', method='PATCH',
                          version='1.9')
    assert response.status_code == 405
    assert response.headers['Allow'] == 'DELETE, GET, PUT'


def test_method_at_its_version_is_routed(router):
    response = stack.call(router, '/widgets', method='POST', version='1.5')
    assert response.status_code == 200
    assert response.json == {'method': 'POST'}


def test_allow_lists_every_declared_method_whatever_the_version(router):
    response = stack.call(router, '/widgets/blue', method='PATCH',
                          version='1.11')
    assert response.status_code == 405
    assert response.headers['Allow'] == 'DELETE, GET, PUT'


def test_default_table_has_the_version_document():
    response = stack.call(routing.Router(), '/', version='1.0')
    assert response.status_code == 200
    assert response.json['versions'][0]['min_version'] == '1.0'


@pytest.mark.parametrize('method, path', [
    ('POST', '/widgets'), ('GET', '/widgets'), ('PUT', '/widgets/blue'),
    ('PATCH', '/widgets'), ('POST', '/gadgets')])
def test_body_without_content_type_is_400_before_routing(
        router, method, path):
    response = stack.call(router, path, method=method, version='1.10',
                          body=b'{}')
    assert response.status_code == 400
    assert stack.error_of(response)['detail'].endswith(
        'content-type header required when content-length > 0')


@pytest.mark.parametrize('length', ['ten', '1.5', '0x10'])
def test_content_length_not_an_integer_is_400(router, length):
    response = stack.call(router, '/widgets', method='POST',
                          headers={'Content-Type': 'application/json'},
                          environ={'CONTENT_LENGTH': length})
    assert response.status_code == 400
    assert stack.error_of(response)['detail'].endswith(
        'content-length header must be an integer')


@pytest.mark.parametrize('length', ['0', ''])
def test_no_body_without_content_type_is_routed(router, length):
    response = stack.call(router, '/widgets', method='POST',
                          environ={'CONTENT_LENGTH': length})
    assert response.status_code == 200


# The rendering of the handlers' results.

_UPDATED = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.UTC)
_RENDERED = (
    contract.Operation(
        'GET', '/dated', lambda req: util.Result({}, last_modified=_UPDATED),
        responses=(contract.Response(200, {}),)),
    contract.Operation(
        'GET', '/now', lambda req: util.Result({'now': True}),
        responses=(contract.Response(200, {}),)),
    contract.Operation(
        'POST', '/created', lambda req: util.Result({'made': True},
                                                    location='/made'),
        responses=(contract.Response(201, {}, headers=('Location',)),)),
    contract.Operation(
        'PUT', '/either', lambda req: util.Result(
            status=int(req.params['status']), dated=True),
        produces=(), responses=(contract.Response(201),
                                contract.Response(204))),
    contract.Operation(
        'DELETE', '/either', lambda req: util.Result(), produces=(),
        responses=(contract.Response(201),
                   contract.Response(204))),
    contract.Operation(
        'GET', '/large', lambda req: util.Result({
            'items': util.JsonArray({'n': n} for n in range(5)),
            'total': 5}),
        responses=(contract.Response(200, {}),)),
    contract.Operation(
        'GET', '/versioned', lambda req: util.Result(),
        responses=(contract.Response(204, versions=contract.before(
                       microversion.v1(5))),
                   contract.Response(200, {}, contract.since(
                       microversion.v1(5))))),
)


@pytest.fixture
def rendering():
    return routing.Router(_RENDERED)


def test_get_has_no_caching_headers_before_1_15(rendering):
    response = stack.call(rendering, '/dated', version='1.14')
    assert response.status_code == 200
    assert 'Last-Modified' not in response.headers
    assert 'Cache-Control' not in response.headers


def test_get_caching_headers_from_1_15(rendering):
    response = stack.call(rendering, '/dated', version='1.15')
    assert response.headers['Last-Modified'] == (
        'Mon, 06 May 2024 07:08:09 GMT')
    assert response.headers['Cache-Control'] == 'no-cache'


def test_get_without_timestamp_is_now(rendering):
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    response = stack.call(rendering, '/now', version='1.15')
    assert response.last_modified >= before
    assert response.headers['Cache-Control'] == 'no-cache'


def test_json_body_has_the_declared_status_and_no_charset(rendering):
    response = stack.call(rendering, '/created', method='POST')
    assert response.status_code == 201
    assert response.headers['Content-Type'] == 'application/json'
    assert response.headers['Location'] == 'http://localhost/made'
    assert response.body == b'{"made":true}'
    # A write that is not ``dated`` has no caching headers.
    assert 'Last-Modified' not in response.headers


def test_the_handler_chooses_between_two_declared_statuses(rendering):
    created = stack.call(rendering, '/either?status=201', method='PUT',
                         version='1.15')
    assert created.status_code == 201
    assert created.headers['Cache-Control'] == 'no-cache'
    existing = stack.call(rendering, '/either?status=204', method='PUT')
    assert existing.status_code == 204
    assert existing.body == b''
    assert 'Content-Type' not in existing.headers


def test_two_declared_statuses_and_no_choice_is_an_error(rendering):
    with pytest.raises(ValueError, match='the handler must choose'):
        stack.call(rendering, '/either', method='DELETE')


def test_the_status_is_the_one_of_the_microversion(rendering):
    assert stack.call(rendering, '/versioned',
                      version='1.4').status_code == 204
    assert stack.call(rendering, '/versioned',
                      version='1.5').status_code == 200


def test_a_body_in_chunks_has_the_whole_content_length(
        rendering, monkeypatch):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    response = stack.call(rendering, '/large')
    assert response.status_code == 200
    assert len(response.app_iter) == 4
    body = b'{"items":[{"n":0},{"n":1},{"n":2},{"n":3},{"n":4}],"total":5}'
    assert b''.join(response.app_iter) == body
    assert response.headers['Content-Length'] == str(len(body))
    assert response.headers['Content-Type'] == 'application/json'


def _collector_states(states):
    """A handler whose answer records whether the cycle collector runs,
    in the handler and while its lazy array is serialised."""
    def lazy():
        states.append(gc.isenabled())
        yield 1

    @wsgi_wrapper.PlacementWsgify
    def answer(req):
        states.append(gc.isenabled())
        return util.Result({'items': lazy()}, status=200)
    return answer


@pytest.mark.parametrize('large', [True, False])
def test_large_answers_are_built_and_serialised_without_cycle_collection(
        large):
    states = []
    router = routing.Router((contract.Operation(
        'GET', '/widgets', _collector_states(states), large_answer=large),))
    response = stack.call(router, '/widgets')
    assert response.json == {'items': [1]}
    assert states == [not large, not large]
    assert gc.isenabled()


def test_a_streamed_answer_pauses_the_collector_until_closed():
    """Past ``stream_above_bytes`` the body is a Stream without
    Content-Length, its lazy parts made as the server reads it: the
    collector stays paused until the server closes it."""
    states = []
    router = routing.Router((contract.Operation(
        'GET', '/widgets', _collector_states(states), large_answer=True),),
        stream_above_bytes=0)
    response = stack.call(router, '/widgets')
    assert isinstance(response.app_iter, routing.Stream)
    assert 'Content-Length' not in response.headers
    assert b''.join(response.app_iter) == b'{"items":[1]}'
    assert states == [False, False]
    assert not gc.isenabled()
    response.app_iter.close()
    assert gc.isenabled()
