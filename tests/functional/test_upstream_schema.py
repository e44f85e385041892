"""This project's migrations leave upstream's schema at each revision.

At every upstream revision id, the schema our chain creates in an empty
database equals the one upstream's dump for that revision describes, on
each backend; at head, the models equal it too. So a database moves
between upstream and this service in both directions.
"""

import os_resource_classes
import pytest
import sqlalchemy as sa
from alembic import autogenerate
from alembic import migration as alembic_migration

from placement.db import migration
from placement.db import models
from tests import database
from tests.functional import schema
from tests.functional import upstream_schema

pytestmark = pytest.mark.db
RC = models.ResourceClass.__table__


def test_the_chain_is_upstreams():
    assert migration.revisions() == list(upstream_schema.REVISIONS)
    assert migration.head_version() == upstream_schema.REVISIONS[-1]


@pytest.mark.parametrize('revision', upstream_schema.REVISIONS)
def test_schema_equals_upstreams(revision):
    with schema.opened(database.new_empty_database_url()) as ours, \
            schema.opened(database.new_empty_database_url()) as theirs:
        migration.upgrade(ours.engine, revision)
        upstream_schema.load(theirs.engine, revision)
        assert migration.current_version(ours.engine) == revision
        assert (upstream_schema.describe(ours.engine)
                == upstream_schema.describe(theirs.engine))


def test_models_equal_upstream_head():
    with schema.opened(database.new_empty_database_url()) as db:
        upstream_schema.load(db.engine, upstream_schema.REVISIONS[-1])
        with db.engine.connect() as conn:
            context = alembic_migration.MigrationContext.configure(conn)
            differences = autogenerate.compare_metadata(
                context, models.Base.metadata)
    assert differences == []


def test_resource_class_ids_are_upstreams(api):
    """Standard classes at their index in os-resource-classes, custom ones
    from 10000: the ids upstream gives and its rows refer to."""
    for name in ('CUSTOM_FIRST', 'CUSTOM_SECOND'):
        response = api.request('PUT', f'/resource_classes/{name}')
        assert response.status_int == 201, response.text
    with api.db.reader() as conn:
        ids = dict(conn.execute(sa.select(RC.c.name, RC.c.id)).all())
    assert ids == {
        **{name: index for index, name in
           enumerate(os_resource_classes.STANDARDS)},
        'CUSTOM_FIRST': 10000, 'CUSTOM_SECOND': 10001}
