"""Inventories of resource providers: read, replace, add, update, delete.

Every write starts with the provider's generation compare-and-swap: it
rejects a stale generation before anything else happens and, on the
server backends, holds the provider row locked for the rest of the
transaction, so that the allocation checks below cannot race with
allocation writers (which swap the same generation).

Removing the inventory of a class that has allocations is refused
(InventoryInUse). Lowering an inventory's capacity below what is
allocated from it is allowed and logged as a warning, as upstream does:
nova's resource tracker changes reserved amounts and allocation ratios
of busy hosts, and the provider stays over capacity until allocations
are released.
"""

import dataclasses
import datetime
import logging

import sqlalchemy as sa

from placement import exception
from placement import limits
from placement.db import api as db_api
from placement.db import models
from placement.objects import capacity
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import resource_provider

INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
RC = models.ResourceClass.__table__

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Inventory:
    """One inventory record; the defaults are those of the API."""

    total: int
    reserved: int = 0
    min_unit: int = 1
    max_unit: int = limits.MAX_INT
    step_size: int = 1
    allocation_ratio: float = 1.0
    #: When the stored record last changed; None if not stored yet.
    last_modified: datetime.datetime | None = dataclasses.field(
        default=None, compare=False)

    @classmethod
    def from_body(cls, fields):
        """An inventory from validated request ``fields``.

        JSON Schema accepts ``2.0`` as an integer; store and echo ``2``.
        """
        values = {name: int(value) for name, value in fields.items()
                  if name != 'allocation_ratio'}
        if 'allocation_ratio' in fields:
            values['allocation_ratio'] = float(fields['allocation_ratio'])
        return cls(**values)

    def values(self):
        """The record's API fields, as shown in responses."""
        return {'total': self.total, 'reserved': self.reserved,
                'min_unit': self.min_unit, 'max_unit': self.max_unit,
                'step_size': self.step_size,
                'allocation_ratio': self.allocation_ratio}


#: The API fields of an inventory, as stored.
_FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
           'allocation_ratio')
#: What an Inventory is read from: its fields and when it last changed
#: (only these: every column's description is decoded anew for each
#: result).
_READ = (*(INV.c[field] for field in _FIELDS),
         name_table.changed(INV).label('changed'))


def _inventory(row):
    return Inventory(
        total=row.total, reserved=row.reserved, min_unit=row.min_unit,
        max_unit=row.max_unit, step_size=row.step_size,
        allocation_ratio=row.allocation_ratio, last_modified=row.changed)


#: Built once (see resource_provider._BY_UUID).
_OF_PROVIDER = (
    sa.select(RC.c.name, *_READ)
    .join_from(INV, RC, RC.c.id == INV.c.resource_class_id)
    .where(INV.c.resource_provider_id == sa.bindparam('provider_id')))


#: A provider's generation with its inventories (see
#: resource_provider.joined_rows).
_OF_PROVIDER_UUID = (
    sa.select(resource_provider.RP.c.generation.label('provider_generation'),
              RC.c.name, *_READ)
    .select_from(
        resource_provider.RP
        .outerjoin(INV, INV.c.resource_provider_id
                   == resource_provider.RP.c.id)
        .outerjoin(RC, RC.c.id == INV.c.resource_class_id))
    .where(resource_provider.RP.c.uuid == sa.bindparam('uuid')))


def get_all(conn, provider_id):
    """``{resource class name: Inventory}`` of a provider."""
    rows = conn.execute(_OF_PROVIDER, {'provider_id': provider_id})
    return {row.name: _inventory(row) for row in rows}


def get_all_of_many(conn, provider_ids):
    """``{provider id: {resource class name: Inventory}}``."""
    found = {provider_id: {} for provider_id in provider_ids}
    rows = conn.execute(
        sa.select(INV.c.resource_provider_id, RC.c.name, *_READ)
        .join_from(INV, RC, RC.c.id == INV.c.resource_class_id)
        .where(INV.c.resource_provider_id.in_(sorted(provider_ids))))
    for row in rows:
        found[row.resource_provider_id][row.name] = _inventory(row)
    return found


def get_one(conn, provider, class_name):
    """The provider's inventory of ``class_name``; else NotFound."""
    inventory = get_all(conn, provider.id).get(class_name)
    if inventory is None:
        raise exception.NotFound(
            f'No inventory of class {class_name} for {provider.uuid}')
    return inventory


