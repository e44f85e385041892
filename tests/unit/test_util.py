"""The request helpers of placement.util, through a real handler stack.

Each helper is used by a tiny handler wrapped like the service's handlers
(PlacementWsgify under the request id and microversion middleware) so the
tests see the rendered error documents.
"""

import datetime
import json
import re

import pytest
import webob

from placement import errors
from placement import exception
from placement import util
from placement import wsgi_wrapper
from tests.unit import stack

_SCHEMA = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 8},
        'uuid': {'type': 'string', 'format': 'uuid'},
    },
    'required': ['name'],
    'additionalProperties': False,
}


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
@util.require_content('application/json')
def _create(req):
    data = util.extract_json(req.body, _SCHEMA)
    return util.json_response(req, data, status=201)


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
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


# require_content


def test_matching_content_type_passes():
    response = _post(b'{"name": "a"}')
    assert response.status_code == 201
    assert response.json == {'name': 'a'}


def test_content_type_parameters_are_allowed():
    response = _post(b'{"name": "a"}', 'application/json; charset=UTF-8')
    assert response.status_code == 201


def test_wrong_content_type_is_415():
    response = _post(b'{"name": "a"}', 'text/plain')
    assert response.status_code == 415
    error = stack.error_of(response)
    assert error['title'] == 'Unsupported Media Type'
    assert 'text/plain is not supported' in error['detail']
    assert error['code'] == errors.DEFAULT


def test_missing_content_type_is_415():
    response = _post(b'{"name": "a"}', content_type=None)
    assert response.status_code == 415
    error = stack.error_of(response)
    assert 'None is not supported' in error['detail']


def test_error_has_no_code_before_1_23():
    response = _post(b'{"name": "a"}', 'text/plain', version='1.22')
    assert response.status_code == 415
    assert 'code' not in stack.error_of(response)


def test_error_has_a_code_from_1_23():
    response = _post(b'{"name": "a"}', 'text/plain', version='1.23')
    assert stack.error_of(response)['code'] == errors.DEFAULT


def test_error_request_id_is_a_local_request_id():
    response = _post(b'{}', 'text/plain')
    assert re.match(stack.REQUEST_ID, stack.error_of(response)['request_id'])


def test_error_detail_has_no_markup():
    response = _post(b'{}', 'text/plain')
    detail = stack.error_of(response)['detail']
    assert '<' not in detail and '>' not in detail


# check_accept


def test_accept_json_passes():
    response = stack.call(_search, headers={'Accept': 'application/json'})
    assert response.status_code == 200
    assert response.content_type == 'application/json'


def test_no_accept_gets_json():
    response = stack.call(_search)
    assert response.status_code == 200
    assert response.content_type == 'application/json'


def test_accept_wildcard_gets_json():
    response = stack.call(_search, headers={'Accept': '*/*'})
    assert response.status_code == 200
    assert response.content_type == 'application/json'


def test_accept_without_json_is_406_in_the_asked_format():
    response = stack.call(_search, headers={'Accept': 'text/plain'})
    assert response.status_code == 406
    assert response.content_type == 'text/plain'
    assert 'Only application/json is provided' in response.text


def test_accept_checked_before_content_type():
    response = _post(b'{}', 'text/plain', Accept='text/html')
    assert response.status_code == 406


# extract_json


def test_malformed_json_is_400():
    response = _post(b'{"name": ')
    assert response.status_code == 400
    error = stack.error_of(response)
    assert 'Malformed JSON' in error['detail']
    assert error['code'] == errors.DEFAULT


def test_body_that_is_not_utf8_is_400():
    response = _post(b'{"name": "\xff"}')
    assert response.status_code == 400
    assert 'Malformed JSON' in stack.error_of(response)['detail']


@pytest.mark.parametrize('constant', [b'NaN', b'Infinity', b'-Infinity'])
def test_non_json_constants_are_400(constant):
    response = _post(b'{"name": ' + constant + b'}')
    assert response.status_code == 400
    assert 'Malformed JSON' in stack.error_of(response)['detail']


@pytest.mark.parametrize('body', [
    b'{"name": ' + b'[' * 33 + b']' * 33 + b'}',
    b'{"name": ' + b'{"a": ' * 600 + b'1' + b'}' * 601,
    b'[' * 100000,
])
def test_json_nested_too_deep_is_400(body):
    response = _post(body)
    assert response.status_code == 400
    assert 'nested deeper than 32 levels' in stack.error_of(
        response)['detail']


def test_json_nested_32_deep_is_validated():
    response = _post(b'{"name": ' + b'[' * 31 + b']' * 31 + b'}')
    assert response.status_code == 400
    assert "is not of type 'string'" in stack.error_of(response)['detail']


@pytest.mark.parametrize('body, complaint', [
    (b'{}', "'name' is a required property"),
    (b'{"name": 1}', "1 is not of type 'string'"),
    (b'{"name": "a", "extra": 1}', 'Additional properties'),
    (b'{"name": "far too long"}', 'is too long'),
    (b'{"name": "a", "uuid": "nope"}', "'nope' is not a 'uuid'"),
    (b'[]', "is not of type 'object'"),
])
def test_schema_violation_is_400(body, complaint):
    response = _post(body)
    assert response.status_code == 400
    detail = stack.error_of(response)['detail']
    assert 'JSON does not validate' in detail
    assert complaint in detail


def test_valid_json_is_returned_decoded():
    uuid = '5e0a2ac4-41c2-4c3f-9f5c-2b0a6a0e7b43'
    response = _post(json.dumps({'name': 'ok', 'uuid': uuid}).encode())
    assert response.status_code == 201
    assert response.json == {'name': 'ok', 'uuid': uuid}


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
