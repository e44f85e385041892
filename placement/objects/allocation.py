"""Allocations: read them, replace those of consumers, delete them.

A write of allocations (:func:`replace`) is one transaction, in this
order, which every writer follows so that locks are taken in one order:

1. one statement reads everything the write depends on: the consumers'
   records, their allocations, the ids of their owners' projects, users
   and consumer types, and the providers receiving allocations (and
   those that consumers being emptied, ``allocations: {}``, held
   allocations on, as upstream) with their generations, inventories and
   usage by other consumers;
2. consumers, sorted by uuid: the client's generation is checked, then
   the consumer row is compare-and-swapped (or inserted, the new ones
   of an owner in one statement), which locks it;
3. the consumers' old allocations are deleted;
4. every amount is checked against capacity, min_unit, max_unit and
   step_size; the new allocations are inserted (one statement), and
   the consumers left without any are removed;
5. last, the providers' generations, as read, are compare-and-swapped
   in one statement, which locks the rows in id order: the providers
   are where concurrent writers meet (a scheduler's claims go to the
   few best hosts), and so are held locked for the COMMIT only.

A claim of a new consumer is thus four statements and the COMMIT.
Every writer that adds allocations to a provider or changes its
inventory swaps its generation, so a successful swap proves that the
inventory and usage read in step 1 are current: they come from the
same snapshot as the generation (one statement; on MySQL the
transaction's snapshot), except that allocations deleted since may
still be counted, which can only refuse a claim, never over-allocate. A
failed swap means another writer got there first: the whole transaction
is rolled back and run again in a fresh one, which re-reads everything,
up to ``[placement] allocation_conflict_retry_count`` times, by the
transaction layer (:mod:`placement.db.api`), which also runs it again
after deadlocks and lost connections.
"""

import dataclasses
import functools

import sqlalchemy as sa

from placement import exception
from placement.db import api as db_api
from placement.db import models
from placement.objects import capacity
from placement.objects import consumer as consumer_obj
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import resource_provider
from placement.objects import tagged_union

ALLOC = models.Allocation.__table__
INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
RP = models.ResourceProvider.__table__
CONSUMER = models.Consumer.__table__

#: Built once: SQLAlchemy keys its cache of compiled statements by a
#: key it computes once per statement object.
_INSERT_ALLOCATIONS = sa.insert(ALLOC)


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


#: A consumer's allocation rows, in the order they were written (the
#: order of the request that wrote them, as upstream answers: clients
#: show them so): resource_provider_uuid, resource_provider_generation,
#: resource_class, used and changed (:func:`name_table.changed`), each
#: with the consumer's consumer_generation and :data:`consumer.OWNERS`
#: (None for a consumer without a record).
_OF_CONSUMER = (
    sa.select(RP.c.uuid.label('resource_provider_uuid'),
              RP.c.generation.label('resource_provider_generation'),
              RC.c.name.label('resource_class'), ALLOC.c.used,
              name_table.changed(ALLOC).label('changed'),
              CONSUMER.c.generation.label('consumer_generation'),
              *consumer_obj.OWNERS)
    .select_from(
        ALLOC.join(RP, RP.c.id == ALLOC.c.resource_provider_id)
        .join(RC, RC.c.id == ALLOC.c.resource_class_id)
        .outerjoin(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id))
    .where(ALLOC.c.consumer_id == sa.bindparam('uuid'))
    .order_by(ALLOC.c.id))


#: A provider's generation with its allocation rows, by consumer uuid
#: and class name (see resource_provider.joined_rows): consumer_id,
#: consumer_generation (None for a consumer without a record),
#: resource_class, used and changed (:func:`name_table.changed`); one
#: row of None allocation for a provider without any.
_OF_PROVIDER_UUID = (
    sa.select(RP.c.generation.label('provider_generation'),
              ALLOC.c.consumer_id,
              CONSUMER.c.generation.label('consumer_generation'),
              RC.c.name.label('resource_class'), ALLOC.c.used,
              name_table.changed(ALLOC).label('changed'))
    .select_from(
        RP.outerjoin(ALLOC, ALLOC.c.resource_provider_id == RP.c.id)
        .outerjoin(RC, RC.c.id == ALLOC.c.resource_class_id)
        .outerjoin(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id))
    .where(RP.c.uuid == sa.bindparam('uuid'))
    .order_by(ALLOC.c.consumer_id, RC.c.name))


@dataclasses.dataclass(frozen=True)
class _State:
    """What a write of allocations reads, in one statement (:func:`_read`).

    ``consumers``: ``{uuid: row}`` of the consumers with a record (id,
    uuid, generation); ``old``: their allocation rows (id, uuid of the
    consumer, provider_id, resource_class_id, used); ``owner_ids``:
    ``{owner: {consumer column: id or None}}`` of the projects, users and
    consumer types naming their owners;
    ``providers``: ``{uuid: _Provider}`` of the providers receiving
    allocations and of those the consumers being emptied hold
    allocations on.
    """

    consumers: dict
    old: list
    owner_ids: dict
    providers: dict


