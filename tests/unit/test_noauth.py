"""noauth2 authentication and the request context it leads to.

A handler in the deployed stack reports the context it was given.
"""

import pytest
import webob

from placement import contract
from placement import util
from placement import wsgi_wrapper
from tests.unit import stack

_GLOBAL_ID = 'req-2a1c9e43-5d5c-4d3e-9a51-0c7a3b1b8f10'


@wsgi_wrapper.PlacementWsgify
def _whoami(req):
    context = req.environ['placement.context']
    return util.Result({
        'user_id': context.user_id,
        'project_id': context.project_id,
        'roles': context.roles,
        'system_scope': context.system_scope,
        'request_id': context.request_id,
        'global_request_id': context.global_request_id,
        'has_config': context.config is not None,
        'has_enforcer': context.enforcer is not None,
    }, status=200)


@pytest.fixture
def app(monkeypatch):
    return stack.service(monkeypatch, (
        contract.Operation('GET', '/', _whoami),
        contract.Operation('GET', '/whoami', _whoami),
    ))


def _whoami_as(app, token=None, path='/whoami', **headers):
    if token is not None:
        headers['X-Auth-Token'] = token
    response = webob.Request.blank(path, headers=headers).get_response(app)
    return response


def _context(app, token, **headers):
    response = _whoami_as(app, token, **headers)
    assert response.status_code == 200, response.body
    return response.json


def test_admin_token_is_admin_of_project_admin(app):
    context = _context(app, 'admin')
    assert context['user_id'] == 'admin'
    assert context['project_id'] == 'admin'
    assert context['roles'] == ['admin', 'member', 'reader']
    assert context['system_scope'] is None


def test_user_and_project_token(app):
    context = _context(app, 'alice:project-a')
    assert context['user_id'] == 'alice'
    assert context['project_id'] == 'project-a'
    assert context['roles'] == ['member', 'reader']
    assert context['system_scope'] is None


def test_user_token_is_its_own_project(app):
    context = _context(app, 'bob')
    assert context['user_id'] == 'bob'
    assert context['project_id'] == 'bob'
    assert context['roles'] == ['member', 'reader']


def test_roles_header_replaces_the_default_role(app):
    context = _context(app, 'alice:project-a', **{'X-Roles': 'reader'})
    assert context['roles'] == ['reader']


def test_roles_header_implied_roles_and_spacing(app):
    context = _context(app, 'alice:p', **{'X-Roles': ' Member , custom'})
    assert context['roles'] == ['member', 'reader', 'custom']


def test_roles_header_admin_implies_member_and_reader(app):
    context = _context(app, 'alice:p', **{'X-Roles': 'admin'})
    assert context['roles'] == ['admin', 'member', 'reader']


def test_admin_token_keeps_admin_with_other_roles(app):
    context = _context(app, 'admin', **{'X-Roles': 'reader'})
    assert context['roles'] == ['admin', 'member', 'reader']


def test_system_scope_header_gives_a_system_scoped_token(app):
    context = _context(app, 'admin', **{'OpenStack-System-Scope': 'all'})
    assert context['system_scope'] == 'all'
    assert context['project_id'] is None
    assert context['user_id'] == 'admin'
    assert 'admin' in context['roles']


def test_system_scope_drops_a_project_sent_by_the_client(app):
    context = _context(app, 'alice:project-a', **{
        'OpenStack-System-Scope': 'all', 'X-Project-Id': 'project-x',
        'X-Roles': 'reader'})
    assert context['system_scope'] == 'all'
    assert context['project_id'] is None
    assert context['roles'] == ['reader']


def test_project_header_names_the_project(app):
    context = _context(app, 'alice:project-a', **{'X-Project-Id': 'p1'})
    assert context['user_id'] == 'alice'
    assert context['project_id'] == 'p1'


def test_user_header_does_not_override_the_token(app):
    context = _context(app, 'alice:project-a', **{'X-User-Id': 'mallory'})
    assert context['user_id'] == 'alice'
    assert context['project_id'] == 'project-a'


def test_no_token_is_401(app):
    response = _whoami_as(app)
    assert response.status_code == 401
    error = stack.error_of(response)
    assert 'requires authentication' in error['detail']


def test_empty_token_is_401(app):
    assert _whoami_as(app, '').status_code == 401


def test_root_needs_no_token_and_has_an_anonymous_context(app):
    response = _whoami_as(app, path='/')
    assert response.status_code == 200
    assert response.json['user_id'] is None
    assert response.json['project_id'] is None
    assert response.json['roles'] == []


def test_context_carries_the_local_request_id(app):
    response = _whoami_as(app, 'admin')
    assert response.json['request_id'] == (
        response.headers['x-openstack-request-id'])


def test_context_carries_a_valid_global_request_id(app):
    context = _context(app, 'admin', **{'X-Openstack-Request-Id': _GLOBAL_ID})
    assert context['global_request_id'] == _GLOBAL_ID
    assert context['request_id'] != _GLOBAL_ID


@pytest.mark.parametrize('global_id', [
    'not-a-request-id',
    'req-2a1c9e43-5d5c-1d3e-9a51-0c7a3b1b8f10x',
    _GLOBAL_ID.upper(),
])
def test_context_ignores_an_invalid_global_request_id(app, global_id):
    context = _context(app, 'admin', **{'X-Openstack-Request-Id': global_id})
    assert context['global_request_id'] is None


def test_context_has_the_service_state(app):
    context = _context(app, 'admin')
    assert context['has_config'] and context['has_enforcer']
