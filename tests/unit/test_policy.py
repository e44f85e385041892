"""Policy rules: the defaults of the policy reference, and enforcement.

The expected table is copied by hand from the policy reference of the
documentation (names, check strings, scope types, operations). The
reference spells the reshaper rule ``placement:resaper:reshape`` on
``POST /resaper``; its sample policy file, the API and the upstream
service say ``reshaper``, which is what is expected here.
"""

import pytest
import webob.exc

from placement import context as placement_context
from placement import policies
from placement import policy
from placement.conf import loading

SYS_ADMIN = 'rule:system_admin_api'
SYS_READER = 'rule:system_reader_api'
RP = '/resource_providers/{uuid}'

# name: (check string, scope types, operations)
BASE_RULES = {
    'admin_api': ('role:admin', ['system'], []),
    'system_admin_api': ('role:admin and system_scope:all', None, []),
    'system_reader_api': ('role:reader and system_scope:all', None, []),
    'project_reader_api': (
        'role:reader and project_id:%(project_id)s', None, []),
    'system_or_project_reader': (
        'rule:system_reader_api or rule:project_reader_api', None, []),
}
API_RULES = {
    'placement:resource_providers:list': (
        SYS_READER, ['system'], [('GET', '/resource_providers')]),
    'placement:resource_providers:create': (
        SYS_ADMIN, ['system'], [('POST', '/resource_providers')]),
    'placement:resource_providers:show': (
        SYS_READER, ['system'], [('GET', RP)]),
    'placement:resource_providers:update': (
        SYS_ADMIN, ['system'], [('PUT', RP)]),
    'placement:resource_providers:delete': (
        SYS_ADMIN, ['system'], [('DELETE', RP)]),
    'placement:resource_classes:list': (
        SYS_READER, ['system'], [('GET', '/resource_classes')]),
    'placement:resource_classes:create': (
        SYS_ADMIN, ['system'], [('POST', '/resource_classes')]),
    'placement:resource_classes:show': (
        SYS_READER, ['system'], [('GET', '/resource_classes/{name}')]),
    'placement:resource_classes:update': (
        SYS_ADMIN, ['system'], [('PUT', '/resource_classes/{name}')]),
    'placement:resource_classes:delete': (
        SYS_ADMIN, ['system'], [('DELETE', '/resource_classes/{name}')]),
    'placement:resource_providers:inventories:list': (
        SYS_READER, ['system'], [('GET', RP + '/inventories')]),
    'placement:resource_providers:inventories:create': (
        SYS_ADMIN, ['system'], [('POST', RP + '/inventories')]),
    'placement:resource_providers:inventories:show': (
        SYS_READER, ['system'],
        [('GET', RP + '/inventories/{resource_class}')]),
    'placement:resource_providers:inventories:update': (
        SYS_ADMIN, ['system'],
        [('PUT', RP + '/inventories'),
         ('PUT', RP + '/inventories/{resource_class}')]),
    'placement:resource_providers:inventories:delete': (
        SYS_ADMIN, ['system'],
        [('DELETE', RP + '/inventories'),
         ('DELETE', RP + '/inventories/{resource_class}')]),
    'placement:resource_providers:aggregates:list': (
        SYS_READER, ['system'], [('GET', RP + '/aggregates')]),
    'placement:resource_providers:aggregates:update': (
        SYS_ADMIN, ['system'], [('PUT', RP + '/aggregates')]),
    'placement:resource_providers:usages': (
        SYS_READER, ['system'], [('GET', RP + '/usages')]),
    'placement:usages': (
        'rule:system_or_project_reader', ['system', 'project'],
        [('GET', '/usages')]),
    'placement:traits:list': (SYS_READER, ['system'], [('GET', '/traits')]),
    'placement:traits:show': (
        SYS_READER, ['system'], [('GET', '/traits/{name}')]),
    'placement:traits:update': (
        SYS_ADMIN, ['system'], [('PUT', '/traits/{name}')]),
    'placement:traits:delete': (
        SYS_ADMIN, ['system'], [('DELETE', '/traits/{name}')]),
    'placement:resource_providers:traits:list': (
        SYS_READER, ['system'], [('GET', RP + '/traits')]),
    'placement:resource_providers:traits:update': (
        SYS_ADMIN, ['system'], [('PUT', RP + '/traits')]),
    'placement:resource_providers:traits:delete': (
        SYS_ADMIN, ['system'], [('DELETE', RP + '/traits')]),
    'placement:allocations:manage': (
        SYS_ADMIN, ['system'], [('POST', '/allocations')]),
    'placement:allocations:list': (
        SYS_READER, ['system'], [('GET', '/allocations/{consumer_uuid}')]),
    'placement:allocations:update': (
        SYS_ADMIN, ['system'], [('PUT', '/allocations/{consumer_uuid}')]),
    'placement:allocations:delete': (
        SYS_ADMIN, ['system'],
        [('DELETE', '/allocations/{consumer_uuid}')]),
    'placement:resource_providers:allocations:list': (
        SYS_READER, ['system'], [('GET', RP + '/allocations')]),
    'placement:allocation_candidates:list': (
        SYS_READER, ['system'], [('GET', '/allocation_candidates')]),
    'placement:reshaper:reshape': (
        SYS_ADMIN, ['system'], [('POST', '/reshaper')]),
}
# The operators' reports (not in the reference), after its rules.
REPORT_RULES = {
    'placement:reports:capacity': (
        'rule:admin_or_service_api', ['project'],
        [('GET', '/reports/capacity')]),
    'placement:reports:usage': (
        'rule:admin_or_service_api or rule:project_reader_api', ['project'],
        [('GET', '/reports/usage'), ('GET', '/reports/usage/{project_id}')]),
    'placement:reports:headroom': (
        'rule:admin_or_service_api', ['project'],
        [('GET', '/reports/headroom')]),
}
EXPECTED = {**BASE_RULES, **API_RULES, **REPORT_RULES}

