"""placement-status upgrade check: is this deployment ready to upgrade?

Return codes (from oslo.upgradecheck): 0 all passed, 1 warning, 2 failure,
255 unexpected error.
"""

import sys

import sqlalchemy as sa
from oslo_upgradecheck import common_checks
from oslo_upgradecheck import upgradecheck

from placement.conf import loading
from placement.db import api as db_api
from placement.db import models
from placement.objects import data_migrations

_RP = models.ResourceProvider.__table__

_RUN_MIGRATIONS = ('Run the command: placement-manage db '
                   'online_data_migrations')


class Checks(upgradecheck.UpgradeCommands):
    """Each check reads the database with plain SQL, no object layer."""

    def __init__(self, conf):
        self.conf = conf
        self._db = None
        self._upgrade_checks = (
            ('Missing Root Provider IDs', Checks._check_root_provider_ids),
            ('Incomplete Consumers', Checks._check_incomplete_consumers),
            ('Policy File JSON to YAML Migration',
             (common_checks.check_policy_json, {'conf': conf})),
        )

    @property
    def db(self):
        if self._db is None:
            self._db = db_api.Database(self.conf.placement_database)
        return self._db

    def _check_root_provider_ids(self):
        with self.db.reader() as conn:
            missing = conn.scalar(
                sa.select(sa.func.count()).select_from(_RP)
                .where(_RP.c.root_provider_id.is_(None)))
        if missing:
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                f'There is at least one resource provider table record '
                f'which misses its root provider id. {_RUN_MIGRATIONS}')
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_incomplete_consumers(self):
        with self.db.reader() as conn:
            missing = conn.scalar(
                sa.select(sa.func.count()).select_from(
                    data_migrations.consumerless_allocations().subquery()))
        if missing:
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                f'There are {missing} incomplete consumers table records '
                f'for existing allocations. {_RUN_MIGRATIONS}')
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)


def main(argv=None):
    conf = loading.new_conf()
    return upgradecheck.main(
        conf, project='placement', upgrade_command=Checks(conf),
        argv=sys.argv[1:] if argv is None else argv,
        default_config_files=loading.default_config_files())
