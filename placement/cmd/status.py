"""placement-status upgrade check: is this deployment ready to upgrade?

Return codes (from oslo.upgradecheck): 0 all passed, 1 warning, 2 failure,
255 unexpected error, and a configuration that stops the command before
any check (a file that does not parse, a database that cannot be used).
"""

import sys

import sqlalchemy as sa
from oslo_config import cfg
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from placement import fatal
from placement import policy
from placement.conf import loading
from placement.conf import unknown
from placement.db import api as db_api
from placement.db import models
from placement.objects import data_migrations

_RP = models.ResourceProvider.__table__

_RUN_MIGRATIONS = ('Run the command: placement-manage db '
                   'online_data_migrations')
_UNEXPECTED_ERROR = 255


def _result(code, problem):
    """A check's result: ``code`` and ``problem`` if it says one (a
    non-empty text), else success."""
    if problem:
        return upgradecheck.Result(code, problem)
    return upgradecheck.Result(upgradecheck.Code.SUCCESS)


class Checks(upgradecheck.UpgradeCommands):
    """Each check reads the database with plain SQL, no object layer."""

    def __init__(self, conf):
        self.conf = conf
        self.db = None
        self._upgrade_checks = (
            ('Missing Root Provider IDs', Checks._check_root_provider_ids),
            ('Incomplete Consumers', Checks._check_incomplete_consumers),
            ('Policy File JSON to YAML Migration',
             (common_checks.check_policy_json, {'conf': conf})),
            ('Policy File', Checks._check_policy_file),
            ('Configuration Files', Checks._check_configuration_files),
        )

    def open_database(self):
        """Connect once, without the retries of the service's start: a
        check says what is, it does not wait for it to change."""
        self.db = db_api.connected(self.conf.placement_database,
                                   max_retries=0)

    def _count(self, query):
        with self.db.reader() as conn:
            return conn.scalar(
                sa.select(sa.func.count()).select_from(query.subquery()))

    def _check_root_provider_ids(self):
        missing = self._count(sa.select(_RP.c.id)
                              .where(_RP.c.root_provider_id.is_(None)))
        return _result(upgradecheck.Code.FAILURE, missing and (
            f'There is at least one resource provider table record '
            f'which misses its root provider id. {_RUN_MIGRATIONS}'))

    def _check_incomplete_consumers(self):
        missing = self._count(data_migrations.consumerless_allocations())
        return _result(upgradecheck.Code.WARNING, missing and (
            f'There are {missing} incomplete consumers table records '
            f'for existing allocations. {_RUN_MIGRATIONS}'))

    def _check_policy_file(self):
        """The policy files parse, and every rule they set is one of
        Placement's (a misspelt name overrides nothing)."""
        try:
            enforcer = policy.make_enforcer(self.conf)
        except policy.PolicyFileError as exc:
            return upgradecheck.Result(upgradecheck.Code.FAILURE, str(exc))
        unknown_rules = policy.unknown_rules(enforcer)
        return _result(upgradecheck.Code.WARNING, unknown_rules and (
            f'Rules that no Placement policy has, ignored: '
            f'{", ".join(unknown_rules)}'))

    def _check_configuration_files(self):
        """Every section and option of the files is read by something."""
        warnings = unknown.options(self.conf)
        return _result(upgradecheck.Code.WARNING, ' '.join(
            f'{warning}.' for warning in warnings))


def _register_commands(conf, checks):
    """The command line of ``upgradecheck.register_cli_options``, with a
    heading and help for the commands (its heading was an empty ``:``).
    As there, any word after ``upgrade`` runs the checks (deployment
    tools send ``upgrade check``; upstream takes any)."""

    def add_parsers(subparsers):
        upgrade = subparsers.add_parser(
            'upgrade', help='Upgrade checks: placement-status upgrade check '
                            '[--json].')
        upgrade.add_argument(
            'check', metavar='check',
            help='Check whether this deployment is ready to upgrade (exit '
                 'status 0: all passed, 1: a warning, 2: a failure, 255: '
                 'an error).')
        upgrade.add_argument(
            '--json', action='store_true',
            help='Output the results in JSON format. Default is to print '
                 'results in human readable table format.')
        upgrade.set_defaults(action_fn=checks.check)

    conf.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Command categories', handler=add_parsers))


@fatal.exits_cleanly(exit_status=_UNEXPECTED_ERROR)
def main(argv=None):
    """What ``upgradecheck.main`` does, with the service's parsing."""
    conf = loading.new_conf()
    checks = Checks(conf)
    _register_commands(conf, checks)
    loading.parse(conf, sys.argv[1:] if argv is None else argv)
    checks.open_database()
    # upgradecheck reads --json from the ConfigOpts it parsed.
    upgradecheck.CONF = conf
    return upgradecheck.run(conf)
