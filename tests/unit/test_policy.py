"""Policy rules: the defaults deployed today, and their enforcement.

The expected table is copied by hand from
``spec/policy-defaults-today.md`` (names, check strings, scope types)
and the policy reference (operations). The reference spells the
reshaper rule ``placement:resaper:reshape`` on ``POST /resaper``; its
sample policy file, the API and the upstream service say ``reshaper``,
which is what is expected here. Who may do what per persona is proved
through the API by ``gabbits/policy-personas*.yaml``.
"""

import os

import pytest
import webob.exc
from oslo_config import cfg
from oslo_policy import generator
from oslo_policy import policy as oslo_policy

from placement import context as placement_context
from placement import policies
from placement import policy
from placement.conf import loading

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ADMIN_OR_SERVICE = 'rule:admin_or_service_api'
PROJECT = ['project']
RP = '/resource_providers/{uuid}'

# name: (check string, scope types, operations)
BASE_RULES = {
    'admin_api': ('role:admin', PROJECT, []),
    'service_api': ('role:service', PROJECT, []),
    'admin_or_service_api': ('role:admin or role:service', PROJECT, []),
    'project_reader_api': (
        'role:reader and project_id:%(project_id)s', None, []),
    'admin_or_project_reader_or_service_api': (
        'role:admin or rule:project_reader_api or role:service',
        PROJECT, []),
}
API_RULES = {
    'placement:resource_providers:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/resource_providers')]),
    'placement:resource_providers:create': (
        ADMIN_OR_SERVICE, PROJECT, [('POST', '/resource_providers')]),
    'placement:resource_providers:show': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', RP)]),
    'placement:resource_providers:update': (
        ADMIN_OR_SERVICE, PROJECT, [('PUT', RP)]),
    'placement:resource_providers:delete': (
        ADMIN_OR_SERVICE, PROJECT, [('DELETE', RP)]),
    'placement:resource_classes:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/resource_classes')]),
    'placement:resource_classes:create': (
        ADMIN_OR_SERVICE, PROJECT, [('POST', '/resource_classes')]),
    'placement:resource_classes:show': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/resource_classes/{name}')]),
    'placement:resource_classes:update': (
        ADMIN_OR_SERVICE, PROJECT, [('PUT', '/resource_classes/{name}')]),
    'placement:resource_classes:delete': (
        ADMIN_OR_SERVICE, PROJECT,
        [('DELETE', '/resource_classes/{name}')]),
    'placement:resource_providers:inventories:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', RP + '/inventories')]),
    'placement:resource_providers:inventories:create': (
        ADMIN_OR_SERVICE, PROJECT, [('POST', RP + '/inventories')]),
    'placement:resource_providers:inventories:show': (
        ADMIN_OR_SERVICE, PROJECT,
        [('GET', RP + '/inventories/{resource_class}')]),
    'placement:resource_providers:inventories:update': (
        ADMIN_OR_SERVICE, PROJECT,
        [('PUT', RP + '/inventories'),
         ('PUT', RP + '/inventories/{resource_class}')]),
    'placement:resource_providers:inventories:delete': (
        ADMIN_OR_SERVICE, PROJECT,
        [('DELETE', RP + '/inventories'),
         ('DELETE', RP + '/inventories/{resource_class}')]),
    'placement:resource_providers:aggregates:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', RP + '/aggregates')]),
    'placement:resource_providers:aggregates:update': (
        ADMIN_OR_SERVICE, PROJECT, [('PUT', RP + '/aggregates')]),
    'placement:resource_providers:usages': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', RP + '/usages')]),
    'placement:usages': (
        'rule:admin_or_project_reader_or_service_api', PROJECT,
        [('GET', '/usages')]),
    'placement:traits:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/traits')]),
    'placement:traits:show': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/traits/{name}')]),
    'placement:traits:update': (
        ADMIN_OR_SERVICE, PROJECT, [('PUT', '/traits/{name}')]),
    'placement:traits:delete': (
        ADMIN_OR_SERVICE, PROJECT, [('DELETE', '/traits/{name}')]),
    'placement:resource_providers:traits:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', RP + '/traits')]),
    'placement:resource_providers:traits:update': (
        ADMIN_OR_SERVICE, PROJECT, [('PUT', RP + '/traits')]),
    'placement:resource_providers:traits:delete': (
        ADMIN_OR_SERVICE, PROJECT, [('DELETE', RP + '/traits')]),
    'placement:allocations:manage': (
        ADMIN_OR_SERVICE, PROJECT, [('POST', '/allocations')]),
    'placement:allocations:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/allocations/{consumer_uuid}')]),
    'placement:allocations:update': (
        ADMIN_OR_SERVICE, PROJECT, [('PUT', '/allocations/{consumer_uuid}')]),
    'placement:allocations:delete': (
        ADMIN_OR_SERVICE, PROJECT,
        [('DELETE', '/allocations/{consumer_uuid}')]),
    'placement:resource_providers:allocations:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', RP + '/allocations')]),
    'placement:allocation_candidates:list': (
        ADMIN_OR_SERVICE, PROJECT, [('GET', '/allocation_candidates')]),
    'placement:reshaper:reshape': (
        'rule:service_api', PROJECT, [('POST', '/reshaper')]),
}
# The operators' reports (not in the reference), after its rules, in
# the order of their modules (placement/reports/declared/).
REPORT_RULES = {
    'placement:reports:audit': (
        'rule:admin_or_service_api', ['project'],
        [('GET', '/reports/audit')]),
    'placement:reports:capacity': (
        'rule:admin_or_service_api', ['project'],
        [('GET', '/reports/capacity')]),
    'placement:reports:explain': (
        'rule:admin_or_service_api', ['project'],
        [('GET', '/reports/explain')]),
    'placement:reports:headroom': (
        'rule:admin_or_service_api', ['project'],
        [('GET', '/reports/headroom')]),
    'placement:reports:usage': (
        'rule:admin_or_service_api or rule:project_reader_api', ['project'],
        [('GET', '/reports/usage'), ('GET', '/reports/usage/{project_id}')]),
}
# GET /metrics (not in the reference either), last.
METRICS_RULES = {
    'placement:metrics': (
        'rule:admin_or_service_api', ['project'], [('GET', '/metrics')]),
}
EXPECTED = {**BASE_RULES, **API_RULES, **REPORT_RULES, **METRICS_RULES}

