"""Allocations: read them, replace those of consumers, delete them.

A write of allocations (:func:`replace`) is one transaction, in this
order, which every writer follows so that locks are taken in one order:

1. consumers, sorted by uuid: the client's generation is checked, then
   the consumer row is compare-and-swapped (or inserted), which locks it;
2. the consumers' old allocations are deleted;
3. the providers receiving allocations, and those that consumers being
   emptied (``allocations: {}``) held allocations on, as upstream,
   sorted by id: their generations, as read in this transaction, are
   compare-and-swapped, which locks them;
4. inventories and usage are read and every amount checked against
   capacity, min_unit, max_unit and step_size;
5. the new allocations are inserted, and the consumers left without any
   are removed.

Every writer that adds allocations to a provider or changes its
inventory swaps its generation, so a successful swap proves that the
inventory and usage read in step 4 are current (on MySQL the read comes
from the snapshot the generation came from; on PostgreSQL it is read
under the row lock), except that allocations deleted since may still be
counted, which can only refuse a claim, never over-allocate. A
failed swap means another writer got there first: the whole transaction
is rolled back and run again in a fresh one, which re-reads everything,
up to ``[placement] allocation_conflict_retry_count`` times, by the
transaction layer (:mod:`placement.db.api`), which also runs it again
after deadlocks and lost connections.
"""

import dataclasses

import sqlalchemy as sa

from placement import exception
from placement.db import api as db_api
from placement.db import models
from placement.objects import consumer as consumer_obj
from placement.objects import resource_class
from placement.objects import resource_provider

ALLOC = models.Allocation.__table__
INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
RP = models.ResourceProvider.__table__
CONSUMER = models.Consumer.__table__


@dataclasses.dataclass(frozen=True)
class ConsumerAllocations:
    """What a request wants one consumer's allocations to become.

    ``allocations`` is ``{provider uuid: {class name: amount}}``; empty
    removes them all. When ``check_generation`` (from 1.28) the consumer
    must be at ``generation`` (None: must not exist).
    """

    uuid: str
    owner: consumer_obj.Owner
    allocations: dict
    generation: int | None = None
    check_generation: bool = False


class _Retry(db_api.RetryTransaction):
    """A generation the client did not give moved: run it all again."""

    def __init__(self):
        super().__init__(
            'Inventory and/or allocations changed while attempting to '
            'allocate: another process changed the resource providers; '
            'retry.')


def get_for_consumer(conn, uuid):
    """The consumer's allocation rows, by provider uuid and class name.

    Each row has resource_provider_uuid, resource_provider_generation,
    resource_class, used, created_at and updated_at.
    """
    return conn.execute(
        sa.select(RP.c.uuid.label('resource_provider_uuid'),
                  RP.c.generation.label('resource_provider_generation'),
                  RC.c.name.label('resource_class'), ALLOC.c.used,
                  ALLOC.c.created_at, ALLOC.c.updated_at)
        .select_from(ALLOC.join(RP, RP.c.id == ALLOC.c.resource_provider_id)
                     .join(RC, RC.c.id == ALLOC.c.resource_class_id))
        .where(ALLOC.c.consumer_id == uuid)
        .order_by(RP.c.uuid, RC.c.name)).all()


def get_for_provider(conn, provider_id):
    """The provider's allocation rows, by consumer uuid and class name.

    Each row has consumer_id, consumer_generation (None for a consumer
    without a record), resource_class, used, created_at and updated_at.
    """
    return conn.execute(
        sa.select(ALLOC.c.consumer_id,
                  CONSUMER.c.generation.label('consumer_generation'),
                  RC.c.name.label('resource_class'), ALLOC.c.used,
                  ALLOC.c.created_at, ALLOC.c.updated_at)
        .select_from(
            ALLOC.join(RC, RC.c.id == ALLOC.c.resource_class_id)
            .outerjoin(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id))
        .where(ALLOC.c.resource_provider_id == provider_id)
        .order_by(ALLOC.c.consumer_id, RC.c.name)).all()