# Which rows of _read's UNION are which; an owner lookup's tag is its
# index plus _FIRST_LOOKUP.
_PROVIDER, _CONSUMER, _ALLOCATION, _FIRST_LOOKUP = 0, 1, 2, 3
_COLUMNS = ('uuid', 'id', 'generation', 'provider', 'provider_id',
            'resource_class_id', 'class_name', 'total', 'reserved',
            'min_unit', 'max_unit', 'step_size', 'allocation_ratio', 'used')


def _tagged(tag, **columns):
    """A SELECT of the UNION of :func:`_read`: ``tag``, then every column
    of _COLUMNS, NULL unless given. PostgreSQL types the UNION's columns
    part by part: one NULL in both of the first two parts becomes text
    (and then fails against an integer), so the first part, the
    providers', gives every integer column. The tag is written in the
    statement, not sent as a parameter with every execution.
    """
    return sa.select(tagged_union.constant(tag).label('tag'), *(
        columns.get(name, sa.null()).label(name) for name in _COLUMNS))


#: The consumers whose allocations are replaced.
_UUIDS = sa.bindparam('uuids', expanding=True)


def _select_providers(condition):
    """The rows of the providers that meet ``condition``: one per
    inventory (None columns for a provider without any), with ``used``,
    the amount allocated of it to consumers other than ``uuids``, whose
    allocations are replaced."""
    used = (sa.select(sa.func.coalesce(sa.func.sum(ALLOC.c.used), 0))
            .where(capacity.of_inventory_sql(ALLOC.c, INV.c),
                   ALLOC.c.consumer_id.not_in(_UUIDS))
            .scalar_subquery())
    return (
        _tagged(_PROVIDER, id=RP.c.id, provider=RP.c.uuid,
                provider_id=RP.c.id, generation=RP.c.generation,
                resource_class_id=INV.c.resource_class_id,
                class_name=RC.c.name, total=INV.c.total,
                reserved=INV.c.reserved, min_unit=INV.c.min_unit,
                max_unit=INV.c.max_unit, step_size=INV.c.step_size,
                allocation_ratio=INV.c.allocation_ratio, used=used)
        .select_from(
            RP.outerjoin(INV, INV.c.resource_provider_id == RP.c.id)
            .outerjoin(RC, RC.c.id == INV.c.resource_class_id))
        .where(condition))


def _held():
    """The condition of the providers that consumers ``emptied`` hold
    allocations on.

    A part of its own, not an OR with ``wanted``: MySQL and PostgreSQL
    then scanned every provider for each write (1.5 and 4-12 ms at
    10,000 providers, against 0.3 by the indexes). A provider both
    wanted and held comes in both parts, with the same rows (one
    statement, one snapshot).
    """
    return RP.c.id.in_(
        sa.select(ALLOC.c.resource_provider_id)
        .where(ALLOC.c.consumer_id.in_(
            sa.bindparam('emptied', expanding=True))))


def _owner_parameter(index, key):
    return f'owner_{index}_{key}'


@functools.lru_cache(maxsize=64)
def _read_statement(owner_keys, emptying):
    """:func:`_read`'s statement for owners of the lookup keys
    ``owner_keys`` (a tuple per owner), and, when ``emptying``, the
    providers that consumers being emptied hold allocations on; built
    once for each: building it cost more CPU than running it. The
    values are bind parameters."""
    providers = [_select_providers(
        RP.c.uuid.in_(sa.bindparam('wanted', expanding=True)))]
    if emptying:
        providers.append(_select_providers(_held()))
    return sa.union_all(
        *providers,
        _tagged(_CONSUMER, uuid=CONSUMER.c.uuid, id=CONSUMER.c.id,
                generation=CONSUMER.c.generation)
        .where(CONSUMER.c.uuid.in_(_UUIDS)),
        _tagged(_ALLOCATION, uuid=ALLOC.c.consumer_id, id=ALLOC.c.id,
                provider_id=ALLOC.c.resource_provider_id,
                resource_class_id=ALLOC.c.resource_class_id,
                used=ALLOC.c.used)
        .where(ALLOC.c.consumer_id.in_(_UUIDS)),
        *(_tagged(_FIRST_LOOKUP + n, id=consumer_obj.owner_lookup(
            key, _owner_parameter(index, key)).scalar_subquery())
          for n, (index, key) in enumerate(
              (index, key) for index, keys in enumerate(owner_keys)
              for key in keys)))