CREATE_RP = 'placement:resource_providers:create'
RESHAPE = 'placement:reshaper:reshape'
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
    'service_api', 'admin_or_service_api', 'project_reader_api',
    'admin_or_project_reader_or_service_api'])
def test_base_rules_fall_back_to_the_deprecated_admin_rule(name):
    deprecated = _registered()[name].deprecated_rule
    assert deprecated.name == 'rule:admin_api'
    assert deprecated.check_str == 'role:admin'


def test_admin_api_and_the_api_rules_have_no_deprecated_rule():
    for name in ['admin_api', *API_RULES]:
        assert _registered()[name].deprecated_rule is None


def test_no_yoga_system_scoped_rule_is_left():
    for rule in policies.list_rules():
        assert 'system' not in rule.check_str
        assert rule.scope_types in (PROJECT, None)


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


def _service(conf):
    return _context(conf, ['service'], 'service-project')


def _system_admin(conf):
    return _context(conf, ['admin', 'member', 'reader'], system_scope='all')


def _allowed(context, action, target=None):
    try:
        context.can(action, target)
    except webob.exc.HTTPForbidden:
        return False
    return True


def test_the_library_defaults_enforce_the_new_defaults(tmp_path):
    conf = _conf(tmp_path)
    assert conf.oslo_policy.enforce_new_defaults is True
    assert 'enforce_scope' not in conf.oslo_policy


def test_project_admin_and_service_pass_the_admin_or_service_rules(tmp_path):
    conf = _conf(tmp_path)
    assert _allowed(_project_admin(conf), CREATE_RP)
    assert _allowed(_service(conf), CREATE_RP)
    assert _allowed(_project_admin(conf), USAGES, {'project_id': 'p2'})


