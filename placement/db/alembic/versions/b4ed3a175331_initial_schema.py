"""Initial schema

Revision ID: b4ed3a175331
Revises:
Create Date: 2026-11-21 14:19:34.471214
"""

import sqlalchemy as sa
from alembic import op

revision = "b4ed3a175331"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "consumer_types",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consumer_types")),
        sa.UniqueConstraint("name", name=op.f("uniq_consumer_types0name")),
    )
    op.create_table(
        "placement_aggregates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_placement_aggregates")),
        sa.UniqueConstraint(
            "uuid", name=op.f("uniq_placement_aggregates0uuid")
        ),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects")),
        sa.UniqueConstraint(
            "external_id", name=op.f("uniq_projects0external_id")
        ),
    )
    op.create_table(
        "resource_classes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_classes")),
        sa.UniqueConstraint("name", name=op.f("uniq_resource_classes0name")),
    )
    op.create_table(
        "resource_providers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("root_provider_id", sa.Integer(), nullable=True),
        sa.Column("parent_provider_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["parent_provider_id"],
            ["resource_providers.id"],
            name=op.f(
                "fk_resource_providers_parent_provider_id_resource_providers"
            ),
        ),
        sa.ForeignKeyConstraint(
            ["root_provider_id"],
            ["resource_providers.id"],
            name=op.f(
                "fk_resource_providers_root_provider_id_resource_providers"
            ),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_resource_providers")),
        sa.UniqueConstraint("name", name=op.f("uniq_resource_providers0name")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_resource_providers0uuid")),
    )
    op.create_index(
        "ix_resource_providers_parent_provider_id",
        "resource_providers",
        ["parent_provider_id"],
        unique=False,
    )
    op.create_index(
        "ix_resource_providers_root_provider_id",
        "resource_providers",
        ["root_provider_id"],
        unique=False,
    )

    op.create_table(
        "traits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_traits")),
        sa.UniqueConstraint("name", name=op.f("uniq_traits0name")),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("external_id", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint(
            "external_id", name=op.f("uniq_users0external_id")
        ),
    )
    op.create_table(
        "allocations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("consumer_id", sa.String(length=36), nullable=False),
        sa.Column("resource_class_id", sa.Integer(), nullable=False),
        sa.Column("used", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_class_id"],
            ["resource_classes.id"],
            name=op.f("fk_allocations_resource_class_id_resource_classes"),
        ),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name=op.f(
                "fk_allocations_resource_provider_id_resource_providers"
            ),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_allocations")),
    )
    op.create_index(
        "ix_allocations_consumer_id",
        "allocations",
        ["consumer_id"],
        unique=False,
    )
    op.create_index(
        "ix_allocations_resource_class_id",
        "allocations",
        ["resource_class_id"],
        unique=False,
    )
    op.create_index(
        "ix_allocations_resource_provider_class_used",
        "allocations",
        ["resource_provider_id", "resource_class_id", "used"],
        unique=False,
    )

    op.create_table(
        "consumers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("consumer_type_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["consumer_type_id"],
            ["consumer_types.id"],
            name=op.f("fk_consumers_consumer_type_id_consumer_types"),
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_consumers_project_id_projects"),
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_consumers_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consumers")),
        sa.UniqueConstraint("uuid", name=op.f("uniq_consumers0uuid")),
    )
    op.create_index(
        "ix_consumers_consumer_type_id",
        "consumers",
        ["consumer_type_id"],
        unique=False,
    )
    op.create_index(
        "ix_consumers_project_id_user_id",
        "consumers",
        ["project_id", "user_id"],
        unique=False,
    )

    op.create_table(
        "inventories",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("resource_class_id", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("reserved", sa.Integer(), nullable=False),
        sa.Column("min_unit", sa.Integer(), nullable=False),
        sa.Column("max_unit", sa.Integer(), nullable=False),
        sa.Column("step_size", sa.Integer(), nullable=False),
        sa.Column("allocation_ratio", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_class_id"],
            ["resource_classes.id"],
            name=op.f("fk_inventories_resource_class_id_resource_classes"),
        ),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name=op.f(
                "fk_inventories_resource_provider_id_resource_providers"
            ),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inventories")),
        sa.UniqueConstraint(
            "resource_provider_id",
            "resource_class_id",
            name=op.f(
                "uniq_inventories0resource_provider_id_resource_class_id"
            ),
        ),
    )
    op.create_index(
        "ix_inventories_resource_class_id",
        "inventories",
        ["resource_class_id"],
        unique=False,
    )

    op.create_table(
        "resource_provider_aggregates",
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("aggregate_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["aggregate_id"],
            ["placement_aggregates.id"],
            name=op.f(
                "fk_resource_provider_aggregates_aggregate_id_placement_aggregates"
            ),
        ),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name=op.f(
                "fk_resource_provider_aggregates_resource_provider_id_resource_providers"
            ),
        ),
        sa.PrimaryKeyConstraint(
            "resource_provider_id",
            "aggregate_id",
            name=op.f("pk_resource_provider_aggregates"),
        ),
    )
    op.create_index(
        "ix_resource_provider_aggregates_aggregate_id",
        "resource_provider_aggregates",
        ["aggregate_id"],
        unique=False,
    )

    op.create_table(
        "resource_provider_traits",
        sa.Column("trait_id", sa.Integer(), nullable=False),
        sa.Column("resource_provider_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["resource_provider_id"],
            ["resource_providers.id"],
            name=op.f(
                "fk_resource_provider_traits_resource_provider_id_resource_providers"
            ),
        ),
        sa.ForeignKeyConstraint(
            ["trait_id"],
            ["traits.id"],
            name=op.f("fk_resource_provider_traits_trait_id_traits"),
        ),
        sa.PrimaryKeyConstraint(
            "trait_id",
            "resource_provider_id",
            name=op.f("pk_resource_provider_traits"),
        ),
    )
    op.create_index(
        "ix_resource_provider_traits_resource_provider_id",
        "resource_provider_traits",
        ["resource_provider_id"],
        unique=False,
    )
