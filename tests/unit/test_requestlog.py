"""One log line per request, 500s included."""

import logging

import pytest
import webob

from placement import handler
from placement import util
from placement import wsgi_wrapper
from tests.unit import stack


@wsgi_wrapper.PlacementWsgify
def _ok(req):
    return util.json_response(req, {'ok': True})


@wsgi_wrapper.PlacementWsgify
def _broken(req):
    raise RuntimeError('boom')


@pytest.fixture
def app(monkeypatch):
    return stack.service(monkeypatch, {
        '/ok': {'GET': handler.Route(_ok)},
        '/broken': {'GET': handler.Route(_broken)},
    })


def _request_lines(app, caplog, path, **headers):
    headers['X-Auth-Token'] = 'admin'
    req = webob.Request.blank(path, headers=headers,
                              environ={'REMOTE_ADDR': '192.0.2.1'})
    with caplog.at_level(logging.INFO, logger='placement.requestlog'):
        response = req.get_response(app)
    lines = [record.getMessage() for record in caplog.records
             if record.name == 'placement.requestlog'
             and record.levelno == logging.INFO]
    return response, lines


def test_success_is_logged(app, caplog):
    response, lines = _request_lines(
        app, caplog, '/ok?a=1', **{'OpenStack-API-Version': 'placement 1.7'})
    assert lines == [
        f'192.0.2.1 "GET /ok?a=1" status: 200 '
        f'len: {response.content_length} microversion: 1.7']


def test_client_error_is_logged(app, caplog):
    _response, lines = _request_lines(app, caplog, '/nothing')
    assert lines == [
        '192.0.2.1 "GET /nothing" status: 404 len: '
        f'{_response.content_length} microversion: 1.0']


def test_server_error_is_logged(app, caplog):
    response, lines = _request_lines(app, caplog, '/broken')
    assert response.status_code == 500
    assert lines == [
        '192.0.2.1 "GET /broken" status: 500 len: - microversion: 1.0']
