"""Opening a test database and checking what ``db sync`` leaves in it."""

import contextlib

import os_resource_classes
import os_traits
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import migration
from placement.db import models
from tests import database


@contextlib.contextmanager
def opened(url):
    """A :class:`placement.db.api.Database` on ``url``."""
    db = db_api.Database(database.make_conf(url).placement_database)
    try:
        yield db
    finally:
        db.dispose()


def table_names(url):
    with opened(url) as db:
        return set(sa.inspect(db.engine).get_table_names())


def assert_synced(url):
    """Every table at the head revision; each standard name exactly once."""
    assert table_names(url) == {'alembic_version',
                                *models.Base.metadata.tables}
    with opened(url) as db:
        assert migration.current_version(db.engine) == (
            migration.head_version())
        with db.reader() as conn:
            for model, wanted in (
                    (models.ResourceClass, os_resource_classes.STANDARDS),
                    (models.Trait, os_traits.get_traits())):
                names = conn.scalars(sa.select(model.name)).all()
                assert sorted(names) == sorted(wanted)