def _read(conn, requests):
    """The :class:`_State` of ``requests``, in one statement.

    A UNION of rows tagged by kind. It is read before anything is
    written, so the usage it reads leaves out the allocations being
    replaced; the providers' generations, swapped when the allocations
    are written, prove that nothing else changed since.
    """
    owners = {request.owner: consumer_obj.owner_names(request.owner)
              for request in requests}
    lookups = [(owner, key) for owner, names in owners.items()
               for key in names]
    values = {
        'uuids': sorted(request.uuid for request in requests),
        'wanted': sorted({rp_uuid for request in requests
                          for rp_uuid in request.allocations}),
        'emptied': sorted(request.uuid for request in requests
                          if not request.allocations),
        **{_owner_parameter(index, key): name
           for index, names in enumerate(owners.values())
           for key, name in names.items()}}
    statement = _read_statement(
        tuple(tuple(names) for names in owners.values()),
        bool(values['emptied']))
    state = _State({}, [], {owner: {} for owner in owners}, {})
    for row in conn.execute(statement, values):
        if row.tag == _PROVIDER:
            provider = state.providers.setdefault(row.provider, _Provider(
                row.id, row.provider, row.generation, {}))
            if row.class_name is not None:
                provider.inventories[row.class_name] = row
        elif row.tag == _CONSUMER:
            state.consumers[row.uuid] = row
        elif row.tag == _ALLOCATION:
            state.old.append(row)
        else:
            owner, key = lookups[row.tag - _FIRST_LOOKUP]
            state.owner_ids[owner][key] = row.id
    return state


def _delete_allocations(conn, ids):
    """Delete allocation rows ``ids``.

    By primary key, found by a plain read: a range delete on the
    consumer index would take gap locks (MySQL) that deadlock with
    concurrent inserts of other consumers' allocations.
    """
    if ids:
        conn.execute(sa.delete(ALLOC).where(ALLOC.c.id.in_(sorted(ids))))


def _write_consumers(conn, requests, consumers, found_owner_ids):
    """Create or update the consumers of ``requests`` that need it.

    The new ones of each owner in one statement. Before 1.28 a
    concurrent change is retried: without a generation from the client
    the server used the one it read, so another transaction's change is
    not the client's conflict: a fresh transaction reads the new
    generation and succeeds, as the consumer generation spec says old
    microversions always do.
    """
    written = [request for request in requests
               if consumers.get(request.uuid) is not None
               or request.allocations]
    new = {}
    try:
        owner_ids = consumer_obj.owner_ids(
            conn, {request.owner: found_owner_ids[request.owner]
                   for request in written})
        for request in written:
            consumer = consumers.get(request.uuid)
            if consumer is None:
                new.setdefault(request.owner, []).append(request.uuid)
            else:
                consumer_obj.update(conn, consumer, owner_ids[request.owner])
        for owner, uuids in new.items():
            consumer_obj.create(conn, uuids, owner_ids[owner])
    except exception.ConcurrentUpdate as exc:
        if any(request.check_generation for request in requests):
            raise
        raise _Retry() from exc


@dataclasses.dataclass(frozen=True)
class _Provider:
    id: int
    uuid: str
    generation: int
    #: ``{class name: inventory row with its usage}``
    inventories: dict


def _check_known(conn, requests, providers):
    """BadRequest for an unknown class, then for an unknown provider.

    Classes are looked up only when some provider lacks one: a class in
    an inventory exists.
    """
    missing = {}
    for request in requests:
        for rp_uuid, resources in request.allocations.items():
            inventories = getattr(providers.get(rp_uuid), 'inventories', {})
            for name in set(resources) - inventories.keys():
                missing.setdefault(name, request.uuid)
    if missing:
        found, _unknown = name_table.ids_by_name(conn, resource_class.RC,
                                                 missing)
        try:
            resource_class.require_known(missing, found)
        except exception.UnknownResourceClass as exc:
            consumer = min(missing[name]
                           for name in missing.keys() - found.keys())
            # Upstream's words.
            raise exception.UnknownResourceClass(
                f'Unable to allocate inventory for consumer {consumer}: '
                f'{exc}') from exc
    unknown = sorted({rp_uuid for request in requests
                      for rp_uuid in request.allocations} - providers.keys())
    if unknown:
        raise exception.BadRequest(
            f"Allocation for resource provider '{unknown[0]}' that does "
            f"not exist.")


def _unable(message):
    return exception.Conflict(f'Unable to allocate inventory: {message}')


def _check_amount(provider, class_name, inventory, amount):
    """Conflict unless one allocation fits the inventory's unit rules."""
    if inventory is None:
        raise _unable(f"Inventory for '{class_name}' on resource provider "
                      f"'{provider.uuid}' invalid.")
    if not capacity.allows(inventory, amount):
        raise _unable(
            f'Allocation for {class_name} on resource provider '
            f'{provider.uuid} violates min_unit, max_unit, or step_size. '
            f'Requested: {amount}, min_unit: {inventory.min_unit}, '
            f'max_unit: {inventory.max_unit}, step_size: '
            f'{inventory.step_size}')


