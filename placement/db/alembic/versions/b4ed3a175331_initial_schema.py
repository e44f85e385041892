"""Initial schema: every table but consumer_types, as upstream's first.

Revision ID: b4ed3a175331
Revises:
Create Date: 2018-10-19
"""

import sqlalchemy as sa
from alembic import op

revision = 'b4ed3a175331'
down_revision = None
branch_labels = None
depends_on = None

_INNODB = {'mysql_engine': 'InnoDB'}


def _timestamps():
    return (sa.Column('created_at', sa.DateTime()),
            sa.Column('updated_at', sa.DateTime()))


def _id():
    return sa.Column('id', sa.Integer(), primary_key=True, nullable=False)


def _named_table(table, column, length, unique_name):
    """A table of unique names (classes, traits, projects, users)."""
    op.create_table(
        table, *_timestamps(), _id(),
        sa.Column(column, sa.String(length), nullable=False),
        sa.UniqueConstraint(column, name=unique_name),
        **_INNODB)


def upgrade():
    op.create_table(
        'allocations', *_timestamps(), _id(),
        sa.Column('resource_provider_id', sa.Integer(), nullable=False),
        sa.Column('consumer_id', sa.String(36), nullable=False),
        sa.Column('resource_class_id', sa.Integer(), nullable=False),
        sa.Column('used', sa.Integer(), nullable=False),
        **_INNODB)
    op.create_index('allocations_resource_provider_class_used_idx',
                    'allocations',
                    ['resource_provider_id', 'resource_class_id', 'used'])
    op.create_index('allocations_resource_class_id_idx', 'allocations',
                    ['resource_class_id'])
    op.create_index('allocations_consumer_id_idx', 'allocations',
                    ['consumer_id'])

    op.create_table(
        'consumers', *_timestamps(), _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('generation', sa.Integer(), nullable=False,
                  server_default=sa.text('0')),
        sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        **_INNODB)
    op.create_index('consumers_project_id_user_id_uuid_idx', 'consumers',
                    ['project_id', 'user_id', 'uuid'])
    op.create_index('consumers_project_id_uuid_idx', 'consumers',
                    ['project_id', 'uuid'])

    op.create_table(
        'inventories', *_timestamps(), _id(),
        sa.Column('resource_provider_id', sa.Integer(), nullable=False),
        sa.Column('resource_class_id', sa.Integer(), nullable=False),
        sa.Column('total', sa.Integer(), nullable=False),
        sa.Column('reserved', sa.Integer(), nullable=False),
        sa.Column('min_unit', sa.Integer(), nullable=False),
        sa.Column('max_unit', sa.Integer(), nullable=False),
        sa.Column('step_size', sa.Integer(), nullable=False),
        sa.Column('allocation_ratio', sa.Float(), nullable=False),
        sa.UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'),
        **_INNODB)
    op.create_index('inventories_resource_class_id_idx', 'inventories',
                    ['resource_class_id'])
    op.create_index('inventories_resource_provider_id_idx', 'inventories',
                    ['resource_provider_id'])
    op.create_index('inventories_resource_provider_resource_class_idx',
                    'inventories',
                    ['resource_provider_id', 'resource_class_id'])

    op.create_table(
        'placement_aggregates', *_timestamps(), _id(),
        sa.Column('uuid', sa.String(36)),
        sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        **_INNODB)
    op.create_index('ix_placement_aggregates_uuid', 'placement_aggregates',
                    ['uuid'])

    _named_table('projects', 'external_id', 255, 'uniq_projects0external_id')
    _named_table('resource_classes', 'name', 255,
                 'uniq_resource_classes0name')

    op.create_table(
        'resource_provider_aggregates', *_timestamps(),
        sa.Column('resource_provider_id', sa.Integer(), primary_key=True,
                  autoincrement=False, nullable=False),
        sa.Column('aggregate_id', sa.Integer(), primary_key=True,
                  autoincrement=False, nullable=False),
        **_INNODB)
    op.create_index('resource_provider_aggregates_aggregate_id_idx',
                    'resource_provider_aggregates', ['aggregate_id'])

    op.create_table(
        'resource_providers', *_timestamps(), _id(),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(200)),
        sa.Column('generation', sa.Integer()),
        sa.Column('root_provider_id', sa.Integer()),
        sa.Column('parent_provider_id', sa.Integer()),
        sa.ForeignKeyConstraint(['parent_provider_id'],
                                ['resource_providers.id']),
        sa.ForeignKeyConstraint(['root_provider_id'],
                                ['resource_providers.id']),
        sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
        sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        **_INNODB)
    op.create_index('resource_providers_name_idx', 'resource_providers',
                    ['name'])
    op.create_index('resource_providers_parent_provider_id_idx',
                    'resource_providers', ['parent_provider_id'])
    op.create_index('resource_providers_root_provider_id_idx',
                    'resource_providers', ['root_provider_id'])
    op.create_index('resource_providers_uuid_idx', 'resource_providers',
                    ['uuid'])

    _named_table('traits', 'name', 255, 'uniq_traits0name')

    op.create_table(
        'resource_provider_traits', *_timestamps(),
        sa.Column('trait_id', sa.Integer(), primary_key=True,
                  autoincrement=False, nullable=False),
        sa.Column('resource_provider_id', sa.Integer(), primary_key=True,
                  autoincrement=False, nullable=False),
        sa.ForeignKeyConstraint(['resource_provider_id'],
                                ['resource_providers.id']),
        sa.ForeignKeyConstraint(['trait_id'], ['traits.id']),
        **_INNODB)
    op.create_index('resource_provider_traits_resource_provider_trait_idx',
                    'resource_provider_traits',
                    ['resource_provider_id', 'trait_id'])

    _named_table('users', 'external_id', 255, 'uniq_users0external_id')
