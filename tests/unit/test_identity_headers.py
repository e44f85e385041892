"""A client's own identity headers are stripped on every path, public
ones included, before the context is made or anything logs them; and
redirects never follow the Host header."""

import logging

import pytest
import webob
from oslo_log import formatters

from placement import auth
from placement import contract
from placement import redirects
from placement import util
from placement import wsgi_wrapper
from placement.conf import loading
from placement.handlers import root
from tests.unit import stack

SPOOFED = {
    'X-User-Id': 'mallory', 'X-User': 'mallory', 'X-User-Name': 'mallory',
    'X-Project-Id': 'evilproject', 'X-Tenant-Id': 'evilproject',
    'X-Tenant': 'evilproject', 'X-Project-Name': 'evilproject',
    'X-Roles': 'admin', 'X-Service-Roles': 'service',
    'X-Domain-Id': 'evildomain', 'X-User-Domain-Id': 'evildomain',
    'X-Project-Domain-Id': 'evildomain', 'X-Is-Admin-Project': 'True',
    'X-Identity-Status': 'Confirmed', 'OpenStack-System-Scope': 'all',
    'X-Service-Catalog': '[]',
}
PUBLIC_PATHS = ['/', '/openapi.json', '/reports/', '/reports/static/'
                'reports.css', '/reports/static/nope.js', '/reports',
                '/favicon.ico']


@wsgi_wrapper.PlacementWsgify
def _whoami(req):
    context = req.environ['placement.context']
    return util.Result({'user_id': context.user_id,
                        'project_id': context.project_id,
                        'roles': context.roles,
                        'system_scope': context.system_scope,
                        'headers': sorted(req.headers)}, status=200)


_OK = (contract.Response(200),)
_TABLE = (contract.Operation('GET', '/', root.home, responses=_OK),
          contract.Operation('GET', '/whoami', _whoami, responses=_OK))


@pytest.fixture(params=['noauth2', 'keystone'])
def app(monkeypatch, request, tmp_path):
    # The auth plugin's options are registered as it loads: in a file.
    config_file = tmp_path / 'placement.conf'
    config_file.write_text(
        '[keystone_authtoken]\nwww_authenticate_uri = http://keystone.test\n'
        'auth_type = password\nauth_url = http://keystone.test\n')
    return stack.service(
        monkeypatch, _TABLE, config_file=config_file,
        api__auth_strategy=request.param)


def test_every_header_keystonemiddleware_strips_is_listed():
    for name in SPOOFED:
        assert name in auth.IDENTITY_HEADERS


def _formatted_lines(app, caplog, path, headers):
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    formatter = formatters.ContextFormatter(config=conf,
                                            project='placement')
    req = webob.Request.blank(path, headers=headers)
    with caplog.at_level(logging.DEBUG):
        response = req.get_response(app)
    return response, [formatter.format(record) for record in caplog.records]


@pytest.mark.parametrize('path', PUBLIC_PATHS)
def test_public_paths_log_no_spoofed_identity(app, caplog, path):
    response, lines = _formatted_lines(app, caplog, path, SPOOFED)
    assert response.status_code < 500
    request_lines = [line for line in lines if 'status: ' in line]
    assert request_lines, lines
    for line in lines:
        assert 'mallory' not in line and 'evil' not in line, line


def test_the_context_of_a_public_path_has_no_identity(monkeypatch):
    app = stack.service(monkeypatch, (
        contract.Operation('GET', '/', _whoami, responses=_OK),))
    seen = webob.Request.blank('/', headers=SPOOFED).get_response(app).json
    assert seen['user_id'] is None and seen['project_id'] is None
    assert seen['roles'] == [] and seen['system_scope'] is None
    assert not set(seen['headers']) & {name.title() for name in SPOOFED}


def test_noauth2_sets_the_identity_of_its_token_only(monkeypatch):
    app = stack.service(monkeypatch, _TABLE)
    headers = dict(SPOOFED, **{'X-Auth-Token': 'alice:proj'})
    del headers['OpenStack-System-Scope']
    seen = webob.Request.blank('/whoami', headers=headers).get_response(
        app).json
    # X-Roles and X-Project-Id are what noauth2 takes as its token.
    assert (seen['user_id'], seen['project_id']) == ('alice', 'evilproject')
    assert 'X-User-Name' not in seen['headers']
    assert 'X-Service-Roles' not in seen['headers']


@pytest.mark.parametrize('host', ['evil.example.com', 'evil.example.com:80'])
def test_redirects_do_not_follow_the_host_header(app, host):
    response = webob.Request.blank(
        '/reports', headers={'Host': host}).get_response(app)
    assert response.status_code == 302
    assert response.headers['Location'] == '/reports/'


def test_redirects_keep_the_prefix_the_service_is_mounted_at(app):
    response = webob.Request.blank(
        '/placement/reports', headers={'Host': 'evil.example.com'},
        environ={'SCRIPT_NAME': '/placement',
                 'PATH_INFO': '/reports'}).get_response(app)
    assert response.headers['Location'] == '/placement/reports/'


@pytest.mark.parametrize('location, path', [
    ('http://evil.example.com/reports/', '/reports/'),
    ('https://h:8778/p/reports/?a=1#b', '/p/reports/?a=1#b'),
    ('http://h//evil.example.com/x', '/evil.example.com/x'),
    ('/reports/', '/reports/'),
])
def test_path_only(location, path):
    assert redirects.path_only(location) == path
