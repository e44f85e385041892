"""The request helpers of placement.util, through a real handler stack.

Each helper is used by a tiny handler wrapped like the service's handlers
(PlacementWsgify under the request id and microversion middleware) so the
tests see the rendered error documents.
"""

import datetime
import json

import pytest
import webob

from placement import errors
from placement import exception
from placement import util
from placement import wsgi_wrapper
from tests.unit import stack


@wsgi_wrapper.PlacementWsgify
def _create(req):
    return util.json_response(req, json.loads(req.body), status=201)


@wsgi_wrapper.PlacementWsgify
def _search(req):
    params = util.query_params(
        req, allowed={'name', 'member_of', 'limit'},
        repeatable={'member_of'})
    return util.json_response(req, params)


@wsgi_wrapper.PlacementWsgify
def _updated_at(req):
    return util.json_response(
        req, {}, last_modified=datetime.datetime(
            2024, 5, 6, 7, 8, 9, tzinfo=datetime.UTC))


def _post(body, content_type='application/json', version='latest',
          **headers):
    if content_type is not None:
        headers['Content-Type'] = content_type
    return stack.call(_create, method='POST', body=body, version=version,
                      headers=headers)


def _get(query, version='latest'):
    return stack.call(_search, path='/?' + query, version=version)


# query_params


def test_allowed_parameters_are_returned():
    response = _get('name=a&limit=3')
    assert response.status_code == 200
    assert response.json == {'name': 'a', 'limit': '3'}


def test_no_parameters():
    assert _get('').json == {}


def test_unknown_parameter_is_400():
    response = _get('name=a&colour=blue')
    assert response.status_code == 400
    error = stack.error_of(response)
    assert "'colour'" in error['detail']
    assert error['code'] == errors.DEFAULT


def test_duplicate_parameter_is_400_with_its_code():
    response = _get('name=a&name=b')
    assert response.status_code == 400
    error = stack.error_of(response)
    assert "'name'" in error['detail']
    assert error['code'] == 'placement.query.duplicate_key'


def test_duplicate_parameter_has_no_code_before_1_23():
    response = _get('name=a&name=b', version='1.22')
    assert response.status_code == 400
    assert 'code' not in stack.error_of(response)


def test_repeatable_parameter_is_a_list():
    response = _get('member_of=a&name=n&member_of=b')
    assert response.status_code == 200
    assert response.json == {'member_of': ['a', 'b'], 'name': 'n'}


def test_repeatable_parameter_given_once_is_a_list():
    assert _get('member_of=a').json == {'member_of': ['a']}


def test_query_string_that_is_not_utf8_is_400():
    response = _get('name=%ff')
    assert response.status_code == 400
    assert 'Invalid query string' in stack.error_of(response)['detail']


# json_response


def test_json_response_has_no_caching_headers_before_1_15():
    response = stack.call(_updated_at, version='1.14')
    assert response.status_code == 200
    assert 'Last-Modified' not in response.headers
    assert 'Cache-Control' not in response.headers


def test_json_response_caching_headers_from_1_15():
    response = stack.call(_updated_at, version='1.15')
    assert response.headers['Last-Modified'] == (
        'Mon, 06 May 2024 07:08:09 GMT')
    assert response.headers['Cache-Control'] == 'no-cache'


def test_json_response_without_timestamp_is_now():
    before = datetime.datetime.now(datetime.UTC).replace(
        microsecond=0)
    response = stack.call(_search, version='1.15')
    assert response.last_modified >= before
    assert response.headers['Cache-Control'] == 'no-cache'


def test_json_response_to_other_methods_has_no_caching_headers():
    response = _post(b'{"name": "a"}', version='1.15')
    assert response.status_code == 201
    assert 'Last-Modified' not in response.headers
    assert 'Cache-Control' not in response.headers


def test_json_response_content_type_has_no_charset():
    response = stack.call(_search)
    assert response.headers['Content-Type'] == 'application/json'


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
