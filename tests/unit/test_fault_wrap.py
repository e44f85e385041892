"""The fault wrapper: an unexpected exception is a bare JSON 500, logged.

The handlers run in the deployed middleware stack.
"""

import logging
import re

import pymysql
import pytest
import sqlalchemy as sa
import webob

from placement import contract
from placement import wsgi_wrapper
from placement.db import failures
from tests.unit import stack

_SECRET = 'password=hunter2 at /srv/placement/objects/secret.py'


@wsgi_wrapper.PlacementWsgify
def _broken(req):
    raise RuntimeError(_SECRET)


@wsgi_wrapper.PlacementWsgify
def _refused(req):
    raise webob.exc.HTTPConflict('A conflict.')


def _unwrapped_broken(req):
    raise KeyError(_SECRET)


@wsgi_wrapper.PlacementWsgify
def _database_away(req):
    raise failures.DatabaseUnavailable('The database is not reachable.')


@wsgi_wrapper.PlacementWsgify
def _connection_refused(req):
    """A database error met outside the transaction layer."""
    raise sa.exc.OperationalError('SELECT 1', {}, pymysql.err.OperationalError(
        2003, f"Can't connect to MySQL server ({_SECRET})"))


@pytest.fixture
def app(monkeypatch):
    return stack.service(monkeypatch, (
        contract.Operation('GET', '/', _refused),
        contract.Operation('GET', '/broken', _broken),
        contract.Operation('GET', '/broken-unwrapped', _unwrapped_broken),
        contract.Operation('GET', '/away', _database_away),
        contract.Operation('GET', '/refused', _connection_refused),
    ))


def _get(app, path, version='latest'):
    req = webob.Request.blank(path, headers={
        'X-Auth-Token': 'admin',
        'OpenStack-API-Version': f'placement {version}'})
    return req.get_response(app)


def _fault_records(caplog):
    return [record for record in caplog.records
            if record.name == 'placement.fault_wrap']


def test_exception_becomes_json_500(app):
    response = _get(app, '/broken')
    assert response.status_code == 500
    error = stack.error_of(response)
    assert error['title'] == 'Internal Server Error'
    assert re.match(stack.REQUEST_ID, error['request_id'])


@pytest.mark.parametrize('path', ['/broken', '/broken-unwrapped'])
def test_500_leaks_nothing_of_the_exception(app, path):
    response = _get(app, path)
    assert response.status_code == 500
    for leak in (b'hunter2', b'Traceback', b'RuntimeError', b'KeyError',
                 b'.py'):
        assert leak not in response.body


def test_500_has_the_undefined_code_from_1_23(app):
    assert stack.error_of(_get(app, '/broken', '1.23'))['code'] == (
        'placement.undefined_code')
    assert 'code' not in stack.error_of(_get(app, '/broken', '1.22'))


def test_exception_is_logged_with_traceback_and_request_id(app, caplog):
    with caplog.at_level(logging.ERROR, logger='placement.fault_wrap'):
        response = _get(app, '/broken')
    request_id = response.headers['x-openstack-request-id']
    [record] = _fault_records(caplog)
    assert record.levelno == logging.ERROR
    assert request_id in record.getMessage()
    assert record.exc_info[0] is RuntimeError
    assert _SECRET in str(record.exc_info[1])


def test_http_errors_are_not_faults(app, caplog):
    with caplog.at_level(logging.ERROR, logger='placement.fault_wrap'):
        response = _get(app, '/')
    assert response.status_code == 409
    assert 'A conflict.' in stack.error_of(response)['detail']
    assert not _fault_records(caplog)


@pytest.mark.parametrize('path', ['/away', '/refused'])
def test_unavailable_database_is_json_503_with_retry_after(app, path):
    response = _get(app, path)
    assert response.status_code == 503
    assert int(response.headers['Retry-After']) > 0
    error = stack.error_of(response)
    assert error['title'] == 'Service Unavailable'
    assert error['code'] == 'placement.undefined_code'
    assert b'hunter2' not in response.body


def test_unavailable_database_is_logged_once_without_traceback(app, caplog):
    with caplog.at_level(logging.WARNING, logger='placement.fault_wrap'):
        for _ in range(5):
            assert _get(app, '/refused').status_code == 503
        assert _get(app, '/away').status_code == 503
    [record] = _fault_records(caplog)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    assert "Can't connect to MySQL server" in record.getMessage()
