"""The ``[oslo_policy]`` group, with the defaults of the policy reference.

Placement documents ``enforce_scope`` and ``enforce_new_defaults`` as
False by default: a project-scoped admin token keeps working until the
operator opts into the new system-scoped defaults. Newer oslo.policy
releases default ``enforce_new_defaults`` to True and no longer have
``enforce_scope`` at all (scope is always checked); the option is then
registered here and honoured by :func:`placement.policy.make_enforcer`.
"""

from oslo_config import cfg
from oslo_policy import opts as policy_opts

GROUP = 'oslo_policy'

enforce_scope_opt = cfg.BoolOpt(
    'enforce_scope',
    default=False,
    help="""
This option controls whether or not to enforce scope when evaluating
policies. If ``True``, the scope of the token used in the request is compared
to the ``scope_types`` of the policy being enforced. If the scopes do not
match, the request is refused. If ``False``, scope is not checked.
""")


def _library_has_enforce_scope():
    return any(opt.name == enforce_scope_opt.name
               for _group, opts in policy_opts.list_opts() for opt in opts)


def register_opts(conf):
    policy_opts.set_defaults(conf, enforce_scope=False,
                             enforce_new_defaults=False)
    if not _library_has_enforce_scope():
        conf.register_opt(enforce_scope_opt, group=GROUP)


def list_opts():
    if _library_has_enforce_scope():
        return {}
    return {GROUP: [enforce_scope_opt]}
