"""The reshaper: inventories and allocations replaced in one transaction.

So that inventory can move from a provider to another (typically from a
parent to a new child) while it is allocated, the order is:

1. the consumers' generations are checked and their old allocations
   deleted (:func:`placement.objects.allocation.release`), which frees
   the inventory they used;
2. the inventories are replaced, each checking the provider generation
   the client gave (in provider id order);
3. the new allocations are claimed against the new inventories
   (:func:`placement.objects.allocation.claim`).

Any failure rolls everything back. A provider generation that moves under
step 3 runs the whole transaction again, like any allocation write.
"""

import sqlalchemy as sa

from placement import exception
from placement.db import models
from placement.objects import allocation
from placement.objects import inventory

RP = models.ResourceProvider.__table__


def _providers(conn, uuids):
    """The provider rows of ``uuids``, in id order; 400 for an unknown one."""
    rows = conn.execute(sa.select(RP).where(RP.c.uuid.in_(sorted(uuids)))
                        .order_by(RP.c.id)).all()
    missing = sorted(set(uuids) - {row.uuid for row in rows})
    if missing:
        raise exception.ResourceProviderNotFound(
            f'Resource provider {missing[0]} in inventories not found.')
    return rows


def _reshape(conn, inventories, requests):
    allocation.release(conn, requests)
    for provider in _providers(conn, inventories):
        new_inventories, generation = inventories[provider.uuid]
        inventory.replace_all(conn, provider, new_inventories, generation)
    allocation.claim(conn, requests)


def reshape(db, inventories, requests, retries):
    """Replace inventories and allocations atomically.

    ``inventories`` is ``{provider uuid: ({class: Inventory},
    generation)}``, ``requests`` are allocation.ConsumerAllocations.
    """
    db.write(_reshape, inventories, requests, conflict_retries=retries)
