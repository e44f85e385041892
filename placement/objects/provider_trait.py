"""Traits of resource providers."""

import sqlalchemy as sa

from placement.db import models
from placement.objects import association
from placement.objects import name_table
from placement.objects import resource_provider
from placement.objects import trait

_RP_TRAIT = models.ResourceProviderTrait.__table__
#: Built once (see resource_provider._BY_UUID).
_NAMES_OF_PROVIDER = (
    sa.select(trait.TRAIT.c.name)
    .join(_RP_TRAIT, _RP_TRAIT.c.trait_id == trait.TRAIT.c.id)
    .where(_RP_TRAIT.c.resource_provider_id == sa.bindparam('provider_id'))
    .order_by(trait.TRAIT.c.name))
_LINKS = association.Association(_RP_TRAIT.c.trait_id, trait.TRAIT.c.name)


def names_of_provider(conn, provider_id):
    """The sorted names of the traits of provider ``provider_id``."""
    return list(conn.scalars(_NAMES_OF_PROVIDER,
                             {'provider_id': provider_id}))


def replace_of(conn, uuid, generation, names):
    """Give provider ``uuid`` exactly the traits ``names``.

    NotFound for no such provider, then BadRequest for unknown traits;
    ``generation`` is the provider generation the caller saw
    (ConcurrentUpdate when it is stale). The set the provider already
    has changes nothing, not even the generation, as upstream. Returns
    the provider (:class:`association.Provider`) after.
    """
    provider, found, current = _LINKS.of_provider(
        conn, uuid, filter(name_table.storable, names))
    wanted = set(trait.known(
        *name_table.found_and_unknown(names, found)).values())
    if wanted == current:
        if provider.generation != generation:
            raise resource_provider.generation_conflict(
                provider.generation, generation)
        return provider
    after = resource_provider.advance_generation(conn, provider, generation)
    _LINKS.replace(conn, provider.id, wanted, current)
    return after


def of_provider(conn, uuid):
    """``(provider row, trait names)`` of provider ``uuid``."""
    provider = resource_provider.get_by_uuid(conn, uuid)
    return provider, names_of_provider(conn, provider.id)


def clear_of(conn, uuid):
    """Remove every trait of provider ``uuid``, at its current generation."""
    provider, _found, current = _LINKS.of_provider(conn, uuid, [])
    if current:
        resource_provider.advance_generation(conn, provider,
                                             provider.generation)
        _LINKS.replace(conn, provider.id, set(), current)