@pytest.mark.parametrize('new_defaults, admin_may_reshape', [
    (True, False), (False, True)])
def test_reshape_is_for_the_service_and_legacy_admins(
        tmp_path, new_defaults, admin_may_reshape):
    conf = _conf(tmp_path, enforce_new_defaults=new_defaults)
    assert _allowed(_service(conf), RESHAPE)
    assert _allowed(_project_admin(conf), RESHAPE) is admin_may_reshape


def test_project_member_is_refused_admin_rules(tmp_path):
    context = _context(_conf(tmp_path), ['member', 'reader'], 'project-a')
    assert not _allowed(context, CREATE_RP)
    assert not _allowed(context, LIST_RP)


def test_refusal_is_http_forbidden_naming_the_rule(tmp_path):
    context = _context(_conf(tmp_path), ['member'], 'project-a')
    with pytest.raises(webob.exc.HTTPForbidden) as refused:
        context.can(CREATE_RP)
    assert CREATE_RP in refused.value.detail


@pytest.mark.parametrize('new_defaults', [False, True])
def test_a_system_scoped_admin_is_refused_by_the_scope_check(
        tmp_path, new_defaults):
    context = _system_admin(_conf(tmp_path, enforce_new_defaults=new_defaults))
    with pytest.raises(webob.exc.HTTPForbidden) as refused:
        context.can(LIST_RP)
    assert LIST_RP in refused.value.detail
    assert not _allowed(context, USAGES, {'project_id': 'p1'})


def test_unknown_rule_is_refused(tmp_path):
    context = _project_admin(_conf(tmp_path))
    assert not _allowed(context, 'placement:no_such_rule')


@pytest.mark.parametrize('new_defaults', [False, True])
def test_project_reader_reads_usages_of_its_own_project(
        tmp_path, new_defaults):
    conf = _conf(tmp_path, enforce_new_defaults=new_defaults)
    context = _context(conf, ['reader'], 'project-a')
    assert _allowed(context, USAGES, {'project_id': 'project-a'})
    # The default target is the requester's own project.
    assert _allowed(context, USAGES)
    assert not _allowed(context, USAGES, {'project_id': 'project-b'})
    assert not _allowed(context, 'placement:resource_providers:usages')
    assert not _allowed(context, LIST_RP)


def test_policy_file_overrides_one_rule(tmp_path):
    conf = _conf(tmp_path, f'"{LIST_RP}": "role:lister"\n')
    lister = _context(conf, ['lister'], 'project-a')
    assert _allowed(lister, LIST_RP)
    # The overridden rule no longer lets the admin in...
    assert not _allowed(_project_admin(conf), LIST_RP)
    # ...and the other rules keep their defaults.
    assert not _allowed(lister, CREATE_RP)
    assert _allowed(_project_admin(conf), CREATE_RP)


def test_policy_file_overriding_a_base_rule(tmp_path):
    conf = _conf(tmp_path, '"admin_or_service_api": "role:auditor"\n')
    auditor = _context(conf, ['auditor'], 'project-a')
    assert _allowed(auditor, LIST_RP)
    assert not _allowed(_service(conf), LIST_RP)
    assert not _allowed(auditor, RESHAPE)


def test_policy_file_can_give_the_admin_role_every_rule_again(tmp_path):
    conf = _conf(tmp_path, '"service_api": "role:admin or role:service"\n')
    assert _allowed(_project_admin(conf), RESHAPE)
    assert _allowed(_service(conf), RESHAPE)


def test_policy_file_does_not_change_the_scope_types(tmp_path):
    conf = _conf(tmp_path, f'"{LIST_RP}": "role:admin and system_scope:all"\n')
    # The check string changes; the project scope of the default stays,
    # so a system-scoped token is still refused.
    assert not _allowed(_system_admin(conf), LIST_RP)
    assert not _allowed(_project_admin(conf), LIST_RP)


def test_policy_file_can_open_a_rule_to_everyone(tmp_path):
    conf = _conf(tmp_path, f'"{CREATE_RP}": "@"\n')
    assert _allowed(_context(conf, [], 'project-a'), CREATE_RP)