CREATE_RP = 'placement:resource_providers:create'
LIST_RP = 'placement:resource_providers:list'
USAGES = 'placement:usages'


def _registered():
    return {rule.name: rule for rule in policies.list_rules()}


def _operations(rule):
    return [(op['method'], op['path'])
            for op in getattr(rule, 'operations', [])]


def test_rule_names_are_those_of_the_reference_in_order():
    assert [rule.name for rule in policies.list_rules()] == list(EXPECTED)


@pytest.mark.parametrize('name', list(EXPECTED))
def test_rule_default(name):
    check_str, scope_types, operations = EXPECTED[name]
    rule = _registered()[name]
    assert rule.check_str == check_str
    assert rule.scope_types == scope_types
    assert _operations(rule) == operations
    if name in API_RULES:
        assert rule.description


@pytest.mark.parametrize('name', [
    'system_admin_api', 'system_reader_api', 'project_reader_api',
    'system_or_project_reader'])
def test_new_base_rules_fall_back_to_the_deprecated_admin_rule(name):
    deprecated = _registered()[name].deprecated_rule
    assert deprecated.name == 'rule:admin_api'
    assert deprecated.check_str == 'role:admin'


def test_admin_api_is_deprecated_for_removal():
    assert _registered()['admin_api'].deprecated_for_removal


# Enforcement


def _conf(tmp_path, policy_text=None, **overrides):
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    for name, value in overrides.items():
        conf.set_override(name, value, group='oslo_policy')
    if policy_text is not None:
        path = tmp_path / 'policy.yaml'
        path.write_text(policy_text)
        conf.set_override('policy_file', str(path), group='oslo_policy')
    return conf


def _context(conf, roles, project_id=None, system_scope=None):
    return placement_context.RequestContext(
        user_id='someone', project_id=project_id, roles=roles,
        system_scope=system_scope, enforcer=policy.make_enforcer(conf))


def _project_admin(conf, project_id='project-a'):
    return _context(conf, ['admin', 'member', 'reader'], project_id)


def _system_admin(conf):
    return _context(conf, ['admin', 'member', 'reader'], system_scope='all')


def _system_reader(conf):
    return _context(conf, ['reader'], system_scope='all')


def _project_reader(conf, project_id='project-a'):
    return _context(conf, ['reader'], project_id)


def _allowed(context, action, target=None):
    try:
        context.can(action, target)
    except webob.exc.HTTPForbidden:
        return False
    return True


def test_defaults_keep_the_deprecated_rules_and_ignore_scope(tmp_path):
    conf = _conf(tmp_path)
    assert conf.oslo_policy.enforce_new_defaults is False
    assert conf.oslo_policy.enforce_scope is False


def test_project_admin_passes_admin_rules_by_default(tmp_path):
    context = _project_admin(_conf(tmp_path))
    assert _allowed(context, CREATE_RP)
    assert _allowed(context, LIST_RP)
    assert _allowed(context, USAGES, {'project_id': 'project-b'})


def test_project_member_is_refused_admin_and_reader_rules(tmp_path):
    context = _context(_conf(tmp_path), ['member', 'reader'], 'project-a')
    assert not _allowed(context, CREATE_RP)
    assert not _allowed(context, LIST_RP)