def _new_rows(requests, providers):
    """The allocation rows to insert, as dicts, checked one by one, each
    consumer's in the order of its request (which GET answers)."""
    rows = []
    for request in requests:
        for rp_uuid, resources in request.allocations.items():
            provider = providers[rp_uuid]
            for class_name, amount in resources.items():
                inventory = provider.inventories.get(class_name)
                _check_amount(provider, class_name, inventory, amount)
                rows.append({'consumer_id': request.uuid,
                             'resource_provider_id': provider.id,
                             'resource_class_id': inventory.resource_class_id,
                             'used': amount})
    return rows


def _check_capacity(rows, providers, old):
    """Conflict unless every row fits its inventory, with current usage.

    :func:`capacity.has_room` for every provider and class, summing the
    requested amounts of all rows, unless the consumers already held as
    much there (``old``, the rows replaced): a write that does not grow a
    provider's usage of a class is not refused for a capacity it does not
    make worse (upstream's reshaper re-states such allocations on a
    provider left over its capacity by an inventory update).
    """
    held = {}
    for row in old:
        key = (row.provider_id, row.resource_class_id)
        held[key] = held.get(key, 0) + row.used
    inventories = {
        (provider.id, inventory.resource_class_id): (provider, inventory)
        for provider in providers.values()
        for inventory in provider.inventories.values()}
    requested = {}
    for row in rows:
        key = (row['resource_provider_id'], row['resource_class_id'])
        requested[key] = requested.get(key, 0) + row['used']
    for key, amount in sorted(requested.items()):
        if amount <= held.get(key, 0):
            continue
        provider, inventory = inventories[key]
        if not capacity.has_room(inventory, int(inventory.used), amount):
            raise _unable(
                f"Unable to create allocation for "
                f"'{inventory.class_name}' on resource provider "
                f"'{provider.uuid}'. The requested amount would "
                f"exceed the capacity.")


def _swap_generations(conn, providers):
    """Compare-and-swap the providers' generations, in one statement."""
    try:
        resource_provider.increment_generations(
            conn, {provider.id: provider.generation
                   for provider in providers})
    except exception.ConcurrentUpdate as exc:
        raise _Retry() from exc


def write_once(conn, requests):
    """Replace the allocations of ``requests``' consumers in ``conn``.

    May raise _Retry, which the transaction layer runs again.
    """
    requests = sorted(requests, key=lambda request: request.uuid)
    state = _read(conn, requests)
    for request in requests:
        if request.check_generation:
            consumer_obj.check_generation(
                request.uuid, state.consumers.get(request.uuid),
                request.generation)
    _write_consumers(conn, requests, state.consumers, state.owner_ids)
    _delete_allocations(conn, [row.id for row in state.old])
    _check_known(conn, requests, state.providers)
    rows = _new_rows(requests, state.providers)
    _check_capacity(rows, state.providers, state.old)
    if rows:
        conn.execute(_INSERT_ALLOCATIONS, rows)
    consumer_obj.delete(conn, [request.uuid for request in requests
                               if not request.allocations])
    if state.providers:
        _swap_generations(conn, state.providers.values())


def replace(db, requests, retries):
    """Replace the allocations of the consumers of ``requests``, atomically.

    ``requests`` are ConsumerAllocations with distinct uuids; a
    generation that moves is tried again ``retries`` times at most.
    """
    db.write(write_once, requests, conflict_retries=retries)


def _delete_consumer(conn, uuid):
    ids = conn.scalars(sa.select(ALLOC.c.id).where(
        ALLOC.c.consumer_id == uuid)).all()
    if not ids:
        raise exception.NotFound(
            f'No allocations for consumer \'{uuid}\'')
    _delete_allocations(conn, ids)
    consumer_obj.delete(conn, [uuid])


def delete_consumer(db, uuid, retries):
    """Delete all allocations of consumer ``uuid`` and its record.

    NotFound when it has none.
    """
    db.write(_delete_consumer, uuid, conflict_retries=retries)


@db_api.read_committed
def of_consumer(conn, uuid):
    """The allocation rows of consumer ``uuid``, each with what is shown
    of the consumer (:data:`_OF_CONSUMER`), in one statement."""
    return conn.execute(_OF_CONSUMER, {'uuid': uuid}).all()


@db_api.read_committed
def of_provider(conn, uuid):
    """``(provider generation, allocation rows)`` of provider ``uuid``
    (the rows of :data:`_OF_PROVIDER_UUID`), in one statement."""
    rows = resource_provider.joined_rows(conn, _OF_PROVIDER_UUID, uuid)
    return rows[0].provider_generation, [
        row for row in rows if row.consumer_id is not None]