def _stored_class_ids(conn, provider_id):
    """``{resource class id: name}`` of the provider's inventories."""
    return dict(conn.execute(
        sa.select(INV.c.resource_class_id, RC.c.name)
        .join(RC, RC.c.id == INV.c.resource_class_id)
        .where(INV.c.resource_provider_id == provider_id)).all())


#: The ids of resource classes by name, and the stored inventories of
#: providers, in one round trip (see
#: :func:`tagged_union.union`): ``(name, class id, NULL...)`` rows of
#: the classes found, ``(NULL, class id, provider id, fields...)`` of the
#: inventories.
_CLASSES_AND_STORED = sa.union_all(
    sa.select(RC.c.name, RC.c.id, sa.null(), *(sa.null() for _ in _FIELDS))
    .where(RC.c.name.in_(sa.bindparam('names', expanding=True))),
    sa.select(sa.null(), INV.c.resource_class_id, INV.c.resource_provider_id,
              *(INV.c[field] for field in _FIELDS))
    .where(INV.c.resource_provider_id.in_(
        sa.bindparam('provider_ids', expanding=True))))


def _classes_and_stored(conn, names, provider_ids):
    """``({name: class id} of the ``names`` found, {provider id:
    {class id: Inventory}})`` in one statement."""
    class_ids = {}
    stored = {provider_id: {} for provider_id in provider_ids}
    for name, class_id, provider_id, *values in conn.execute(
            _CLASSES_AND_STORED, {
                'names': sorted(filter(name_table.storable, names)),
                'provider_ids': sorted(provider_ids)}):
        if name is not None:
            class_ids[name] = class_id
        else:
            stored[provider_id][class_id] = Inventory(
                **dict(zip(_FIELDS, values, strict=True)))
    return class_ids, stored


def _usage(conn, provider_id, class_ids):
    """``{resource class id: amount allocated}`` for ``class_ids``."""
    if not class_ids:
        return {}
    return dict(conn.execute(
        sa.select(ALLOC.c.resource_class_id, sa.func.sum(ALLOC.c.used))
        .where(ALLOC.c.resource_provider_id == provider_id,
               ALLOC.c.resource_class_id.in_(class_ids))
        .group_by(ALLOC.c.resource_class_id)).all())


def _usage_of_many(conn, provider_ids):
    """``{(provider id, resource class id): amount allocated}``."""
    if not provider_ids:
        return {}
    return {(row.resource_provider_id, row.resource_class_id): row.used
            for row in conn.execute(
                sa.select(ALLOC.c.resource_provider_id,
                          ALLOC.c.resource_class_id,
                          sa.func.sum(ALLOC.c.used).label('used'))
                .where(ALLOC.c.resource_provider_id.in_(
                    sorted(provider_ids)))
                .group_by(ALLOC.c.resource_provider_id,
                          ALLOC.c.resource_class_id))}


def _delete(conn, provider, classes):
    """Delete inventories ``{id: name}``; InventoryInUse if allocated."""
    if not classes:
        return
    in_use = _usage(conn, provider.id, list(classes))
    if in_use:
        _raise_in_use(provider, classes, in_use)
    conn.execute(sa.delete(INV).where(
        INV.c.resource_provider_id == provider.id,
        INV.c.resource_class_id.in_(list(classes))))


def _raise_in_use(provider, classes, in_use):
    """InventoryInUse naming the classes ``{id: name}`` in ``in_use``."""
    names = ', '.join(classes[id_] for id_ in sorted(in_use))
    raise exception.InventoryInUse(
        f"Inventory for '{names}' on resource provider "
        f"'{provider.uuid}' in use.")


def _warn_over_capacity(provider, class_name, used, inventory):
    if not capacity.has_room(inventory, used, 0):
        LOG.warning(
            "Resource provider %s is now over capacity for %s: %s "
            "allocated, capacity %d.", provider.uuid, class_name, used,
            capacity.capacity(inventory.total, inventory.reserved,
                              inventory.allocation_ratio))


def _write_update(conn, provider_id, class_id, inventory, changed_at):
    conn.execute(
        sa.update(INV)
        .where(INV.c.resource_provider_id == provider_id,
               INV.c.resource_class_id == class_id)
        .values(updated_at=changed_at, **inventory.values()))


