"""The oslo.policy enforcer of the service."""

import copy

from oslo_config import cfg
from oslo_policy import policy

from placement import policies
from placement.conf import loading


def _without_scope(rule):
    """``rule`` with no scope types: any token scope may pass its check."""
    unscoped = copy.copy(rule)
    unscoped.scope_types = None
    return unscoped


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with every Placement default registered.

    ``[oslo_policy]`` options (policy_file, enforce_scope,
    enforce_new_defaults) are read from ``conf``; a policy file overrides
    the defaults rule by rule. Scope types are only checked with
    ``enforce_scope`` (oslo.policy itself may check them always).
    """
    rules = policies.list_rules()
    if not conf.oslo_policy.enforce_scope:
        rules = [_without_scope(rule) for rule in rules]
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(rules)
    enforcer.load_rules()
    return enforcer


def get_enforcer():
    """Entry point for oslopolicy-* tools (they parse the CLI themselves)."""
    conf = loading.new_conf()
    conf([], project='placement')
    return make_enforcer(conf)
