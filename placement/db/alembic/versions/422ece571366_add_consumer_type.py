"""Consumer types: the consumer_types table and consumers.consumer_type_id.

Revision ID: 422ece571366
Revises: b5c396305c25
Create Date: 2019-07-02
"""

import sqlalchemy as sa
from alembic import op

revision = '422ece571366'
down_revision = 'b5c396305c25'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'consumer_types',
        sa.Column('created_at', sa.DateTime()),
        sa.Column('updated_at', sa.DateTime()),
        sa.Column('id', sa.Integer(), primary_key=True, nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
        mysql_engine='InnoDB')
    with op.batch_alter_table('consumers') as batch:
        batch.add_column(sa.Column('consumer_type_id', sa.Integer()))
        batch.create_index('consumers_consumer_type_id_idx',
                           ['consumer_type_id'])
        batch.create_foreign_key('consumers_consumer_type_id_fkey',
                                 'consumer_types', ['consumer_type_id'],
                                 ['id'])