# The sample policy file


def test_sample_generator_writes_every_default(tmp_path):
    output = tmp_path / 'policy.yaml.sample'
    conf = cfg.ConfigOpts()
    generator.generate_sample(args=[
        '--config-file',
        os.path.join(REPO, 'etc', 'placement', 'policy-generator.conf'),
        '--output-file', str(output)], conf=conf)
    sample = output.read_text()
    for name, (check_str, _scope_types, _operations) in EXPECTED.items():
        assert f'#"{name}": "{check_str}"' in sample
    assert 'system_scope' not in sample
    assert sample.count('# Intended scope(s): project') == len(EXPECTED) - 1


@pytest.mark.parametrize('project_id', ['None', '', '%(project_id)s', None])
def test_a_missing_target_value_matches_no_project(tmp_path, project_id):
    """oslo.policy formats None as "None": a target holding one would
    let a reader of a project of that name pass ``project_id:...``."""
    context = _context(_conf(tmp_path), ['reader'], project_id)
    report_usage = 'placement:reports:usage'
    assert not _allowed(context, report_usage, {'project_id': None})
    assert not _allowed(context, USAGES, {'project_id': None})
    assert not _allowed(context, report_usage, {})
    assert _allowed(_project_admin(_conf(tmp_path)), report_usage,
                    {'project_id': None})


# The decisions remembered (policy.Enforcer.allows)


def _evaluations(monkeypatch):
    """The rules oslo.policy evaluates from now on, in order."""
    evaluated = []
    enforce = policy.Enforcer.enforce

    def counting(self, rule, *args, **kwargs):
        evaluated.append(rule)
        return enforce(self, rule, *args, **kwargs)

    monkeypatch.setattr(policy.Enforcer, 'enforce', counting)
    return evaluated


def _with_roles(enforcer, roles, project_id='project-a'):
    return placement_context.RequestContext(
        user_id='someone', project_id=project_id, roles=roles,
        enforcer=enforcer)


def test_a_decision_is_evaluated_once(tmp_path, monkeypatch):
    admin = _project_admin(_conf(tmp_path))
    evaluated = _evaluations(monkeypatch)
    for _ in range(3):
        assert _allowed(admin, LIST_RP)
        assert not _allowed(admin, 'placement:no_such_rule')
    assert evaluated == [LIST_RP, 'placement:no_such_rule']


def test_other_roles_project_or_target_are_decided_anew(
        tmp_path, monkeypatch):
    enforcer = policy.make_enforcer(_conf(tmp_path))
    evaluated = _evaluations(monkeypatch)
    assert _allowed(_with_roles(enforcer, ['admin']), LIST_RP)
    assert not _allowed(_with_roles(enforcer, ['member']), LIST_RP)
    assert _allowed(_with_roles(enforcer, ['admin']), LIST_RP)
    reader = _with_roles(enforcer, ['reader'])
    assert _allowed(reader, USAGES, {'project_id': 'project-a'})
    assert not _allowed(reader, USAGES, {'project_id': 'project-b'})
    assert not _allowed(_with_roles(enforcer, ['reader'], 'project-b'),
                        USAGES, {'project_id': 'project-a'})
    assert len(evaluated) == 5


def test_a_scope_refusal_is_remembered_as_a_refusal(tmp_path, monkeypatch):
    system_admin = _system_admin(_conf(tmp_path))
    evaluated = _evaluations(monkeypatch)
    assert not _allowed(system_admin, LIST_RP)
    assert not _allowed(system_admin, LIST_RP)
    assert evaluated == [LIST_RP]


def test_a_changed_policy_file_drops_the_decisions(tmp_path):
    conf = _conf(tmp_path, f'"{LIST_RP}": "role:lister"\n')
    enforcer = policy.make_enforcer(conf)
    lister = _with_roles(enforcer, ['lister'])
    assert _allowed(lister, LIST_RP)
    path = tmp_path / 'policy.yaml'
    path.write_text(f'"{LIST_RP}": "role:auditor"\n')
    # oslo.policy sees a change by the file's modification time.
    mtime = path.stat().st_mtime + 10
    os.utime(path, (mtime, mtime))
    assert not _allowed(lister, LIST_RP)
    assert _allowed(_with_roles(enforcer, ['auditor']), LIST_RP)


