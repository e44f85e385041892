"""The oslo.policy enforcer of the service."""

import glob
import os
import threading

import yaml
from oslo_config import cfg
from oslo_policy import _checks
from oslo_policy import policy

from placement import fatal
from placement import policies
from placement.conf import loading


class PolicyFileError(fatal.ConfigurationError):
    """A policy file that does not parse; names the file, line, column."""


#: The check kinds whose answer depends on the rule, the credentials and
#: the target alone (an ``http:`` check asks a remote server, a check
#: of a plug-in may do anything).
_PURE_CHECKS = frozenset({
    _checks.TrueCheck, _checks.FalseCheck, _checks.RoleCheck,
    _checks.GenericCheck, _checks.RuleCheck, _checks.AndCheck,
    _checks.OrCheck, _checks.NotCheck})

#: Decisions kept per rule set; past it they are forgotten and rebuilt.
DECISIONS_KEPT = 4096


class Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer remembering its decisions.

    Requests ask the same rules for the same few credentials and
    targets (nova's service user, an admin) over and over, and
    oslo.policy evaluates a rule anew each time (about 45 us of CPU).
    ``allows`` still lets oslo.policy look at the policy files first
    (``load_rules``, which picks up a changed file), and forgets every
    decision when the rules change; it remembers only the decisions of
    rule sets made of checks that look at nothing but the rule, the
    credentials and the target. oslo.policy's debug line per check is
    logged only when a decision is made.
    """

    def __init__(self, *args, **kwargs):
        self._lock = threading.Lock()
        self._changes = 0
        self._decisions = None
        self._kept_search_dirs = None
        super().__init__(*args, **kwargs)

    @property
    def rules(self):
        return self._rules

    @rules.setter
    def rules(self, rules):
        # oslo.policy replaces its rule set without set_rules when a
        # policy directory empties.
        self._rules = rules
        self._changed()

    def set_rules(self, *args, **kwargs):
        super().set_rules(*args, **kwargs)
        self._changed()

    def register_default(self, default):
        super().register_default(default)
        self._changed()

    def load_rules(self, force_reload=False):
        changes, count = self._changes, len(self.rules)
        super().load_rules(force_reload)
        if self._changes != changes or len(self.rules) != count:
            # Rule sets half loaded may have been seen meanwhile.
            self._changed()

    def _get_policy_path(self, path):
        """oslo.policy's look-up of the policy file or a policy directory:
        ``ConfigOpts.find_file``'s search, with its directories made once
        for what they are made of (making them took most of a check's
        ``load_rules``, twice a check). The file is looked for at every
        check as before: one that appears is read by the next."""
        for directory in self._search_dirs():
            candidate = os.path.join(directory, path)
            if os.path.exists(candidate):
                return candidate
        raise cfg.ConfigFilesNotFoundError([path])

    def _search_dirs(self):
        """``ConfigOpts.find_file``'s directories, in its order: the
        configuration directories given, those of the configuration
        files (the last first), then the standard ones."""
        conf = self.conf
        config_dirs = tuple(conf._namespace._config_dirs)
        config_files = tuple(conf.config_file)
        key = (config_dirs, config_files, conf.project, os.getcwd(),
               *map(os.environ.get, ('HOME', 'SNAP', 'SNAP_COMMON')))
        kept = self._kept_search_dirs
        if kept is None or kept[0] != key:
            dirs = [cfg._fixpath(directory) for directory in config_dirs]
            dirs.extend(os.path.dirname(cfg._fixpath(name))
                        for name in reversed(config_files))
            dirs.extend(cfg._get_config_dirs(conf.project))
            kept = self._kept_search_dirs = (key, tuple(dirs))
        return kept[1]

    def _changed(self):
        with self._lock:
            self._changes += 1
            self._decisions = None

    def _current_decisions(self):
        decisions = self._decisions
        if decisions is None:
            changes = self._changes
            decisions = _Decisions(self.rules)
            with self._lock:
                # Not kept when the rules changed while it was made.
                if self._changes == changes:
                    self._decisions = decisions
        return decisions

    def allows(self, action, target, context):
        """Whether ``context`` may do ``action`` on ``target``: False
        where ``enforce(..., do_raise=True)`` raises PolicyNotAuthorized
        or InvalidScope (a token of the wrong scope)."""
        self.load_rules()
        decisions = self._current_decisions()
        key = decisions.key(action, target, dict(context.to_policy_values()))
        if key is None:
            return self._enforce(action, target, context)
        allowed = decisions.get(key)
        if allowed is None:
            allowed = self._enforce(action, target, context)
            decisions.put(key, allowed)
        return allowed

    def _enforce(self, action, target, context):
        try:
            return bool(self.enforce(action, target, context, do_raise=True))
        except (policy.PolicyNotAuthorized, policy.InvalidScope):
            return False


class _Decisions:
    """The decisions of one rule set, by rule, credentials and target."""

    def __init__(self, rules):
        self.kept = {} if all(map(_pure, rules.values())) else None

    def key(self, action, target, creds):
        """The key of a decision, None when it cannot be remembered."""
        if self.kept is None:
            return None
        try:
            key = (action, _frozen(target), _frozen(creds))
            hash(key)
        except TypeError:
            return None
        return key

    def get(self, key):
        return self.kept.get(key)

    def put(self, key, allowed):
        if len(self.kept) >= DECISIONS_KEPT:
            self.kept.clear()
        self.kept[key] = allowed


def _pure(check):
    """Whether a check tree is made of _PURE_CHECKS only."""
    if type(check) not in _PURE_CHECKS:
        return False
    if isinstance(check, _checks.NotCheck):
        return _pure(check.rule)
    if isinstance(check, _checks.AndCheck | _checks.OrCheck):
        return all(map(_pure, check.rules))
    return True


def _frozen(value):
    """``value`` hashable, its type kept (``str()`` of a list or of
    True differs from that of a tuple or of 1)."""
    if isinstance(value, dict):
        return (dict, tuple(sorted(
            (key, _frozen(item)) for key, item in value.items())))
    if isinstance(value, list | tuple):
        return (type(value), tuple(map(_frozen, value)))
    return (type(value), value)


def make_enforcer(conf: cfg.ConfigOpts) -> Enforcer:
    """An enforcer with every Placement default registered.

    The ``[oslo_policy]`` options (``policy_file``,
    ``enforce_new_defaults``...) are oslo.policy's own, read from
    ``conf``; a policy file overrides the defaults rule by rule.
    oslo.policy checks the token scope against each rule's scope types.
    A policy file that does not parse is a PolicyFileError.
    """
    enforcer = Enforcer(conf)
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