def test_refusal_is_http_forbidden_naming_the_rule(tmp_path):
    context = _context(_conf(tmp_path), ['member'], 'project-a')
    with pytest.raises(webob.exc.HTTPForbidden) as refused:
        context.can(CREATE_RP)
    assert CREATE_RP in refused.value.detail


def test_unknown_rule_is_refused(tmp_path):
    context = _project_admin(_conf(tmp_path))
    assert not _allowed(context, 'placement:no_such_rule')


def test_new_defaults_refuse_a_project_admin(tmp_path):
    context = _project_admin(_conf(tmp_path, enforce_new_defaults=True))
    assert not _allowed(context, CREATE_RP)
    assert not _allowed(context, LIST_RP)


def test_new_defaults_let_a_system_admin_pass(tmp_path):
    context = _system_admin(_conf(tmp_path, enforce_new_defaults=True))
    assert _allowed(context, CREATE_RP)
    assert _allowed(context, LIST_RP)
    assert _allowed(context, USAGES, {'project_id': 'project-b'})


def test_new_defaults_let_a_system_reader_read_only(tmp_path):
    context = _system_reader(_conf(tmp_path, enforce_new_defaults=True))
    assert _allowed(context, LIST_RP)
    assert _allowed(context, 'placement:allocation_candidates:list')
    assert _allowed(context, USAGES, {'project_id': 'project-b'})
    assert not _allowed(context, CREATE_RP)
    assert not _allowed(context, 'placement:reshaper:reshape')


@pytest.mark.parametrize('new_defaults', [False, True])
def test_project_reader_reads_usages_of_its_own_project(
        tmp_path, new_defaults):
    conf = _conf(tmp_path, enforce_new_defaults=new_defaults)
    context = _project_reader(conf, 'project-a')
    assert _allowed(context, USAGES, {'project_id': 'project-a'})
    # The default target is the requester's own project.
    assert _allowed(context, USAGES)
    assert not _allowed(context, USAGES, {'project_id': 'project-b'})
    assert not _allowed(context, 'placement:resource_providers:usages')
    assert not _allowed(context, LIST_RP)


def test_enforce_scope_refuses_a_project_token_on_system_rules(tmp_path):
    conf = _conf(tmp_path, enforce_scope=True)
    assert not _allowed(_project_admin(conf), CREATE_RP)
    assert not _allowed(_project_admin(conf), LIST_RP)
    assert _allowed(_system_admin(conf), CREATE_RP)


def test_enforce_scope_lets_a_project_token_read_its_usages(tmp_path):
    conf = _conf(tmp_path, enforce_scope=True, enforce_new_defaults=True)
    context = _project_reader(conf, 'project-a')
    assert _allowed(context, USAGES, {'project_id': 'project-a'})
    assert not _allowed(context, USAGES, {'project_id': 'project-b'})


def test_enforce_scope_with_new_defaults(tmp_path):
    conf = _conf(tmp_path, enforce_scope=True, enforce_new_defaults=True)
    assert _allowed(_system_admin(conf), CREATE_RP)
    assert _allowed(_system_reader(conf), LIST_RP)
    assert not _allowed(_system_reader(conf), CREATE_RP)
    assert not _allowed(_project_admin(conf), LIST_RP)


def test_policy_file_overrides_one_rule(tmp_path):
    conf = _conf(tmp_path, f'"{LIST_RP}": "role:lister"\n')
    lister = _context(conf, ['lister'], 'project-a')
    assert _allowed(lister, LIST_RP)
    # The overridden rule no longer falls back to the admin role...
    assert not _allowed(_project_admin(conf), LIST_RP)
    # ...and the other rules keep their defaults.
    assert not _allowed(lister, CREATE_RP)
    assert _allowed(_project_admin(conf), CREATE_RP)


def test_policy_file_overriding_a_base_rule(tmp_path):
    conf = _conf(tmp_path, '"system_reader_api": "role:auditor"\n',
                 enforce_new_defaults=True)
    auditor = _context(conf, ['auditor'], 'project-a')
    assert _allowed(auditor, LIST_RP)
    assert not _allowed(auditor, CREATE_RP)
    assert not _allowed(_system_reader(conf), LIST_RP)


def test_policy_file_can_open_a_rule_to_everyone(tmp_path):
    conf = _conf(tmp_path, f'"{CREATE_RP}": "@"\n')
    assert _allowed(_context(conf, [], 'project-a'), CREATE_RP)
