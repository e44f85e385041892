"""SQLAlchemy models of the Placement schema.

Table and column names follow the upstream service so that operators find
what they expect. Indexes are chosen for the queries of the object layer:
provider trees (root, parent), capacity (inventories by class, allocations
by provider and class), consumers by project/user, and the association
tables in both directions.
"""

import datetime

from sqlalchemy import DateTime
from sqlalchemy import Float
from sqlalchemy import ForeignKey
from sqlalchemy import Index
from sqlalchemy import Integer
from sqlalchemy import MetaData
from sqlalchemy import String
from sqlalchemy import UniqueConstraint
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.orm import Mapped
from sqlalchemy.orm import mapped_column

# Deterministic constraint names, identical on every backend, so that
# migrations can refer to them.
NAMING_CONVENTION = {
    'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
    'uq': 'uniq_%(table_name)s0%(column_0_N_name)s',
    'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
    'pk': 'pk_%(table_name)s',
}


def _utcnow():
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class TimestampMixin:
    created_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, default=_utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, onupdate=_utcnow)


class ResourceClass(TimestampMixin, Base):
    """Standard (synchronised from os-resource-classes) and custom."""

    __tablename__ = 'resource_classes'
    __table_args__ = (UniqueConstraint('name'),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)


class Trait(TimestampMixin, Base):
    """Standard (synchronised from os-traits) and custom."""

    __tablename__ = 'traits'
    __table_args__ = (UniqueConstraint('name'),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)


class ResourceProvider(TimestampMixin, Base):
    __tablename__ = 'resource_providers'
    __table_args__ = (
        UniqueConstraint('uuid'),
        UniqueConstraint('name'),
        Index('ix_resource_providers_root_provider_id', 'root_provider_id'),
        Index('ix_resource_providers_parent_provider_id',
              'parent_provider_id'),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str] = mapped_column(String(200), nullable=False)
    generation: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0)
    # Null only for rows written before nesting existed; the
    # online data migration set_root_provider_ids fills it.
    root_provider_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey('resource_providers.id'))
    parent_provider_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey('resource_providers.id'))


class Inventory(TimestampMixin, Base):
    __tablename__ = 'inventories'
    __table_args__ = (
        UniqueConstraint('resource_provider_id', 'resource_class_id'),
        Index('ix_inventories_resource_class_id', 'resource_class_id'),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('resource_providers.id'), nullable=False)
    resource_class_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('resource_classes.id'), nullable=False)
    total: Mapped[int] = mapped_column(Integer, nullable=False)
    reserved: Mapped[int] = mapped_column(Integer, nullable=False)
    min_unit: Mapped[int] = mapped_column(Integer, nullable=False)
    max_unit: Mapped[int] = mapped_column(Integer, nullable=False)
    step_size: Mapped[int] = mapped_column(Integer, nullable=False)
    allocation_ratio: Mapped[float] = mapped_column(Float, nullable=False)


class Project(TimestampMixin, Base):
    __tablename__ = 'projects'
    __table_args__ = (UniqueConstraint('external_id'),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    external_id: Mapped[str] = mapped_column(String(255), nullable=False)


class User(TimestampMixin, Base):
    __tablename__ = 'users'
    __table_args__ = (UniqueConstraint('external_id'),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    external_id: Mapped[str] = mapped_column(String(255), nullable=False)


class ConsumerType(TimestampMixin, Base):
    __tablename__ = 'consumer_types'
    __table_args__ = (UniqueConstraint('name'),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)


class Consumer(TimestampMixin, Base):
    __tablename__ = 'consumers'
    __table_args__ = (
        UniqueConstraint('uuid'),
        Index('ix_consumers_project_id_user_id', 'project_id', 'user_id'),
        Index('ix_consumers_consumer_type_id', 'consumer_type_id'),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('projects.id'), nullable=False)
    user_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('users.id'), nullable=False)
    generation: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0)
    consumer_type_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey('consumer_types.id'))


class Allocation(TimestampMixin, Base):
    """``consumer_id`` is the consumer's uuid, as in the upstream schema."""

    __tablename__ = 'allocations'
    __table_args__ = (
        Index('ix_allocations_resource_provider_class_used',
              'resource_provider_id', 'resource_class_id', 'used'),
        Index('ix_allocations_resource_class_id', 'resource_class_id'),
        Index('ix_allocations_consumer_id', 'consumer_id'),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('resource_providers.id'), nullable=False)
    consumer_id: Mapped[str] = mapped_column(String(36), nullable=False)
    resource_class_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('resource_classes.id'), nullable=False)
    used: Mapped[int] = mapped_column(Integer, nullable=False)


class PlacementAggregate(TimestampMixin, Base):
    __tablename__ = 'placement_aggregates'
    __table_args__ = (UniqueConstraint('uuid'),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)


class ResourceProviderAggregate(TimestampMixin, Base):
    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        Index('ix_resource_provider_aggregates_aggregate_id',
              'aggregate_id'),
    )

    resource_provider_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('resource_providers.id'), primary_key=True)
    aggregate_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('placement_aggregates.id'), primary_key=True)


class ResourceProviderTrait(TimestampMixin, Base):
    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        Index('ix_resource_provider_traits_resource_provider_id',
              'resource_provider_id'),
    )

    trait_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('traits.id'), primary_key=True)
    resource_provider_id: Mapped[int] = mapped_column(
        Integer, ForeignKey('resource_providers.id'), primary_key=True)
