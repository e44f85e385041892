"""Drop five indexes that unique constraints on the same columns make
redundant.

Revision ID: a082b8bb98d0
Revises: 422ece571366
Create Date: 2022-09-06
"""

from alembic import op

revision = 'a082b8bb98d0'
down_revision = '422ece571366'
branch_labels = None
depends_on = None

REDUNDANT = (
    ('inventories', 'inventories_resource_provider_id_idx'),
    ('inventories', 'inventories_resource_provider_resource_class_idx'),
    ('placement_aggregates', 'ix_placement_aggregates_uuid'),
    ('resource_providers', 'resource_providers_name_idx'),
    ('resource_providers', 'resource_providers_uuid_idx'),
)


def upgrade():
    for table, index in REDUNDANT:
        op.drop_index(index, table_name=table)
