"""The oslo.policy enforcer of the service."""

from oslo_config import cfg
from oslo_policy import policy

from placement import policies
from placement.conf import loading


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with every Placement default registered.

    The ``[oslo_policy]`` options (``policy_file``,
    ``enforce_new_defaults``...) are oslo.policy's own, read from
    ``conf``; a policy file overrides the defaults rule by rule.
    oslo.policy checks the token scope against each rule's scope types.
    """
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    enforcer.load_rules()
    return enforcer


def get_enforcer():
    """Entry point for oslopolicy-* tools (they parse the CLI themselves)."""
    conf = loading.new_conf()
    conf([], project='placement')
    return make_enforcer(conf)
