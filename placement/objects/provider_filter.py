"""GET /resource_providers: the providers that pass every given filter.

The filters become conditions (:mod:`placement.objects.conditions`) of a
single statement, so listing costs one query whatever the number of
providers.
"""

import dataclasses

import sqlalchemy as sa

from placement.db import api as db_api
from placement.objects import aggregate
from placement.objects import conditions
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import resource_provider
from placement.objects import trait

RP = resource_provider.RP


@dataclasses.dataclass(frozen=True)
class ProviderFilter:
    """What GET /resource_providers asks for; None/empty: no filter."""

    name: str | None = None
    uuid: str | None = None
    in_tree: str | None = None
    #: ``{resource class name: amount}`` each provider must be able to
    #: serve.
    resources: dict = dataclasses.field(default_factory=dict)
    #: Sets of aggregate uuids: a provider is in at least one of each.
    member_of: tuple = ()
    #: Aggregate uuids a provider must not be in.
    forbidden_aggregates: frozenset = frozenset()
    #: Sets of trait names: a provider has at least one of each.
    required_traits: tuple = ()
    #: Trait names a provider must not have.
    forbidden_traits: frozenset = frozenset()


def _trait_names(filters):
    return set(filters.forbidden_traits).union(*filters.required_traits)


def trait_conditions(conn, filters):
    """Conditions on :data:`RP` for the traits of ``filters``."""
    return _trait_conditions(
        filters, trait.ids_by_name(conn, _trait_names(filters)))


def _trait_conditions(filters, ids):
    return conditions.trait_conditions(
        [{ids[name] for name in group} for group in filters.required_traits],
        {ids[name] for name in filters.forbidden_traits})


def _name_conditions(conn, filters):
    """Conditions on :data:`RP` for the resources, traits and aggregates
    of ``filters``, their ids read in one statement
    (:func:`name_table.look_up`). Unknown resource classes, then traits,
    are BadRequest."""
    names = _trait_names(filters)
    uuids = set(filters.forbidden_aggregates).union(*filters.member_of)
    queries = {}
    if filters.resources:
        queries['class'] = name_table.select_ids(resource_class.RC,
                                                 filters.resources)
    if names:
        queries['trait'] = name_table.select_ids(trait.TRAIT, names)
    if uuids:
        queries['aggregate'] = aggregate.select_ids(sorted(uuids))
    found = name_table.look_up(conn, queries)
    classes = dict(found.get('class', ()))
    resource_class.require_known(filters.resources, classes)
    wanted = []
    if filters.resources:
        wanted.append(RP.c.id.in_(conditions.with_capacity(tuple(sorted(
            (classes[name], amount)
            for name, amount in filters.resources.items())))))
    wanted += _trait_conditions(filters, trait.known(
        *name_table.found_and_unknown(names, found.get('trait', ()))))
    known = aggregate.canonical_ids(found.get('aggregate', ()))
    groups = conditions.known_groups(filters.member_of, known)
    if groups is None:
        return wanted + [sa.false()]
    return wanted + conditions.aggregate_conditions(
        groups, conditions.known_ids(filters.forbidden_aggregates, known))


def list_providers(conn, filters):
    """Provider rows (:func:`resource_provider.select_listed`), by id, as
    the result gives them: read them all before the next statement.

    Unknown resource classes and traits are BadRequest.
    """
    # Checked first: naming an unknown class or trait is an error even
    # when another filter already excludes everything.
    wanted = _name_conditions(conn, filters)
    if filters.name is not None:
        if not name_table.storable(filters.name):
            return []
        wanted.append(RP.c.name == filters.name)
    if filters.uuid is not None:
        wanted.append(RP.c.uuid == filters.uuid)
    if filters.in_tree is not None:
        wanted.append(conditions.in_tree(filters.in_tree))
    rows = db_api.streamed(conn, resource_provider.select_listed(*wanted))
    if filters.name is None:
        return rows
    # MySQL compares names ignoring case and trailing spaces; we do not.
    return (row for row in rows if row.name == filters.name)
