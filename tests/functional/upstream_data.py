"""Rows as upstream Placement leaves them, in a schema of any revision.

:func:`fill` writes a small but complete deployment into a database that
:func:`tests.functional.upstream_schema.load` created: nested trees and a
sharing provider, inventories, traits, aggregates, projects, users,
consumers with and without a consumer type (where the revision has the
table) and their allocations. Before the data-check revisions it adds what
they refuse: a provider without ``root_provider_id`` and an allocation
whose consumer has no record. Rows go in through reflected tables, so
they fit the revision's columns; ids are upstream's: standard resource
classes at their index in os-resource-classes, custom ones from 10000.
"""

import dataclasses
import datetime
import uuid

import os_resource_classes
import sqlalchemy as sa

from placement.db import standard_data

CUSTOM_CLASS = 'CUSTOM_GOLD'
CUSTOM_CLASS_ID = 10000
CUSTOM_TRAIT = 'CUSTOM_FAST'
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
AVX = 'HW_CPU_X86_AVX'
PROJECT, USER = 'project-a', 'user-a'
CONSUMER_TYPE = 'INSTANCE'
CREATED = datetime.datetime(2022, 9, 6, 12, 0, 0)


@dataclasses.dataclass
class Deployment:
    """What :func:`fill` wrote: uuids by role."""

    compute: str
    numa: str
    device: str
    shared: str
    aggregate: str
    plain_consumer: str
    typed_consumer: str
    legacy_provider: str | None = None
    legacy_consumer: str | None = None


def _uuid():
    return str(uuid.uuid4())


class _Writer:
    """Inserts into reflected tables on one connection."""

    def __init__(self, conn):
        self.conn = conn
        self.tables = sa.MetaData()
        self.tables.reflect(conn)

    def has(self, table):
        return table in self.tables.tables

    def insert(self, table, **values):
        """Insert one row; its id (None for tables without one)."""
        table = self.tables.tables[table]
        if 'created_at' in table.c:
            values.setdefault('created_at', CREATED)
        result = self.conn.execute(sa.insert(table).values(**values))
        return result.inserted_primary_key[0] if 'id' in table.c else None

    def provider(self, name, parent=None, root=None, generation=1):
        """A provider under ``parent`` (an id); ``(id, uuid)``.

        ``root`` is the root's id; False leaves ``root_provider_id`` NULL,
        as providers written before nesting existed.
        """
        rp_uuid = _uuid()
        rp_id = self.insert('resource_providers', uuid=rp_uuid, name=name,
                            generation=generation,
                            parent_provider_id=parent)
        if root is not False:
            table = self.tables.tables['resource_providers']
            self.conn.execute(sa.update(table).where(table.c.id == rp_id)
                              .values(root_provider_id=root or rp_id))
        return rp_id, rp_uuid

    def inventory(self, rp_id, class_id, total, **fields):
        self.insert('inventories', resource_provider_id=rp_id,
                    resource_class_id=class_id, total=total,
                    reserved=fields.get('reserved', 0), min_unit=1,
                    max_unit=fields.get('max_unit', total), step_size=1,
                    allocation_ratio=fields.get('allocation_ratio', 1.0))

    def allocation(self, consumer, rp_id, class_id, used):
        self.insert('allocations', consumer_id=consumer,
                    resource_provider_id=rp_id, resource_class_id=class_id,
                    used=used)


def _standard_classes(writer):
    """Every standard class at its upstream id; {name: id}."""
    with standard_data.explicit_zero_id(writer.conn):
        ids = {name: writer.insert('resource_classes', id=index, name=name)
               for index, name in enumerate(os_resource_classes.STANDARDS)}
    ids[CUSTOM_CLASS] = writer.insert('resource_classes',
                                      id=CUSTOM_CLASS_ID, name=CUSTOM_CLASS)
    return ids


def fill(engine, rootless_provider=False, consumerless_allocation=False):
    """Write the deployment; a :class:`Deployment`.

    Optionally also a provider without a root (with VCPU inventory) and
    an allocation of VCPU: 1 (from that provider, if any) whose consumer
    has no record.
    """
    with engine.begin() as conn:
        writer = _Writer(conn)
        classes = _standard_classes(writer)
        traits = {name: writer.insert('traits', name=name)
                  for name in (AVX, SHARING_TRAIT, CUSTOM_TRAIT)}
        project = writer.insert('projects', external_id=PROJECT)
        user = writer.insert('users', external_id=USER)

        compute, compute_uuid = writer.provider('compute-1', generation=3)
        numa, numa_uuid = writer.provider('compute-1-numa0', compute, compute)
        device, device_uuid = writer.provider('compute-1-numa0-pf0', numa,
                                              compute)
        shared, shared_uuid = writer.provider('shared-disk')
        writer.inventory(compute, classes['MEMORY_MB'], 2048, reserved=512)
        writer.inventory(numa, classes['VCPU'], 8, allocation_ratio=4.0)
        writer.inventory(device, classes[CUSTOM_CLASS], 4, max_unit=2)
        writer.inventory(shared, classes['DISK_GB'], 1000)
        for rp_id, trait in ((compute, AVX), (device, CUSTOM_TRAIT),
                             (shared, SHARING_TRAIT)):
            writer.insert('resource_provider_traits',
                          resource_provider_id=rp_id, trait_id=traits[trait])
        aggregate_uuid = _uuid()
        aggregate = writer.insert('placement_aggregates', uuid=aggregate_uuid)
        for rp_id in (compute, shared):
            writer.insert('resource_provider_aggregates',
                          resource_provider_id=rp_id, aggregate_id=aggregate)

        owner = {'project_id': project, 'user_id': user, 'generation': 1}
        plain, typed = _uuid(), _uuid()
        writer.insert('consumers', uuid=plain, **owner)
        if writer.has('consumer_types'):
            owner['consumer_type_id'] = writer.insert(
                'consumer_types', name=CONSUMER_TYPE)
        writer.insert('consumers', uuid=typed, **owner)
        writer.allocation(plain, numa, classes['VCPU'], 2)
        writer.allocation(plain, compute, classes['MEMORY_MB'], 512)
        writer.allocation(plain, shared, classes['DISK_GB'], 10)
        writer.allocation(typed, numa, classes['VCPU'], 1)
        writer.allocation(typed, device, classes[CUSTOM_CLASS], 1)
        deployment = Deployment(
            compute=compute_uuid, numa=numa_uuid, device=device_uuid,
            shared=shared_uuid, aggregate=aggregate_uuid,
            plain_consumer=plain, typed_consumer=typed)

        legacy = numa
        if rootless_provider:
            legacy, deployment.legacy_provider = writer.provider(
                'legacy', root=False)
            writer.inventory(legacy, classes['VCPU'], 4)
        if consumerless_allocation:
            deployment.legacy_consumer = _uuid()
            writer.allocation(deployment.legacy_consumer, legacy,
                              classes['VCPU'], 1)
    return deployment
