"""The base rules the per-API rules are built from."""

from oslo_policy import policy

ADMIN_API = 'rule:admin_api'
SYSTEM_ADMIN_API = 'rule:system_admin_api'
SYSTEM_READER_API = 'rule:system_reader_api'
PROJECT_READER_API = 'rule:project_reader_api'
SYSTEM_OR_PROJECT_READER = 'rule:system_or_project_reader'

_DEPRECATED_REASON = """
Placement API policies are introducing new default roles with scope_type
capabilities. Old policies are deprecated and silently going to be ignored
in the placement 6.0.0 (Xena) release.
"""

# Until [oslo_policy] enforce_new_defaults is set, a token with the admin
# role still passes every new-style base rule through this deprecated one.
DEPRECATED_ADMIN_POLICY = policy.DeprecatedRule(
    name=ADMIN_API,
    check_str='role:admin',
    deprecated_reason=_DEPRECATED_REASON,
    deprecated_since='W',
)

_RULES = [
    policy.RuleDefault(
        'admin_api',
        'role:admin',
        description='Default rule for most placement APIs.',
        scope_types=['system'],
        deprecated_for_removal=True,
        deprecated_reason=_DEPRECATED_REASON,
        deprecated_since='W',
    ),
    policy.RuleDefault(
        'system_admin_api',
        'role:admin and system_scope:all',
        description='Default rule for System Admin APIs.',
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
    policy.RuleDefault(
        'system_reader_api',
        'role:reader and system_scope:all',
        description='Default rule for System level read only APIs.',
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
    policy.RuleDefault(
        'project_reader_api',
        'role:reader and project_id:%(project_id)s',
        description='Default rule for Project level read only APIs.',
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
    policy.RuleDefault(
        'system_or_project_reader',
        f'{SYSTEM_READER_API} or {PROJECT_READER_API}',
        description='Default rule for System+Project read only APIs.',
        deprecated_rule=DEPRECATED_ADMIN_POLICY,
    ),
]


def list_rules():
    return _RULES


def api_rule(name, check_str, description, operations,
             scope_types=('system',)):
    """A documented per-API rule: ``operations`` is [(method, path)]."""
    return policy.DocumentedRuleDefault(
        name=name,
        check_str=check_str,
        description=description,
        operations=[{'method': method, 'path': path}
                    for method, path in operations],
        scope_types=list(scope_types),
    )
