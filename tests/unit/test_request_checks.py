"""The checks between the router and the handler, driven by the
operation table: Accept (406), Content-Type (415), the policy rule (403),
then the body of the request's microversion (400), in that order; the
operation's ``url_check`` replaces any 400.

A tiny table is routed by the real router; the policy tests run it in the
deployed stack (noauth2) for a request context.
"""

import json
import re

import pytest
import webob

from placement import contract
from placement import errors
from placement import exception
from placement import microversion
from placement import request_checks
from placement import router
from placement import util
from placement import wsgi_wrapper
from placement.policies import resource_provider as provider_policies
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
# From 1.5 the body of POST /versioned is an integer.
_FIVE = microversion.v1(5)


@wsgi_wrapper.PlacementWsgify
def _echo_body(req):
    return util.Result(request_checks.body(req), status=201)


@wsgi_wrapper.PlacementWsgify
def _hello(req):
    return util.Result({'hello': 'world'}, status=200)


def _missing(req):
    raise webob.exc.HTTPNotFound('No such widget.')


def _found_by_the_handler(req):
    """A handler with a url_check: it finds the widget itself (here:
    always) and then refuses the name "refused"."""
    if request_checks.body(req)['name'] == 'refused':
        raise exception.BadRequest('Refused.')
    return util.Result({'found': True}, status=200)


_JSON = contract.JSON
TABLE = (
    contract.Operation('GET', '/', _hello),
    contract.Operation(
        'POST', '/', _echo_body, consumes=(_JSON,),
        bodies=(contract.Body(_SCHEMA),)),
    contract.Operation(
        'POST', '/versioned', _echo_body, consumes=(_JSON,),
        bodies=(contract.Body(_SCHEMA, contract.before(_FIVE)),
                contract.Body({'type': 'integer'},
                                contract.since(_FIVE)))),
    # A body before 1.5 only, and no media type checks from then on.
    contract.Operation(
        'PUT', '/versioned', _hello, consumes=(_JSON,),
        bodies=(contract.Body(_SCHEMA, contract.before(_FIVE)),)),
    contract.Operation(
        'POST', '/guarded', _echo_body, consumes=(_JSON,),
        policy=provider_policies.CREATE,
        bodies=(contract.Body(_SCHEMA),)),
    contract.Operation(
        'PUT', '/guarded', _found_by_the_handler, consumes=(_JSON,),
        policy=provider_policies.CREATE, url_check=_missing,
        bodies=(contract.Body(_SCHEMA),)),
    contract.Operation(
        'GET', '/guarded', _hello, policy=provider_policies.CREATE,
        query_before_policy=True),
)
_ROUTER = router.Router(TABLE)


def _post(body, content_type='application/json', version='latest',
          path='/', method='POST', **headers):
    if content_type is not None:
        headers['Content-Type'] = content_type
    return stack.call(_ROUTER, path, method=method, body=body,
                      version=version, headers=headers)


def _get(headers=None):
    return stack.call(_ROUTER, headers=headers)


# Content-Type


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
    # A body without a type is 400 before routing (test_router).
    response = _post(b'', content_type=None)
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


# Accept


def test_accept_json_passes():
    response = _get(headers={'Accept': 'application/json'})
    assert response.status_code == 200
    assert response.content_type == 'application/json'


def test_no_accept_gets_json():
    response = _get()
    assert response.status_code == 200
    assert response.content_type == 'application/json'


def test_accept_wildcard_gets_json():
    response = _get(headers={'Accept': '*/*'})
    assert response.status_code == 200
    assert response.content_type == 'application/json'


def test_accept_without_json_is_406_in_the_asked_format():
    response = _get(headers={'Accept': 'text/plain'})
    assert response.status_code == 406
    assert response.content_type == 'text/plain'
    assert 'Only application/json is provided' in response.text


def test_accept_checked_before_content_type():
    response = _post(b'{}', 'text/plain', Accept='text/html')
    assert response.status_code == 406


# the body


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


@pytest.mark.parametrize('body', [
    '{"name": "a"}'.encode('utf-16'),
    '{"name": "a"}'.encode('utf-16-le'),
    '{"name": "a"}'.encode('utf-32'),
    b'\xef\xbb\xbf{"name": "a"}',
])
def test_body_in_another_encoding_or_with_a_bom_is_400(body):
    """Bodies are UTF-8 without a byte order mark (RFC 8259), as
    upstream reads them."""
    response = _post(body)
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


# the body of the microversion


def test_body_schema_of_the_requests_microversion():
    assert _post(b'{"name": "a"}', path='/versioned',
                 version='1.4').status_code == 201
    assert _post(b'7', path='/versioned', version='1.4').status_code == 400
    assert _post(b'7', path='/versioned', version='1.5').json == 7
    response = _post(b'{"name": "a"}', path='/versioned', version='1.5')
    assert response.status_code == 400
    assert "is not of type 'integer'" in stack.error_of(response)['detail']


def test_no_media_type_checks_where_no_body_is_taken():
    headers = {'Accept': 'text/html'}
    assert _post(b'', 'text/plain', path='/versioned', method='PUT',
                 version='1.4', **headers).status_code == 406
    assert _post(b'', 'text/plain', path='/versioned', method='PUT',
                 version='1.5', **headers).status_code == 200


# the policy rule, in the deployed stack


@pytest.fixture
def service(monkeypatch):
    return stack.service(monkeypatch, TABLE)


def _call(service, method, body=None, token='admin', **headers):
    req = webob.Request.blank('/guarded', method=method, headers={
        'X-Auth-Token': token, 'OpenStack-API-Version': 'placement latest',
        **headers})
    if body is not None:
        req.body = body
    return req.get_response(service)


def test_policy_refusal_is_403(service):
    response = _call(service, 'POST', b'{"name": "a"}', token='user:project',
                     **{'Content-Type': 'application/json'})
    assert response.status_code == 403
    assert provider_policies.CREATE in stack.error_of(response)['detail']


def test_policy_allows(service):
    response = _call(service, 'POST', b'{"name": "a"}',
                     **{'Content-Type': 'application/json'})
    assert response.status_code == 201


def test_media_types_are_checked_before_the_policy(service):
    assert _call(service, 'POST', b'{}', token='user:project',
                 Accept='text/html',
                 **{'Content-Type': 'application/json'}).status_code == 406
    assert _call(service, 'POST', b'{}', token='user:project',
                 **{'Content-Type': 'text/plain'}).status_code == 415


def test_policy_is_checked_before_the_body(service):
    response = _call(service, 'POST', b'nonsense', token='user:project',
                     **{'Content-Type': 'application/json'})
    assert response.status_code == 403


def test_url_check_runs_after_the_policy_and_before_a_bad_body(service):
    bad_body = {'Content-Type': 'application/json'}
    assert _call(service, 'PUT', b'nonsense', token='user:project',
                 **bad_body).status_code == 403
    assert _call(service, 'PUT', b'nonsense', **bad_body).status_code == 404


def test_url_check_replaces_a_refusal_of_the_handler(service):
    response = _call(service, 'PUT', b'{"name": "refused"}',
                     **{'Content-Type': 'application/json'})
    assert response.status_code == 404


def test_url_check_is_left_to_the_handler_of_a_good_request(service):
    # The handler's own transaction finds the provider: no second lookup.
    response = _call(service, 'PUT', b'{"name": "a"}',
                     **{'Content-Type': 'application/json'})
    assert response.status_code == 200
    assert response.json == {'found': True}


def test_query_before_policy_leaves_the_rule_to_the_handler(service):
    response = _call(service, 'GET', token='user:project')
    assert response.status_code == 200
