"""Rows as releases before nested providers and consumer records left them.

Online data migrations and upgrade checks exist for these: providers
without ``root_provider_id`` and allocations without a consumer record.
"""

import uuid

import sqlalchemy as sa

from placement.db import models

_RP = models.ResourceProvider.__table__
_INVENTORY = models.Inventory.__table__
_ALLOCATION = models.Allocation.__table__
_RC = models.ResourceClass.__table__


def add_provider(conn, name, *, with_root=False):
    """A root provider; its ``root_provider_id`` is NULL unless
    ``with_root``. Returns its id."""
    provider_id = conn.execute(sa.insert(_RP).values(
        uuid=str(uuid.uuid4()), name=name, generation=0,
    )).inserted_primary_key[0]
    if with_root:
        conn.execute(sa.update(_RP).where(_RP.c.id == provider_id)
                     .values(root_provider_id=provider_id))
    return provider_id


def set_parent(conn, provider_id, parent_id):
    conn.execute(sa.update(_RP).where(_RP.c.id == provider_id)
                 .values(parent_provider_id=parent_id))


def add_consumerless_allocations(conn, provider_id, count):
    """VCPU inventory and ``count`` allocations of consumers never recorded.

    Returns the consumer uuids.
    """
    vcpu = conn.scalar(sa.select(_RC.c.id).where(_RC.c.name == 'VCPU'))
    conn.execute(sa.insert(_INVENTORY).values(
        resource_provider_id=provider_id, resource_class_id=vcpu,
        total=64, reserved=0, min_unit=1, max_unit=64, step_size=1,
        allocation_ratio=1.0))
    consumers = sorted(str(uuid.uuid4()) for _ in range(count))
    conn.execute(sa.insert(_ALLOCATION), [
        {'resource_provider_id': provider_id, 'consumer_id': consumer,
         'resource_class_id': vcpu, 'used': 1}
        for consumer in consumers])
    return consumers
