"""The base rules the per-API rules are built from.

These are the defaults deployed today (the "consistent and secure RBAC"
defaults of 2023 onwards): project-scoped tokens, the ``admin`` and
``service`` roles, and a project reader for its own usages. Until
``[oslo_policy] enforce_new_defaults`` is set the admin role also passes
every rule through the deprecated ``rule:admin_api`` (oslo.policy ORs a
deprecated rule in by itself).
"""

from oslo_policy import policy

ADMIN_API = 'rule:admin_api'
SERVICE_API = 'rule:service_api'
ADMIN_OR_SERVICE_API = 'rule:admin_or_service_api'
PROJECT_READER_API = 'rule:project_reader_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE_API = (
    'rule:admin_or_project_reader_or_service_api')

_PROJECT = ['project']

_DEPRECATED_REASON = """
Placement API policies introduced the service role and project-scoped
defaults (the consistent and secure RBAC community goal); the admin role
alone no longer passes the rules meant for services.
"""

# While [oslo_policy] enforce_new_defaults is False, a token with the
# admin role still passes every base rule that names this deprecated one.
DEPRECATED_ADMIN_POLICY = policy.DeprecatedRule(
    name=ADMIN_API,
    check_str='role:admin',
    deprecated_reason=_DEPRECATED_REASON,
    deprecated_since='2023.2',
)

_RULES = [
    policy.RuleDefault(
        'admin_api',
        'role:admin',
        description='Default rule for administrative APIs.',
        scope_types=_PROJECT,
    ),
    policy.RuleDefault(
        'service_api',
        'role:service',
        description='Default rule for service-to-service APIs.',
        scope_types=_PROJECT,
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
    policy.RuleDefault(
        'admin_or_service_api',
        'role:admin or role:service',
        description='Default rule for most placement APIs.',
        scope_types=_PROJECT,
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
    policy.RuleDefault(
        'project_reader_api',
        'role:reader and project_id:%(project_id)s',
        description='Default rule for Project level read only APIs.',
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
    policy.RuleDefault(
        'admin_or_project_reader_or_service_api',
        f'role:admin or {PROJECT_READER_API} or role:service',
        description='Default rule for project level read only APIs that '
                    'administrators and services also use.',
        scope_types=_PROJECT,
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
]


def list_rules():
    return _RULES


def api_rule(name, check_str, description, operations):
    """A documented per-API rule: ``operations`` is [(method, path)].

    Every per-API rule is for project-scoped tokens only.
    """
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        operations=[{'method': method, 'path': path}
                    for method, path in operations],
        scope_types=_PROJECT,
    )