def test_an_emptied_policy_directory_drops_the_decisions(tmp_path):
    rules = tmp_path / 'policy.d'
    rules.mkdir()
    (rules / 'list.yaml').write_text(f'"{LIST_RP}": "role:lister"\n')
    conf = _conf(tmp_path, policy_dirs=[str(rules)])
    enforcer = policy.make_enforcer(conf)
    assert _allowed(_with_roles(enforcer, ['lister']), LIST_RP)
    (rules / 'list.yaml').unlink()
    mtime = rules.stat().st_mtime + 10
    os.utime(rules, (mtime, mtime))
    assert not _allowed(_with_roles(enforcer, ['lister']), LIST_RP)
    assert _allowed(_with_roles(enforcer, ['admin']), LIST_RP)


def test_set_rules_drops_the_decisions(tmp_path):
    enforcer = policy.make_enforcer(_conf(tmp_path))
    admin = _with_roles(enforcer, ['admin'])
    assert _allowed(admin, LIST_RP)
    enforcer.set_rules({LIST_RP: oslo_policy.RuleDefault(
        LIST_RP, '!').check}, overwrite=False)
    assert not _allowed(admin, LIST_RP)


def test_a_rule_set_with_a_remote_check_is_not_remembered(
        tmp_path, monkeypatch):
    conf = _conf(tmp_path, f'"{CREATE_RP}": "http://127.0.0.1:9/check"\n')
    admin = _project_admin(conf)
    evaluated = _evaluations(monkeypatch)
    assert _allowed(admin, LIST_RP)
    assert _allowed(admin, LIST_RP)
    assert evaluated == [LIST_RP, LIST_RP]


def test_the_decisions_kept_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(policy, 'DECISIONS_KEPT', 3)
    enforcer = policy.make_enforcer(_conf(tmp_path))
    for number in range(10):
        assert _allowed(_with_roles(enforcer, ['admin'], f'p{number}'),
                        LIST_RP)
    assert len(enforcer._decisions.kept) <= 3


def _conf_in(directory):
    """A configuration read from ``directory``/placement.conf."""
    path = directory / 'placement.conf'
    path.write_text('[DEFAULT]\n')
    conf = loading.new_conf()
    conf(['--config-file', str(path)], project='placement',
         default_config_files=[])
    return conf


@pytest.mark.parametrize('name', [
    'policy.yaml', 'policy.d', 'placement.conf', 'missing.yaml'])
def test_policy_paths_are_found_where_find_file_finds_them(tmp_path, name):
    (tmp_path / 'policy.d').mkdir()
    (tmp_path / 'policy.yaml').write_text('{}\n')
    conf = _conf_in(tmp_path)
    enforcer = policy.make_enforcer(conf)
    try:
        found = enforcer._get_policy_path(name)
    except cfg.ConfigFilesNotFoundError:
        found = None
    assert found == conf.find_file(name)


def test_a_policy_file_appearing_is_read_by_the_next_check(tmp_path):
    enforcer = policy.make_enforcer(_conf_in(tmp_path))
    lister = _with_roles(enforcer, ['lister'])
    assert not _allowed(lister, LIST_RP)
    (tmp_path / 'policy.yaml').write_text(f'"{LIST_RP}": "role:lister"\n')
    assert _allowed(lister, LIST_RP)


def test_the_search_directories_are_made_once(tmp_path, monkeypatch):
    enforcer = policy.make_enforcer(_conf_in(tmp_path))
    admin = _with_roles(enforcer, ['admin'])
    made = []
    real = cfg._get_config_dirs
    monkeypatch.setattr(cfg, '_get_config_dirs',
                        lambda *args: made.append(args) or real(*args))
    for _ in range(3):
        assert _allowed(admin, LIST_RP)
    assert made == []
    monkeypatch.setenv('HOME', str(tmp_path))
    assert _allowed(admin, LIST_RP)
    assert made == [('placement',)]
