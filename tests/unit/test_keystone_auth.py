"""The keystone strategy: the version document stays open.

No keystone runs here: only what the middleware decides without asking
keystone (no token at all) is tested.
"""

import pytest
import webob

from placement import contract
from placement.handlers import root
from tests.unit import stack

_KEYSTONE = 'http://keystone.example.com/identity'
_OK = (contract.Response(200),)


@pytest.fixture
def app(monkeypatch):
    return stack.service(
        monkeypatch,
        (contract.Operation('GET', '/', root.home, responses=_OK),
         contract.Operation('GET', '/resource_providers', root.home,
                              responses=_OK)),
        api__auth_strategy='keystone',
        keystone_authtoken__www_authenticate_uri=_KEYSTONE)


def _get(app, path):
    return webob.Request.blank(path).get_response(app)


def test_version_document_needs_no_token(app):
    response = _get(app, '/')
    assert response.status_code == 200
    assert response.json['versions'][0]['id'] == 'v1.0'


def test_other_urls_need_a_token(app):
    response = _get(app, '/resource_providers')
    assert response.status_code == 401
    assert _KEYSTONE in response.headers['WWW-Authenticate']
    assert response.headers['x-openstack-request-id'].startswith('req-')
