"""The oslo.policy enforcer of the service."""

import glob
import os

import yaml
from oslo_config import cfg
from oslo_policy import policy

from placement import fatal
from placement import policies
from placement.conf import loading


class PolicyFileError(fatal.ConfigurationError):
    """A policy file that does not parse; names the file, line, column."""


def make_enforcer(conf: cfg.ConfigOpts) -> policy.Enforcer:
    """An enforcer with every Placement default registered.

    The ``[oslo_policy]`` options (``policy_file``,
    ``enforce_new_defaults``...) are oslo.policy's own, read from
    ``conf``; a policy file overrides the defaults rule by rule.
    oslo.policy checks the token scope against each rule's scope types.
    A policy file that does not parse is a PolicyFileError.
    """
    enforcer = policy.Enforcer(conf)
    enforcer.register_defaults(policies.list_rules())
    try:
        enforcer.load_rules()
    except (ValueError, AttributeError) as exc:
        # oslo.policy says what is wrong but not in which file.
        raise _parse_error(enforcer) or PolicyFileError(
            f'[oslo_policy] policy_file: {fatal.one_line(exc)}') from exc
    return enforcer


def unknown_rules(enforcer):
    """The rules of the policy files that no Placement rule has, sorted.

    What ``oslopolicy-validator`` reports: a misspelt rule name
    overrides nothing.
    """
    return sorted(set(enforcer.file_rules) - set(enforcer.registered_rules))


def _files(enforcer):
    """The policy files oslo.policy reads: the file, then policy_dirs."""
    conf = enforcer.conf
    paths = []
    for name in (enforcer.policy_file, *conf.oslo_policy.policy_dirs):
        found = conf.find_file(name)
        if found is None:
            continue
        if os.path.isdir(found):
            paths.extend(path for path in sorted(
                glob.glob(os.path.join(found, '*'))) if os.path.isfile(path))
        else:
            paths.append(found)
    return paths


def _parse_error(enforcer):
    """The PolicyFileError of the first policy file that does not parse."""
    for path in _files(enforcer):
        try:
            with open(path) as handle:
                rules = yaml.safe_load(handle)
        except yaml.YAMLError as exc:
            mark = getattr(exc, 'problem_mark', None)
            where = (f' line {mark.line + 1}, column {mark.column + 1}:'
                     if mark is not None else '')
            problem = getattr(exc, 'problem', None) or exc
            return PolicyFileError(
                f'policy file {path}:{where} {fatal.one_line(problem)} '
                f'(not valid YAML)')
        if not isinstance(rules, dict | None):
            return PolicyFileError(
                f'policy file {path}: not a mapping of rule names to '
                f'rules')
    return None


def get_enforcer():
    """Entry point for oslopolicy-* tools (they parse the CLI themselves)."""
    conf = loading.new_conf()
    conf([], project='placement')
    return make_enforcer(conf)