def _delete_allocations(conn, uuids):
    """Delete the allocations of consumers ``uuids``.

    By primary key, found by a plain read: a range delete on the
    consumer index would take gap locks (MySQL) that deadlock with
    concurrent inserts of other consumers' allocations.
    """
    ids = conn.scalars(sa.select(ALLOC.c.id).where(
        ALLOC.c.consumer_id.in_(sorted(uuids)))).all()
    if ids:
        conn.execute(sa.delete(ALLOC).where(ALLOC.c.id.in_(sorted(ids))))
    return bool(ids)


def _write_consumer(conn, request, consumer, owner_ids):
    """Write the consumer; before 1.28 a concurrent change is retried.

    Without a generation from the client the server used the one it
    read, so another transaction's change is not the client's conflict:
    a fresh transaction reads the new generation and succeeds, as the
    consumer generation spec says old microversions always do.
    """
    if request.owner not in owner_ids:
        owner_ids[request.owner] = consumer_obj.owner_ids(
            conn, request.owner)
    try:
        consumer_obj.write(conn, request.uuid, consumer, request.owner,
                           owner_ids[request.owner])
    except exception.ConcurrentUpdate as exc:
        if request.check_generation:
            raise
        raise _Retry() from exc


def release(conn, requests):
    """Steps 1 and 2: check and write the consumers, drop their allocations.

    The first half of :func:`write_once`. Returns the uuids of the
    providers the consumers being emptied held allocations on.
    """
    requests = sorted(requests, key=lambda request: request.uuid)
    consumers = consumer_obj.get_all(
        conn, [request.uuid for request in requests])
    owner_ids = {}
    for request in requests:
        consumer = consumers.get(request.uuid)
        if request.check_generation:
            consumer_obj.check_generation(
                request.uuid, consumer, request.generation)
        if consumer is not None or request.allocations:
            _write_consumer(conn, request, consumer, owner_ids)
    emptied = _held_providers(
        conn, [request.uuid for request in requests
               if not request.allocations])
    _delete_allocations(conn, [request.uuid for request in requests])
    return emptied


def _held_providers(conn, consumer_uuids):
    """The uuids of the providers consumers ``consumer_uuids`` use."""
    if not consumer_uuids:
        return set()
    return set(conn.scalars(
        sa.select(RP.c.uuid).distinct()
        .join(ALLOC, ALLOC.c.resource_provider_id == RP.c.id)
        .where(ALLOC.c.consumer_id.in_(sorted(consumer_uuids)))))


def _providers(conn, uuids):
    """``{uuid: row}`` of providers ``uuids``; BadRequest if one is unknown."""
    rows = conn.execute(sa.select(RP.c.id, RP.c.uuid, RP.c.generation)
                        .where(RP.c.uuid.in_(sorted(uuids)))).all()
    found = {row.uuid: row for row in rows}
    missing = sorted(set(uuids) - found.keys())
    if missing:
        raise exception.BadRequest(
            f"Allocation for resource provider '{missing[0]}' that does "
            f"not exist.")
    return found


def _swap_generations(conn, providers):
    """Compare-and-swap the providers' generations, in id order."""
    for provider in sorted(providers, key=lambda row: row.id):
        try:
            resource_provider.increment_generation(
                conn, provider.id, provider.generation)
        except exception.ConcurrentUpdate as exc:
            raise _Retry() from exc


def _unable(message):
    return exception.Conflict(f'Unable to allocate inventory: {message}')


def _check_amount(provider, class_name, inventory, amount):
    """Conflict unless one allocation fits the inventory's unit rules."""
    if inventory is None:
        raise _unable(f"Inventory for '{class_name}' on resource provider "
                      f"'{provider.uuid}' invalid.")
    if (amount < inventory.min_unit or amount > inventory.max_unit
            or amount % inventory.step_size):
        raise _unable(
            f'Allocation for {class_name} on resource provider '
            f'{provider.uuid} violates min_unit, max_unit, or step_size. '
            f'Requested: {amount}, min_unit: {inventory.min_unit}, '
            f'max_unit: {inventory.max_unit}, step_size: '
            f'{inventory.step_size}')


def _inventories(conn, provider_ids):
    """``{(provider id, class id): inventory row}``."""
    rows = conn.execute(sa.select(INV).where(
        INV.c.resource_provider_id.in_(provider_ids)))
    return {(row.resource_provider_id, row.resource_class_id): row
            for row in rows}


