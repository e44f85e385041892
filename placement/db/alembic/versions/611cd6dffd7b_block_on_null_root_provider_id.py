"""Refuse to go on while a provider has no root_provider_id.

No DDL: a data check, as upstream's. Providers written before nested
providers existed get their root from the online data migration
``set_root_provider_ids``.

Revision ID: 611cd6dffd7b
Revises: b4ed3a175331
Create Date: 2019-05-09
"""

import sqlalchemy as sa
from alembic import op

from placement.db import migration

revision = '611cd6dffd7b'
down_revision = 'b4ed3a175331'
branch_labels = None
depends_on = None


def upgrade():
    count = op.get_bind().scalar(sa.text(
        'SELECT COUNT(*) FROM resource_providers '
        'WHERE root_provider_id IS NULL'))
    migration.refuse_until_data_migrated(
        count, 'resource providers have no root_provider_id')
