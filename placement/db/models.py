"""SQLAlchemy models of the Placement schema.

The schema is upstream Placement's at its head revision ``a082b8bb98d0``
(``spec/upstream-schema/``), name for name, so that a database moves
between upstream and this service in both directions: the same tables,
columns, nullability, indexes and constraint names. Where upstream left a
name to the backend (primary keys, most foreign keys), so do we.
"""

import datetime

from sqlalchemy import DateTime
from sqlalchemy import Float
from sqlalchemy import ForeignKeyConstraint
from sqlalchemy import Index
from sqlalchemy import Integer
from sqlalchemy import String
from sqlalchemy import UniqueConstraint
from sqlalchemy import text
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.orm import Mapped
from sqlalchemy.orm import mapped_column

TABLE_OPTIONS = {'mysql_engine': 'InnoDB'}
# In the ``info`` of an id column: rows created through the API take the
# next id above every existing one and at least this value.
FIRST_ID_OF_NEW_ROWS = 'first_id_of_new_rows'


def _utcnow():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class TimestampMixin:
    """``created_at`` and ``updated_at``, the first columns of every table."""

    created_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, default=_utcnow, sort_order=-2)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, onupdate=_utcnow, sort_order=-1)


class ResourceClass(TimestampMixin, Base):
    """Standard (synchronised from os-resource-classes) and custom.

    Ids are upstream's, never from the database's sequence: standard
    classes at their index in os-resource-classes, custom ones the next
    id from ``FIRST_ID_OF_NEW_ROWS`` up (placement.objects.name_table).
    """

    __tablename__ = 'resource_classes'
    __table_args__ = (
        UniqueConstraint('name', name='uniq_resource_classes0name'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(
        Integer, primary_key=True, info={FIRST_ID_OF_NEW_ROWS: 10000})
    name: Mapped[str] = mapped_column(String(255), nullable=False)


class Trait(TimestampMixin, Base):
    """Standard (synchronised from os-traits) and custom."""

    __tablename__ = 'traits'
    __table_args__ = (
        UniqueConstraint('name', name='uniq_traits0name'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)


class ResourceProvider(TimestampMixin, Base):
    """``name`` and ``generation`` are nullable in upstream's schema; this
    service always writes both."""

    __tablename__ = 'resource_providers'
    __table_args__ = (
        ForeignKeyConstraint(['parent_provider_id'],
                             ['resource_providers.id']),
        ForeignKeyConstraint(['root_provider_id'],
                             ['resource_providers.id']),
        UniqueConstraint('name', name='uniq_resource_providers0name'),
        UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
        Index('resource_providers_parent_provider_id_idx',
              'parent_provider_id'),
        Index('resource_providers_root_provider_id_idx', 'root_provider_id'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(String(200))
    generation: Mapped[int | None] = mapped_column(Integer, default=0)
    # Null only for rows written before nesting existed; the
    # online data migration set_root_provider_ids fills it.
    root_provider_id: Mapped[int | None] = mapped_column(Integer)
    parent_provider_id: Mapped[int | None] = mapped_column(Integer)


class Inventory(TimestampMixin, Base):
    __tablename__ = 'inventories'
    __table_args__ = (
        UniqueConstraint(
            'resource_provider_id', 'resource_class_id',
            name='uniq_inventories0resource_provider_resource_class'),
        Index('inventories_resource_class_id_idx', 'resource_class_id'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(
        Integer, nullable=False)
    resource_class_id: Mapped[int] = mapped_column(Integer, nullable=False)
    total: Mapped[int] = mapped_column(Integer, nullable=False)
    reserved: Mapped[int] = mapped_column(Integer, nullable=False)
    min_unit: Mapped[int] = mapped_column(Integer, nullable=False)
    max_unit: Mapped[int] = mapped_column(Integer, nullable=False)
    step_size: Mapped[int] = mapped_column(Integer, nullable=False)
    allocation_ratio: Mapped[float] = mapped_column(Float, nullable=False)


class Project(TimestampMixin, Base):
    __tablename__ = 'projects'
    __table_args__ = (
        UniqueConstraint('external_id', name='uniq_projects0external_id'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    external_id: Mapped[str] = mapped_column(String(255), nullable=False)


class User(TimestampMixin, Base):
    __tablename__ = 'users'
    __table_args__ = (
        UniqueConstraint('external_id', name='uniq_users0external_id'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    external_id: Mapped[str] = mapped_column(String(255), nullable=False)


class ConsumerType(TimestampMixin, Base):
    __tablename__ = 'consumer_types'
    __table_args__ = (
        UniqueConstraint('name', name='uniq_consumer_types0name'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)


class Consumer(TimestampMixin, Base):
    __tablename__ = 'consumers'
    __table_args__ = (
        UniqueConstraint('uuid', name='uniq_consumers0uuid'),
        ForeignKeyConstraint(['consumer_type_id'], ['consumer_types.id'],
                             name='consumers_consumer_type_id_fkey'),
        Index('consumers_project_id_user_id_uuid_idx',
              'project_id', 'user_id', 'uuid'),
        Index('consumers_project_id_uuid_idx', 'project_id', 'uuid'),
        Index('consumers_consumer_type_id_idx', 'consumer_type_id'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    project_id: Mapped[int] = mapped_column(Integer, nullable=False)
    user_id: Mapped[int] = mapped_column(Integer, nullable=False)
    generation: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text('0'))
    consumer_type_id: Mapped[int | None] = mapped_column(Integer)


class Allocation(TimestampMixin, Base):
    """``consumer_id`` is the consumer's uuid, as in the upstream schema."""

    __tablename__ = 'allocations'
    __table_args__ = (
        Index('allocations_resource_provider_class_used_idx',
              'resource_provider_id', 'resource_class_id', 'used'),
        Index('allocations_resource_class_id_idx', 'resource_class_id'),
        Index('allocations_consumer_id_idx', 'consumer_id'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(
        Integer, nullable=False)
    consumer_id: Mapped[str] = mapped_column(String(36), nullable=False)
    resource_class_id: Mapped[int] = mapped_column(Integer, nullable=False)
    used: Mapped[int] = mapped_column(Integer, nullable=False)


class PlacementAggregate(TimestampMixin, Base):
    """``uuid`` is nullable in upstream's schema; never null here."""

    __tablename__ = 'placement_aggregates'
    __table_args__ = (
        UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
        TABLE_OPTIONS)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str | None] = mapped_column(String(36))


class ResourceProviderAggregate(TimestampMixin, Base):
    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        Index('resource_provider_aggregates_aggregate_id_idx',
              'aggregate_id'),
        TABLE_OPTIONS)

    resource_provider_id: Mapped[int] = mapped_column(
        Integer, primary_key=True, autoincrement=False)
    aggregate_id: Mapped[int] = mapped_column(
        Integer, primary_key=True, autoincrement=False)


class ResourceProviderTrait(TimestampMixin, Base):
    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        ForeignKeyConstraint(['resource_provider_id'],
                             ['resource_providers.id']),
        ForeignKeyConstraint(['trait_id'], ['traits.id']),
        Index('resource_provider_traits_resource_provider_trait_idx',
              'resource_provider_id', 'trait_id'),
        TABLE_OPTIONS)

    trait_id: Mapped[int] = mapped_column(
        Integer, primary_key=True, autoincrement=False)
    resource_provider_id: Mapped[int] = mapped_column(
        Integer, primary_key=True, autoincrement=False)


