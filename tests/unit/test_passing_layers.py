"""The middlewares that only pass a request on are plain WSGI layers.

The request ids, the authentication of noauth2, the fault wrapper and
the microversion negotiation hand the next application's answer on as
it came: no webob ``Response`` of their own per request (a ``wsgify``
layer made two), and their own errors still the API's error documents.
"""

import json

import pytest
import webob

from placement import auth
from placement import fault_wrap
from placement import microversion
from placement import microversion_middleware
from placement import request_ids

_BODY = [b'{"a": ', b'1}']
_HEADERS = [('Content-Type', 'application/json'),
            ('OpenStack-API-Version', 'set by the application'),
            ('Content-Length', '8')]


def _inner(environ, start_response):
    start_response('200 OK', list(_HEADERS))
    return iter(_BODY)


def _call(application, headers=None):
    environ = webob.Request.blank('/resource_providers',
                                  headers=headers or {}).environ
    started = []

    def start_response(status, headers, exc_info=None):
        started.append((status, headers))
    body = b''.join(application(environ, start_response))
    return started, body, environ


@pytest.fixture
def responses_made(monkeypatch):
    made = []
    real = webob.Response.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        real(self, *args, **kwargs)
    monkeypatch.setattr(webob.Response, '__init__', counted)
    return made


@pytest.mark.parametrize('layer', [
    request_ids.RequestId, auth.NoAuthMiddleware, fault_wrap.FaultWrapper,
    microversion_middleware.MicroversionMiddleware])
def test_a_passing_layer_makes_no_response(layer, responses_made):
    started, body, _environ = _call(layer(_inner),
                                    {'X-Auth-Token': 'admin'})
    assert responses_made == []
    assert len(started) == 1
    assert started[0][0] == '200 OK'
    assert body == b''.join(_BODY)


def test_the_version_headers_replace_the_applications_and_come_last():
    started, _body, environ = _call(
        microversion_middleware.MicroversionMiddleware(_inner),
        {'OpenStack-API-Version': 'placement 1.20'})
    assert started[0][1] == [
        ('Content-Type', 'application/json'), ('Content-Length', '8'),
        ('openstack-api-version', 'placement 1.20'),
        ('Vary', 'openstack-api-version')]
    assert environ[microversion.MICROVERSION_ENVIRON] == (1, 20)


@pytest.mark.parametrize('version, status', [
    ('placement 1.x', '400 Bad Request'),
    ('placement 9.0', '406 Not Acceptable')])
def test_a_refused_version_is_an_error_document_without_the_header(
        version, status):
    started, body, _environ = _call(
        microversion_middleware.MicroversionMiddleware(_inner),
        {'OpenStack-API-Version': version})
    assert started[0][0] == status
    assert 'openstack-api-version' not in {
        name.lower() for name, _value in started[0][1]}
    assert json.loads(body)['errors'][0]['status'] == int(status[:3])


def test_noauth_without_a_token_is_a_401_document():
    started, body, _environ = _call(auth.NoAuthMiddleware(_inner))
    assert started[0][0] == '401 Unauthorized'
    assert json.loads(body)['errors'][0]['title'] == 'Unauthorized'


def test_a_fault_after_the_status_answers_500_alone():
    """The application's status is held until it returned: a fault
    before then is the only answer the server is given."""
    def broken(environ, start_response):
        start_response('200 OK', list(_HEADERS))
        raise RuntimeError('broken')
    started, body, _environ = _call(fault_wrap.FaultWrapper(broken))
    assert [status for status, _headers in started] == [
        '500 Internal Server Error']
    assert json.loads(body)['errors'][0]['status'] == 500


def test_a_generator_is_run_to_its_status_within_the_wrapper():
    """An application that gives its status only once iterated (a
    generator) faults inside the wrapper, as under webob's layer."""
    def generator(environ, start_response):
        raise RuntimeError('before the status')
        yield b''
    started, _body, _environ = _call(fault_wrap.FaultWrapper(generator))
    assert [status for status, _headers in started] == [
        '500 Internal Server Error']


_GLOBAL_ID = 'req-0b6f7f1e-5a2d-4c3b-9a8e-1f2e3d4c5b6a'


def test_the_request_id_is_added_last_and_the_global_one_taken():
    started, _body, environ = _call(
        request_ids.RequestId(_inner),
        {'X-Openstack-Request-Id': _GLOBAL_ID})
    headers = started[0][1]
    assert headers[:-1] == _HEADERS
    assert headers[-1] == ('x-openstack-request-id',
                           environ['openstack.request_id'])
    assert environ['openstack.global_request_id'] == _GLOBAL_ID


def test_a_request_id_the_application_gave_is_kept():
    def identified(environ, start_response):
        start_response('200 OK', [('X-OpenStack-Request-Id', 'its own')])
        return []
    started, _body, environ = _call(
        request_ids.RequestId(identified),
        {'X-Openstack-Request-Id': 'not-a-request-id'})
    assert started[0][1] == [('X-OpenStack-Request-Id', 'its own')]
    assert 'openstack.global_request_id' not in environ
