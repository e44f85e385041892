"""Folded strings: a provider's inventories (with usage) and trait ids,
joined into one string each by the database, and read back here.

The database driver's cost is per row and per column: folded, a
provider is one row of a few columns, not one per inventory and trait.
"""

import sqlalchemy as sa

from placement.db import models
from placement.objects import capacity

RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__


def as_text(column):
    return sa.cast(column, sa.String)


def folded_inventories():
    """The provider's inventories as ``class:total:reserved:ratio:
    max_unit:used`` joined by ``;`` (None without any); the usage is a
    correlated sum that the index on allocations (provider, class,
    used) answers alone."""
    used = (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
            .where(_ALLOC.c.resource_provider_id
                   == _INV.c.resource_provider_id,
                   _ALLOC.c.resource_class_id == _INV.c.resource_class_id)
            .scalar_subquery())
    fields = [_INV.c.resource_class_id, _INV.c.total, _INV.c.reserved,
              _INV.c.allocation_ratio, _INV.c.max_unit, used]
    text = as_text(fields[0])
    for field in fields[1:]:
        text = text + ':' + as_text(field)
    return (sa.select(sa.func.aggregate_strings(text, ';'))
            .where(_INV.c.resource_provider_id == RP.c.id)
            .scalar_subquery())


def folded_traits(trait_ids=None):
    """The provider's trait ids (of ``trait_ids`` only, if given) joined
    by ``,`` (None without any)."""
    conditions = [_RP_TRAIT.c.resource_provider_id == RP.c.id]
    if trait_ids is not None:
        conditions.append(_RP_TRAIT.c.trait_id.in_(trait_ids))
    return (sa.select(sa.func.aggregate_strings(
        as_text(_RP_TRAIT.c.trait_id), ','))
        .where(*conditions).scalar_subquery())


def decode_inventories(folded, names):
    """``{class: (capacity, used, free, max_unit)}`` of a folded
    inventory string (:func:`folded_inventories`); ``free`` is the
    capacity less what is used."""
    inventories = {}
    if not folded:
        return inventories
    classes = names.classes
    for inventory in folded.split(';'):
        class_id, total, reserved, ratio, max_unit, used = inventory.split(
            ':')
        limit = capacity.capacity(int(total), int(reserved), float(ratio))
        used = int(used)
        inventories[classes[int(class_id)]] = (
            limit, used, limit - used, int(max_unit))
    return inventories


def decode_traits(folded, names):
    """The trait names of a folded trait id string, by id (read for the
    whole batch of rows before: no query)."""
    if not folded:
        return ()
    ids = sorted(int(trait_id) for trait_id in folded.split(','))
    trait_names = names.traits(ids)
    return tuple(trait_names[trait_id] for trait_id in ids)