def replace_all(conn, provider, inventories, generation):
    """Make ``{class name: Inventory}`` the provider's whole inventory.

    ``(new provider generation, the inventories as stored)``, without
    reading them back: the request's values with the time of the write;
    ConcurrentUpdate when ``generation`` is stale, BadRequest for an
    unknown class, InventoryInUse when a class left out still has
    allocations.
    """
    [new_generation], changed_at = replace_many(
        conn, [(provider, inventories, generation)])
    return new_generation, {
        name: dataclasses.replace(inventories[name], last_modified=changed_at)
        for name in sorted(inventories)}


def replace_many(conn, changes, rewrite_unchanged=True):
    """:func:`replace_all` for many providers, in a few statements.

    ``changes`` are ``(provider row, {class name: Inventory},
    generation)`` in provider id order; the result is as if each were
    replaced in turn (the first failing provider in that order raises)
    but for the statements: one generation swap for them all, one read
    of the classes' ids and of the providers' inventories, one of their
    usage if they had any, one insert. Returns the new generations, in
    order, and the time of the change: the providers' ``updated_at``,
    and the ``created_at`` or ``updated_at`` of the rows written.
    ``rewrite_unchanged`` False leaves alone the rows whose values do
    not change, for inventories this transaction has just written (the
    reshaper's final step).
    """
    new_generations = [generation + 1 for _p, _i, generation in changes]
    changed_at = resource_provider.increment_generations(
        conn, {provider.id: generation
               for provider, _i, generation in changes})
    class_ids, stored = _classes_and_stored(
        conn, {name for _p, inventories, _g in changes
               for name in inventories},
        [provider.id for provider, _i, _g in changes])
    for _provider, inventories, _generation in changes:
        resource_class.require_known(inventories, class_ids)
    class_names = {id_: name for name, id_ in class_ids.items()}
    unknown_stored = {id_ for rows in stored.values() for id_ in rows
                      } - class_names.keys()
    if unknown_stored:
        class_names.update(_class_names(conn, unknown_stored))
        # An inventory of a class that no longer exists, left by a
        # delete of the class that raced its write (before the write
        # held the class): it is replaced as any other, by its id.
        class_names.update(
            (id_, f'(deleted resource class {id_})')
            for id_ in unknown_stored - class_names.keys())
    usage = {}
    if any(stored.values()):
        usage = _usage_of_many(conn, [provider.id for provider, _i, _g
                                      in changes if stored[provider.id]])
    deleted, inserted = [], []
    for provider, inventories, _generation in changes:
        mine = stored[provider.id]
        wanted = {class_ids[name]: inventory
                  for name, inventory in inventories.items()}
        gone = {id_: class_names[id_] for id_ in mine if id_ not in wanted}
        in_use = {id_ for id_ in gone if usage.get((provider.id, id_))}
        if in_use:
            _raise_in_use(provider, gone, in_use)
        deleted.extend((provider.id, id_) for id_ in gone)
        for class_id, inventory in sorted(
                wanted.items(), key=lambda item: class_names[item[0]]):
            if class_id not in mine:
                inserted.append({'resource_provider_id': provider.id,
                                 'resource_class_id': class_id,
                                 'created_at': changed_at,
                                 **inventory.values()})
                continue
            _warn_over_capacity(
                provider, class_names[class_id],
                usage.get((provider.id, class_id), 0), inventory)
            if rewrite_unchanged or inventory != mine[class_id]:
                _write_update(conn, provider.id, class_id, inventory,
                              changed_at)
    if deleted:
        conn.execute(sa.delete(INV).where(
            sa.tuple_(INV.c.resource_provider_id,
                      INV.c.resource_class_id).in_(deleted)))
    if inserted:
        resource_class.hold_custom(conn, {
            row['resource_class_id']: class_names[row['resource_class_id']]
            for row in inserted})
        conn.execute(sa.insert(INV), inserted)
    return new_generations, changed_at


def _class_names(conn, class_ids):
    """``{id: name}`` of resource classes ``class_ids``."""
    return dict(conn.execute(sa.select(RC.c.id, RC.c.name).where(
        RC.c.id.in_(sorted(class_ids)))).all())