def _usages(conn, provider_ids):
    """``{(provider id, class id): amount allocated}``."""
    rows = conn.execute(
        sa.select(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id,
                  sa.func.sum(ALLOC.c.used))
        .where(ALLOC.c.resource_provider_id.in_(provider_ids))
        .group_by(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id))
    return {(rp_id, rc_id): int(used) for rp_id, rc_id, used in rows}


def _new_rows(requests, providers, class_ids):
    """The allocation rows to insert, as dicts."""
    return [
        {'consumer_id': request.uuid,
         'resource_provider_id': providers[rp_uuid].id,
         'resource_class_id': class_ids[class_name], 'used': amount}
        for request in requests
        for rp_uuid, resources in sorted(request.allocations.items())
        for class_name, amount in sorted(resources.items())]


def _check_capacity(conn, rows, providers, class_names):
    """Conflict unless every row fits its inventory, with current usage.

    ``used + requested <= (total - reserved) * allocation_ratio`` for
    every provider and class, summing the requested amounts of all rows.
    """
    by_id = {provider.id: provider for provider in providers.values()}
    inventories = _inventories(conn, list(by_id))
    requested = {}
    for row in rows:
        key = (row['resource_provider_id'], row['resource_class_id'])
        _check_amount(by_id[key[0]], class_names[key[1]],
                      inventories.get(key), row['used'])
        requested[key] = requested.get(key, 0) + row['used']
    usages = _usages(conn, list(by_id))
    for key, amount in sorted(requested.items()):
        inventory = inventories[key]
        capacity = ((inventory.total - inventory.reserved)
                    * inventory.allocation_ratio)
        if usages.get(key, 0) + amount > capacity:
            raise _unable(
                f"Unable to create allocation for "
                f"'{class_names[key[1]]}' on resource provider "
                f"'{by_id[key[0]].uuid}'. The requested amount would "
                f"exceed the capacity.")


def claim(conn, requests, emptied=frozenset()):
    """Steps 3 to 5: swap generations, check capacity, insert.

    The second half of :func:`write_once`; ``emptied`` are what
    :func:`release` returned.
    """
    wanted = {rp_uuid for request in requests
              for rp_uuid in request.allocations}
    class_ids = resource_class.ids_by_name(
        conn, {name for request in requests
               for resources in request.allocations.values()
               for name in resources})
    providers = _providers(conn, wanted | emptied)
    _swap_generations(conn, providers.values())
    rows = _new_rows(requests, providers, class_ids)
    _check_capacity(conn, rows, providers,
                    {id_: name for name, id_ in class_ids.items()})
    if rows:
        conn.execute(sa.insert(ALLOC), rows)
    consumer_obj.delete(conn, [request.uuid for request in requests
                               if not request.allocations])


def write_once(conn, requests):
    """Replace the allocations of ``requests``' consumers in ``conn``.

    May raise _Retry, which the transaction layer runs again.
    """
    claim(conn, requests, release(conn, requests))


def replace(db, requests, retries):
    """Replace the allocations of the consumers of ``requests``, atomically.

    ``requests`` are ConsumerAllocations with distinct uuids; a
    generation that moves is tried again ``retries`` times at most.
    """
    db.write(write_once, requests, conflict_retries=retries)


def _delete_consumer(conn, uuid):
    if not _delete_allocations(conn, [uuid]):
        raise exception.NotFound(
            f'No allocations for consumer \'{uuid}\'')
    consumer_obj.delete(conn, [uuid])


def delete_consumer(db, uuid, retries):
    """Delete all allocations of consumer ``uuid`` and its record.

    NotFound when it has none.
    """
    db.write(_delete_consumer, uuid, conflict_retries=retries)


def of_consumer(conn, uuid):
    """``(allocation rows, consumer or None)`` of consumer ``uuid``."""
    return get_for_consumer(conn, uuid), consumer_obj.get(conn, uuid)


def of_provider(conn, uuid):
    """``(provider row, allocation rows)`` of provider ``uuid``."""
    provider = resource_provider.get_by_uuid(conn, uuid)
    return provider, get_for_provider(conn, provider.id)
