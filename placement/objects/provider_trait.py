"""Traits of resource providers."""

from placement.db import api as db_api
from placement.db import models
from placement.objects import association
from placement.objects import name_table
from placement.objects import resource_provider
from placement.objects import trait

_RP_TRAIT = models.ResourceProviderTrait.__table__
_LINKS = association.Association(_RP_TRAIT.c.trait_id, trait.TRAIT.c.name)


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


@db_api.read_committed
def of_provider(conn, uuid):
    """``(generation, last change, sorted trait names)`` of provider
    ``uuid`` (the change naive UTC, as :func:`name_table.changed`)."""
    return _LINKS.linked(conn, uuid)


def clear_of(conn, uuid):
    """Remove every trait of provider ``uuid``, at its current generation."""
    provider, _found, current = _LINKS.of_provider(conn, uuid, [])
    if current:
        resource_provider.advance_generation(conn, provider,
                                             provider.generation)
        _LINKS.replace(conn, provider.id, set(), current)