def add(conn, provider, class_name, inventory, generation=None):
    """Add the inventory of a class the provider has none of.

    ``generation`` defaults to the provider's generation as read; a class
    that already has inventory is a conflict. ``(new generation, the
    inventory as stored)``, not read back (as :func:`replace_all`).
    """
    if generation is None:
        generation = provider.generation
    changed_at = resource_provider.increment_generations(
        conn, {provider.id: generation})
    class_ids, stored = _classes_and_stored(conn, [class_name],
                                            [provider.id])
    resource_class.require_known([class_name], class_ids)
    class_id = class_ids[class_name]
    if class_id in stored[provider.id]:
        raise exception.ConcurrentUpdate(
            f"Update conflict: Inventory for '{class_name}' on resource "
            f"provider '{provider.uuid}' already exists.")
    resource_class.hold_custom(conn, {class_id: class_name})
    conn.execute(sa.insert(INV).values(
        resource_provider_id=provider.id, resource_class_id=class_id,
        created_at=changed_at, **inventory.values()))
    return generation + 1, dataclasses.replace(
        inventory, last_modified=changed_at)


def update(conn, provider, class_name, inventory, generation):
    """Replace the existing inventory of one class; BadRequest if none
    (or if there is no such class). ``(new generation, the inventory as
    stored)``, not read back (as :func:`replace_all`)."""
    changed_at = resource_provider.increment_generations(
        conn, {provider.id: generation})
    stored = {name: id_ for id_, name in
              _stored_class_ids(conn, provider.id).items()}
    if class_name not in stored:
        resource_class.ids_by_name(conn, [class_name])
        raise exception.BadRequest(
            f'No inventory record with resource class {class_name} found '
            f'for resource provider {provider.uuid}.')
    class_id = stored[class_name]
    # The usage is read in the transaction whose generation swap has
    # locked the provider.
    used = _usage(conn, provider.id, [class_id]).get(class_id, 0)
    _warn_over_capacity(provider, class_name, used, inventory)
    _write_update(conn, provider.id, class_id, inventory, changed_at)
    return generation + 1, dataclasses.replace(
        inventory, last_modified=changed_at)


def delete(conn, provider, class_name):
    """Delete the inventory of one class; NotFound if there is none."""
    resource_provider.increment_generation(
        conn, provider.id, provider.generation)
    stored = {name: id_ for id_, name in
              _stored_class_ids(conn, provider.id).items()}
    if class_name not in stored:
        raise exception.NotFound(
            f'No inventory of class {class_name} found for delete on '
            f'resource provider {provider.uuid}.')
    _delete(conn, provider, {stored[class_name]: class_name})


# What one request does, in one transaction each (run by the handlers
# through placement.db.api.Database.read/write); the provider is found
# by uuid in the same transaction.


@db_api.read_committed
def of_provider(conn, uuid):
    """``(provider generation, {class name: Inventory})``."""
    rows = resource_provider.joined_rows(conn, _OF_PROVIDER_UUID, uuid)
    return rows[0].provider_generation, {
        row.name: _inventory(row) for row in rows if row.name is not None}


def one_of_provider(conn, uuid, class_name):
    """``(provider row, Inventory)``; NotFound for either."""
    provider = resource_provider.get_by_uuid(conn, uuid)
    return provider, get_one(conn, provider, class_name)


def replace_all_of(conn, uuid, inventories, generation):
    """:func:`replace_all`; ``(new generation, stored inventories)``."""
    return replace_all(conn, resource_provider.get_by_uuid(conn, uuid),
                       inventories, generation)


def delete_all_of(conn, uuid):
    """Delete every inventory of the provider, at its current generation."""
    provider = resource_provider.get_by_uuid(conn, uuid)
    replace_all(conn, provider, {}, provider.generation)


def add_to(conn, uuid, class_name, inventory, generation):
    """:func:`add`; ``(new generation, stored inventory)``."""
    return add(conn, resource_provider.get_by_uuid(conn, uuid), class_name,
               inventory, generation)


def update_of(conn, uuid, class_name, inventory, generation):
    """:func:`update`; ``(new generation, stored inventory)``."""
    return update(conn, resource_provider.get_by_uuid(conn, uuid),
                  class_name, inventory, generation)


def delete_of(conn, uuid, class_name):
    """:func:`delete` on the provider of ``uuid``."""
    delete(conn, resource_provider.get_by_uuid(conn, uuid), class_name)
