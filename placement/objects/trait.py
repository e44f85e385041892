"""Traits: standard (os-traits) and custom ones, and their lookup.

Like resource classes, trait ids are never cached in-process.
"""

import os_traits
import sqlalchemy as sa

from placement import exception
from placement.db import api as db_api
from placement.db import models
from placement.objects import name_table

TRAIT = models.Trait.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__
_KIND = 'trait'


def ids_by_name(conn, names):
    """``{name: id}`` for ``names``; BadRequest naming unknown traits."""
    return known(*name_table.ids_by_name(conn, TRAIT, names))


def known(found, unknown):
    """``found``; BadRequest naming the ``unknown`` traits if any."""
    if unknown:
        raise exception.BadRequest(
            f'No such trait(s): {", ".join(unknown)}.')
    return found


@db_api.read_committed
def get_all(conn, name_in=None, prefix=None, associated=None):
    """Trait rows sorted by name, filtered by what is not None.

    ``name_in``: names to keep; ``prefix``: what names start with;
    ``associated``: whether some resource provider has the trait.
    """
    query = sa.select(TRAIT)
    if name_in is not None:
        name_in = set(filter(name_table.storable, name_in))
        query = query.where(TRAIT.c.name.in_(name_in))
    if prefix is not None:
        # No name is longer than its column, and SQLite refuses LIKE
        # patterns of more than 50,000 bytes.
        if not name_table.storable(prefix) or (
                len(prefix) > TRAIT.c.name.type.length):
            return []
        query = query.where(TRAIT.c.name.startswith(prefix, autoescape=True))
    if associated is not None:
        used = sa.exists().where(_RP_TRAIT.c.trait_id == TRAIT.c.id)
        query = query.where(used if associated else ~used)
    rows = [row for row in conn.execute(query)
            if (name_in is None or row.name in name_in)
            and (prefix is None or row.name.startswith(prefix))]
    return sorted(rows, key=lambda row: row.name)


@db_api.read_committed
def get_by_name(conn, name):
    """The row of trait ``name``; NotFound if there is none."""
    row = name_table.get(conn, TRAIT, name)
    if row is None:
        raise _not_found(name)
    return row


def ensure(conn, name):
    """Add custom trait ``name`` unless it exists.

    ``(row, created)``: the existing row, or None when it was just added.
    """
    return name_table.ensure(conn, TRAIT, name, _KIND)


def delete(conn, name):
    """Delete custom trait ``name``; Conflict while a provider has it."""
    row = get_by_name(conn, name)
    if not os_traits.is_custom(row.name):
        raise exception.BadRequest(f'Cannot delete standard trait {name}.')
    deleted = name_table.delete(
        conn, TRAIT, row.id, referrers=(_RP_TRAIT.c.trait_id,),
        in_use_message=(
            f'The trait {name} is in use by a resource provider.'))
    if not deleted:
        raise _not_found(name)


def _not_found(name):
    return exception.NotFound(f'No such trait(s): {name}')
