"""The gabbits' response checker fails a response the table does not
declare: a wrong status, a body off its schema, a missing header, an
undeclared error code."""

import json

import pytest
import webob

from placement import contract as api
from placement import errors
from placement import microversion
from tests import contract

WIDGET = {'type': 'object', 'properties': {'name': {'type': 'string'}},
          'required': ['name'], 'additionalProperties': False}
TABLE = (
    api.Operation(
        'GET', '/widgets/{name}', None,
        responses=(api.Response(200, WIDGET),),
        errors={404: (errors.DEFAULT,)}),
    api.Operation(
        'PUT', '/widgets/{name}', None,
        versions=api.since(microversion.v1(5)),
        responses=(api.Response(201, headers=('Location',)),
                   api.Response(204))),
)


def _answering(status, body=None, headers=(), version='1.5'):
    """An app answering ``status`` with the JSON ``body``."""
    def application(environ, start_response):
        environ[microversion.MICROVERSION_ENVIRON] = microversion.parse(
            version)
        response = webob.Response(status=status, headerlist=list(headers))
        if body is not None:
            response.content_type = 'application/json'
            response.body = json.dumps(body).encode()
        return response(environ, start_response)
    return contract.ContractChecker(application, contract.Contract(TABLE))


def _send(application, method, path):
    return webob.Request.blank(path, method=method).get_response(application)


def test_declared_responses_pass():
    assert _send(_answering(200, {'name': 'w'}), 'GET',
                 '/widgets/w').json == {'name': 'w'}
    assert _send(_answering(204), 'PUT', '/widgets/w').status_int == 204
    assert _send(_answering(201, headers=[('Location', '/widgets/w')]),
                 'PUT', '/widgets/w').status_int == 201
    not_found = {'errors': [{'status': 404, 'code': errors.DEFAULT}]}
    assert _send(_answering(404, not_found), 'GET',
                 '/widgets/w').status_int == 404


def test_a_wrong_success_status_fails():
    with pytest.raises(contract.ContractViolation,
                       match='success status not declared'):
        _send(_answering(201, {'name': 'w'}), 'GET', '/widgets/w')


def test_a_body_off_the_schema_fails():
    with pytest.raises(contract.ContractViolation,
                       match='does not match the declared schema'):
        _send(_answering(200, {'name': 'w', 'size': 3}), 'GET', '/widgets/w')


def test_a_body_where_none_is_declared_fails():
    with pytest.raises(contract.ContractViolation, match='a body where'):
        _send(_answering(204, {'name': 'w'}), 'PUT', '/widgets/w')


def test_a_missing_declared_header_fails():
    with pytest.raises(contract.ContractViolation,
                       match=r"headers missing: \['Location'\]"):
        _send(_answering(201), 'PUT', '/widgets/w')


def test_an_undeclared_error_status_or_code_fails():
    conflict = {'errors': [{'status': 409, 'code': errors.DEFAULT}]}
    with pytest.raises(contract.ContractViolation,
                       match='error status not declared'):
        _send(_answering(409, conflict), 'GET', '/widgets/w')
    not_found = {'errors': [{'status': 404, 'code': errors.DUPLICATE_NAME}]}
    with pytest.raises(contract.ContractViolation,
                       match='error code placement.duplicate_name'):
        _send(_answering(404, not_found), 'GET', '/widgets/w')


def test_the_router_errors_are_declared():
    not_found = {'errors': [{'status': 404}]}
    assert _send(_answering(404, not_found), 'GET',
                 '/gadgets').status_int == 404
    not_allowed = {'errors': [{'status': 405}]}
    assert _send(_answering(405, not_allowed), 'POST',
                 '/widgets/w').status_int == 405
    # Before its microversion PUT does not exist: 404 (too_early_status).
    assert _send(_answering(404, not_found, version='1.4'), 'PUT',
                 '/widgets/w').status_int == 404
    with pytest.raises(contract.ContractViolation):
        _send(_answering(405, not_allowed, version='1.4'), 'PUT',
              '/widgets/w')
