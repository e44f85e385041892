"""Resource classes: standard (os-resource-classes) and custom ones.

There is deliberately no in-process cache: another worker process may
create or delete custom classes at any time, and the lookups are cheap
indexed reads in the transaction that needs them.
"""

import os_resource_classes
import sqlalchemy as sa

from placement import exception
from placement.db import api as db_api
from placement.db import models
from placement.objects import name_table

RC = models.ResourceClass.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_KIND = 'resource class'


def ids_by_name(conn, names):
    """``{name: id}`` for ``names``; BadRequest naming any unknown class."""
    found, _unknown = name_table.ids_by_name(conn, RC, names)
    require_known(names, found)
    return found


def require_known(names, ids):
    """BadRequest naming those of ``names`` missing from ``ids`` (the
    ``{name: id}`` of a lookup that covered them, and maybe more)."""
    unknown = sorted(set(names) - ids.keys())
    if unknown:
        # "No such resource class <name>" is upstream's phrase, which
        # clients match.
        raise exception.UnknownResourceClass(
            f'No such resource class {", ".join(unknown)}.')


def hold_custom(conn, names):
    """Hold the custom classes of ``names`` (``{id: name}``) until the
    transaction ends, for a write that adds rows using them: a
    concurrent :func:`delete` of one waits for it, then finds the use
    and is refused (inventories have no foreign key to their class).
    UnknownResourceClass for one deleted since its id was read."""
    custom = {id_: name for id_, name in names.items()
              if os_resource_classes.is_custom(name)}
    held = name_table.hold(conn, RC, custom)
    require_known(custom.values(), {
        name: id_ for id_, name in custom.items() if id_ in held})


@db_api.read_committed
def get_all(conn):
    """Every resource class row, standard ones first."""
    return conn.execute(sa.select(RC).order_by(RC.c.id)).all()


@db_api.read_committed
def get_by_name(conn, name):
    """The row of class ``name``; NotFound if there is none."""
    row = name_table.get(conn, RC, name)
    if row is None:
        raise _not_found(name)
    return row


def last_modified(row):
    """When class ``row`` changed; None (now) for standard classes."""
    if not os_resource_classes.is_custom(row.name):
        return None
    return name_table.last_modified(row)


def create(conn, name):
    """Add custom class ``name``; DuplicateName if it exists."""
    name_table.insert(conn, RC, name, _KIND)


def ensure(conn, name):
    """Add custom class ``name`` unless it exists; whether it was added."""
    _row, created = name_table.ensure(conn, RC, name, _KIND)
    return created


def rename(conn, name, new_name):
    """Rename custom class ``name`` (microversions before 1.7)."""
    row = get_by_name(conn, name)
    _refuse_standard(row.name, 'update')
    if not name_table.rename(conn, RC, row.id, new_name, _KIND):
        raise _not_found(name)


def delete(conn, name):
    """Delete custom class ``name``; Conflict while anything uses it."""
    row = get_by_name(conn, name)
    _refuse_standard(row.name, 'delete')
    deleted = name_table.delete(
        conn, RC, row.id,
        referrers=(_INV.c.resource_class_id, _ALLOC.c.resource_class_id),
        in_use_message=(
            f'Error in delete resource class: Unable to delete resource '
            f'class {name}: it is in use in inventory or allocations; '
            f'delete those first.'))
    if not deleted:
        raise _not_found(name)


def _not_found(name):
    return exception.NotFound(f'No such resource class {name}.')


def _refuse_standard(name, action):
    if not os_resource_classes.is_custom(name):
        raise exception.BadRequest(
            f'Cannot {action} standard resource class {name}.')
