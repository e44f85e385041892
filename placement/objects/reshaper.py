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
from placement.objects import name_table
from placement.objects import resource_class
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


def _check_given(conn, providers, inventories):
    """What step 1 checks of each provider, in id order, before writing:
    the generation the client gave (ConcurrentUpdate), then the classes
    of the new inventory (BadRequest for an unknown one)."""
    names = {name for new_inventories, _g in inventories.values()
             for name in new_inventories}
    known, _unknown = name_table.ids_by_name(conn, resource_class.RC, names)
    for provider in providers:
        new_inventories, generation = inventories[provider.uuid]
        if provider.generation != generation:
            raise resource_provider.generation_conflict(
                provider.generation, generation)
        resource_class.require_known(new_inventories, known)


def _generations(conn, providers):
    """``{provider id: generation}`` as this transaction now sees them."""
    return dict(conn.execute(
        sa.select(RP.c.id, RP.c.generation)
        .where(RP.c.id.in_([provider.id for provider in providers]))).all())


def _reshape(conn, inventories, requests):
    providers = _providers(conn, inventories)
    _check_given(conn, providers, inventories)
    reshaped = [provider for provider in providers
                if inventories[provider.uuid][0]]
    if reshaped:
        stored = inventory.get_all_of_many(
            conn, [provider.id for provider in reshaped])
        inventory.replace_many(conn, [
            (provider, {**stored[provider.id],
                        **inventories[provider.uuid][0]},
             provider.generation)
            for provider in reshaped])
    allocation.write_once(conn, requests)
    generations = _generations(conn, providers)
    # The final inventories of the reshaped providers are what step 1
    # has just written.
    inventory.replace_many(conn, [
        (provider, inventories[provider.uuid][0], generations[provider.id])
        for provider in providers], rewrite_unchanged=False)


def reshape(db, inventories, requests, retries):
    """Replace inventories and allocations atomically.

    ``inventories`` is ``{provider uuid: ({class: Inventory},
    generation)}``, ``requests`` are allocation.ConsumerAllocations.
    """
    db.write(_reshape, inventories, requests, conflict_retries=retries)
