"""One log line per request, 500s included."""

import logging
import re

import pytest
import webob
from oslo_log import formatters

from placement import contract
from placement import util
from placement import wsgi_wrapper
from placement.conf import loading
from tests.unit import stack


@wsgi_wrapper.PlacementWsgify
def _ok(req):
    return util.Result({'ok': True}, status=200)


@wsgi_wrapper.PlacementWsgify
def _broken(req):
    raise RuntimeError('boom')


@pytest.fixture
def app(monkeypatch):
    return stack.service(monkeypatch, (
        contract.Operation('GET', '/ok', _ok),
        contract.Operation('GET', '/broken', _broken),
    ))


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


def _line(response, start, route):
    """The pattern of the log line of ``response``: upstream's ``start``,
    then the route, the seconds it took and spent in SQL, the request
    id."""
    return re.compile(
        re.escape(f'{start} len: {response.content_length} ')
        + r'microversion: 1\.\d+ '
        + re.escape(f'route: {route} ')
        + r'time: \d+\.\d{3} sql: \d+\.\d{3} '
        + re.escape(
            f'request_id: {response.headers["x-openstack-request-id"]}')
        + '$')


def test_success_is_logged(app, caplog):
    response, [line] = _request_lines(
        app, caplog, '/ok?a=1', **{'OpenStack-API-Version': 'placement 1.7'})
    assert _line(response, '192.0.2.1 "GET /ok?a=1" status: 200',
                 '/ok').match(line), line
    assert 'microversion: 1.7 ' in line


def test_client_error_is_logged(app, caplog):
    response, [line] = _request_lines(app, caplog, '/nothing')
    assert _line(response, '192.0.2.1 "GET /nothing" status: 404',
                 '-').match(line), line


def test_server_error_is_logged(app, caplog):
    response, [line] = _request_lines(app, caplog, '/broken')
    assert response.status_code == 500
    assert _line(response, '192.0.2.1 "GET /broken" status: 500',
                 '/broken').match(line), line


def test_control_characters_of_the_path_are_logged_escaped(app, caplog):
    """The path is logged percent-decoded: a client's %0A started a
    forged log line, its %1B drove the terminal showing the log (and
    U+009B is a CSI too). Control characters are logged percent-encoded,
    and so are the bytes past ASCII (UTF-8 showed as two letters each, its
    continuation bytes' C1 codes escaped); so is one sent raw in the
    query string."""
    response, [line] = _request_lines(
        app, caplog,
        '/x%0A2026-01-01 forged%0D%1B[31m%7F%C2%9B%C3%A9?q=%0A\x1b[0m')
    assert _line(response, '192.0.2.1 "GET /x%0A2026-01-01 forged%0D'
                 '%1B[31m%7F%C2%9B%C3%A9?q=%0A%1B[0m" '
                 'status: 404',
                 '-').match(line), line


def test_unauthenticated_request_is_logged_with_its_own_id(app, caplog):
    req = webob.Request.blank('/ok', environ={'REMOTE_ADDR': '192.0.2.1'})
    with caplog.at_level(logging.INFO, logger='placement.requestlog'):
        response = req.get_response(app)
    [line] = [record.getMessage() for record in caplog.records
              if record.name == 'placement.requestlog']
    assert response.status_code == 401
    assert ' status: 401 ' in line
    assert line.endswith(
        f'request_id: {response.headers["x-openstack-request-id"]}')


def _warnings(caplog):
    return [record.getMessage() for record in caplog.records
            if record.name == 'placement.requestlog'
            and record.levelno == logging.WARNING]


def test_slow_request_is_a_warning_with_its_time_split(monkeypatch, caplog):
    # Every request takes longer than a nanosecond.
    app = stack.service(monkeypatch, (
        contract.Operation('GET', '/ok', _ok),),
        request_log__slow_threshold=1e-9)
    response, _lines = _request_lines(app, caplog, '/ok')
    [warning] = _warnings(caplog)
    assert re.match(
        r'Slow request: "GET /ok" route: /ok status: 200 took '
        r'\d+\.\d{3}s \(sql \d+\.\d{3}s, serialise \d+\.\d{3}s, '
        r'app -?\d+\.\d{3}s\) request_id: req-', warning), warning


def test_no_warning_when_the_threshold_is_off(monkeypatch, caplog):
    app = stack.service(monkeypatch, (
        contract.Operation('GET', '/ok', _ok),),
        request_log__slow_threshold=0)
    _request_lines(app, caplog, '/ok')
    assert _warnings(caplog) == []


_GLOBAL_ID = 'req-4a3b59c1-d6c6-4b36-8a8a-3d8e2f4b7b2a'


def _formatted_request_line(app, caplog, **headers):
    """The request's log line as oslo.log's context formatter writes it."""
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    formatter = formatters.ContextFormatter(config=conf,
                                            project='placement')
    _request_lines(app, caplog, '/ok', **headers)
    [record] = [record for record in caplog.records
                if record.name == 'placement.requestlog'
                and record.levelno == logging.INFO]
    return formatter.format(record)


def test_valid_global_request_id_is_logged(app, caplog):
    line = _formatted_request_line(
        app, caplog, **{'X-Openstack-Request-Id': _GLOBAL_ID})
    assert f'[{_GLOBAL_ID} req-' in line


@pytest.mark.parametrize('global_id', [
    'req-bogus', _GLOBAL_ID.upper(), 'x' + _GLOBAL_ID])
def test_invalid_global_request_id_is_not_logged(app, caplog, global_id):
    line = _formatted_request_line(
        app, caplog, **{'X-Openstack-Request-Id': global_id})
    assert global_id not in line
    assert '[None req-' in line


class _FormattedLines(logging.Handler):
    """The lines as oslo.log writes them, formatted as they are emitted
    (the context is read from the thread's store at that moment)."""

    def __init__(self, formatter):
        super().__init__()
        self.setFormatter(formatter)
        self.lines = []

    def emit(self, record):
        self.lines.append(self.format(record))


def test_a_line_before_authentication_carries_no_earlier_request(app):
    """The 401's request log line is written before the context
    middleware would make the request's context."""
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    handler = _FormattedLines(formatters.ContextFormatter(
        config=conf, project='placement'))
    logger = logging.getLogger('placement.requestlog')
    logger.addHandler(handler)
    previous_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        first = webob.Request.blank('/ok', headers={
            'X-Auth-Token': 'admin',
            'X-Openstack-Request-Id': _GLOBAL_ID}).get_response(app)
        second = webob.Request.blank('/ok').get_response(app)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous_level)
    assert first.status_code == 200 and second.status_code == 401
    assert f'[{_GLOBAL_ID} ' in handler.lines[0]
    own_id = second.headers['x-openstack-request-id']
    assert f'[None {own_id} ' in handler.lines[1]
    assert first.headers['x-openstack-request-id'] not in handler.lines[1]
