"""The reshaper: inventories and allocations replaced in one transaction.

So that inventory can move from a provider to another (typically from a
parent to a new child) while it is allocated, the order is upstream's:

1. each provider whose new inventory is not empty gets an interim
   inventory, its old and new classes together (new values where both
   have one), checking the provider generation the client gave;
2. the consumers' allocations are replaced
   (:func:`placement.objects.allocation.write_once`);
3. each provider gets its new inventory, which fails with InventoryInUse
   when it drops a class the allocations still use.

Each step bumps the generation of the providers it changes, as
upstream's does; clients expect exactly these increments. Providers are
taken in id order. Any failure rolls everything back. A provider
generation that moves under step 2 runs the whole transaction again,
like any allocation write.
"""

import sqlalchemy as sa

from placement import exception
from placement.db import models
from placement.objects import allocation
from placement.objects import inventory
from placement.objects import resource_provider

RP = models.ResourceProvider.__table__


def _providers(conn, uuids):
    """The provider rows of ``uuids``, in id order; 400 for an unknown one."""
    rows = conn.execute(sa.select(RP).where(RP.c.uuid.in_(sorted(uuids)))
                        .order_by(RP.c.id)).all()
    missing = sorted(set(uuids) - {row.uuid for row in rows})
    if missing:
        raise exception.ResourceProviderNotFound(
            f'Resource provider {missing[0]} in inventories not found: No '
            f'resource provider with uuid {missing[0]} found.')
    return rows


def _reshape(conn, inventories, requests):
    providers = _providers(conn, inventories)
    for provider in providers:
        new_inventories, generation = inventories[provider.uuid]
        resource_provider.check_generation(conn, provider.id, generation)
        if new_inventories:
            interim = {**inventory.get_all(conn, provider.id),
                       **new_inventories}
            inventory.replace_all(conn, provider, interim, generation)
    allocation.write_once(conn, requests)
    for provider in providers:
        new_inventories, _generation = inventories[provider.uuid]
        current = resource_provider.get_by_uuid(conn, provider.uuid)
        inventory.replace_all(conn, current, new_inventories,
                              current.generation)


def reshape(db, inventories, requests, retries):
    """Replace inventories and allocations atomically.

    ``inventories`` is ``{provider uuid: ({class: Inventory},
    generation)}``, ``requests`` are allocation.ConsumerAllocations.
    """
    db.write(_reshape, inventories, requests, conflict_retries=retries)
