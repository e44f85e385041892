"""Refuse to go on while an allocation's consumer has no consumers row.

No DDL: a data check, as upstream's. Allocations written before consumer
records existed get one from the online data migration
``create_incomplete_consumers``.

Revision ID: b5c396305c25
Revises: 611cd6dffd7b
Create Date: 2019-06-21
"""

import sqlalchemy as sa
from alembic import op

from placement.db import migration

revision = 'b5c396305c25'
down_revision = '611cd6dffd7b'
branch_labels = None
depends_on = None


def upgrade():
    count = op.get_bind().scalar(sa.text(
        'SELECT COUNT(DISTINCT a.consumer_id) FROM allocations a '
        'LEFT JOIN consumers c ON c.uuid = a.consumer_id '
        'WHERE c.id IS NULL'))
    migration.refuse_until_data_migrated(
        count, 'consumers of allocations have no consumers record')
