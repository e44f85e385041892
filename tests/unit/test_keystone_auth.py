"""The keystone strategy: the version document stays open; what cannot
work stops the service at start; keystone out of reach is a JSON 503.

No keystone runs here: what the middleware decides without asking
keystone (no token at all), what it loads at start, and a keystone on
a loopback port nothing listens on.
"""

import socket
import sys

import pytest
import webob

from placement import contract
from placement import fatal
from placement.handlers import root
from tests import install_guide
from tests.unit import stack

_KEYSTONE = 'http://keystone.example.com/identity'
_OK = (contract.Operation('GET', '/', root.home,
                          responses=(contract.Response(200),)),
       contract.Operation('GET', '/resource_providers', root.home,
                          responses=(contract.Response(200),)))


def _service(monkeypatch, tmp_path, text):
    """The stack with the keystone strategy and configuration ``text``."""
    config_file = tmp_path / 'placement.conf'
    config_file.write_text(text)
    return stack.service(monkeypatch, _OK, config_file=config_file,
                         api__auth_strategy='keystone')


#: The service's own credentials (keystone is not asked for them until
#: a token is validated).
_CREDENTIALS = (f'auth_type = password\nauth_url = {_KEYSTONE}\n'
                f'username = placement\npassword = secret\n')


@pytest.fixture
def app(monkeypatch, tmp_path):
    return _service(
        monkeypatch, tmp_path,
        f'[keystone_authtoken]\nwww_authenticate_uri = {_KEYSTONE}\n'
        + _CREDENTIALS)


@pytest.fixture
def nothing_listening():
    """A loopback URL on a port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    return f'http://127.0.0.1:{port}/'


def _get(app, path, **headers):
    return webob.Request.blank(path, headers=headers).get_response(app)


def test_version_document_needs_no_token(app):
    response = _get(app, '/')
    assert response.status_code == 200
    assert response.json['versions'][0]['id'] == 'v1.0'


def test_other_urls_need_a_token(app):
    response = _get(app, '/resource_providers')
    assert response.status_code == 401
    assert _KEYSTONE in response.headers['WWW-Authenticate']
    assert response.headers['x-openstack-request-id'].startswith('req-')


def test_keystone_out_of_reach_is_a_json_503(
        monkeypatch, tmp_path, nothing_listening):
    """The install guide's configuration (memcached_servers included:
    its client is a dependency) with keystone unreachable: each request
    with a token is a 503 in the API's error document, at once."""
    app = _service(monkeypatch, tmp_path,
                   install_guide.keystone_authtoken(
                       nothing_listening, '127.0.0.1:11211'))
    response = _get(app, '/resource_providers', **{
        'X-Auth-Token': 'a-token', 'Accept': '*/*'})
    assert response.status_code == 503
    error = stack.error_of(response)
    assert error['detail'].endswith(
        'The Keystone service is temporarily unavailable.')


@pytest.mark.parametrize('options, line', [
    # Without one, keystonemiddleware answered each request with a token
    # with a 500.
    (f'www_authenticate_uri = {_KEYSTONE}\n',
     '[keystone_authtoken] auth_type is not set: the service cannot '
     'validate tokens without the credentials it asks keystone with '
     '(auth_type = password, auth_url, username, password, ...; see the '
     '[keystone_authtoken] section of the installation guide)'),
    ('auth_type = bogus\n',
     '[keystone_authtoken] auth_type = bogus: The plugin bogus could not '
     'be found'),
    ('auth_type = password\n',
     '[keystone_authtoken] auth_type = password: Auth plugin requires '
     'parameters which were not given: auth_url'),
])
def test_an_auth_plugin_that_cannot_load_stops_the_service(
        monkeypatch, tmp_path, options, line):
    with pytest.raises(fatal.ConfigurationError) as raised:
        _service(monkeypatch, tmp_path, '[keystone_authtoken]\n' + options)
    assert fatal.one_line(raised.value) == line


@pytest.mark.parametrize('options, module, package', [
    ('', 'memcache', 'python-memcached'),
    ('memcache_sasl_enabled = true\n', 'bmemcached',
     'python-binary-memcached'),
])
def test_a_memcached_client_not_installed_stops_the_service(
        monkeypatch, tmp_path, nothing_listening, options, module, package):
    monkeypatch.setitem(sys.modules, module, None)  # not importable
    with pytest.raises(fatal.ConfigurationError) as raised:
        _service(monkeypatch, tmp_path,
                 install_guide.keystone_authtoken(
                       nothing_listening, '127.0.0.1:11211') + options)
    assert fatal.one_line(raised.value).startswith(
        f'[keystone_authtoken] memcached_servers is set but its client, '
        f'{package}, is not installed')
