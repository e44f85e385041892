"""GET /resource_providers: the providers that pass every given filter.

The filters become conditions of a single statement (EXISTS and IN
subqueries over the association and inventory tables), so listing costs
one query whatever the number of providers. The condition builders are
shared with other provider searches.
"""

import dataclasses

import os_traits
import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import aggregate
from placement.objects import capacity
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import resource_provider
from placement.objects import trait

RP = resource_provider.RP
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_AGG = models.PlacementAggregate.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__


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


def in_any_aggregate(provider_id, aggregate_uuids, per_provider=False):
    """Condition: provider ``provider_id`` is in one of the aggregates
    (:func:`exists`)."""
    return exists(_RP_AGG.c.resource_provider_id == provider_id,
                  _RP_AGG.c.aggregate_id == _AGG.c.id,
                  _AGG.c.uuid.in_(aggregate_uuids), per_provider=per_provider)


#: Conditions of one kind (trait or aggregate sets) beyond which each is
#: looked up per provider (:func:`exists`) rather than joined:
#: PostgreSQL's planning of the joins grows faster than their number
#: (5.7 s for 150 sets of traits).
MOST_JOINED = 8


def looked_up_each(groups):
    """Whether the conditions of ``groups`` (of one kind) are looked up
    per provider rather than joined: there are more than
    :data:`MOST_JOINED`."""
    return len(groups) > MOST_JOINED


def exists(*conditions, per_provider=False):
    """Condition (or flag): a row meets ``conditions`` (correlated to
    the provider tested).

    ``per_provider``: looked up for each provider tested, as a window of
    providers wants. The ``OFFSET 0`` keeps PostgreSQL from turning an
    EXISTS of the WHERE clause into a join, which it may plan from every
    row of the cloud that meets the conditions: for a window of 700
    nested providers, 8 ms a statement against 5, half of it planning.
    Over the whole cloud that join is the better plan (a statement of the
    3 VF query without a limit: 15 ms against 23), and MariaDB's own
    EXISTS-to-IN rewrite is faster there too.
    """
    query = sa.select(1).where(*conditions)
    return sa.exists(query.offset(0) if per_provider else query)


def has_any_trait(provider_id, trait_ids, per_provider=False):
    """Condition: provider ``provider_id`` has one of the traits
    (:func:`exists`)."""
    return exists(_RP_TRAIT.c.resource_provider_id == provider_id,
                  _RP_TRAIT.c.trait_id.in_(trait_ids),
                  per_provider=per_provider)


def sharing():
    """Ids of the providers that share their inventory with the trees of
    their aggregates (trait MISC_SHARES_VIA_AGGREGATE)."""
    return (sa.select(_RP_TRAIT.c.resource_provider_id)
            .join(trait.TRAIT, trait.TRAIT.c.id == _RP_TRAIT.c.trait_id)
            .where(trait.TRAIT.c.name == os_traits.MISC_SHARES_VIA_AGGREGATE))


def in_every_aggregate(provider_id, aggregate_uuids):
    """Condition: provider ``provider_id`` is in all of the aggregates.

    One subquery however many they are, unlike one
    :func:`in_any_aggregate` each: SQLite nests at most 1,000 conditions,
    and PostgreSQL plans each EXISTS as a join (seconds for a hundred).
    """
    return provider_id.in_(
        sa.select(_RP_AGG.c.resource_provider_id)
        .join(_AGG, _AGG.c.id == _RP_AGG.c.aggregate_id)
        .where(_AGG.c.uuid.in_(aggregate_uuids))
        .group_by(_RP_AGG.c.resource_provider_id)
        .having(sa.func.count() == len(aggregate_uuids)))


def has_every_trait(provider_id, trait_ids):
    """Condition: provider ``provider_id`` has all of the traits.

    One subquery, for the reasons of :func:`in_every_aggregate`.
    """
    return provider_id.in_(
        sa.select(_RP_TRAIT.c.resource_provider_id)
        .where(_RP_TRAIT.c.trait_id.in_(trait_ids))
        .group_by(_RP_TRAIT.c.resource_provider_id)
        .having(sa.func.count() == len(trait_ids)))


def each_of(groups):
    """``(the members of the groups of one, the larger groups)``."""
    single = {member for group in groups if len(group) == 1
              for member in group}
    return single, [group for group in groups if len(group) > 1]


def _fits(class_id, amount, now=True):
    """Conditions on an inventory row: ``amount`` of the class fits it
    (:func:`capacity.fits_sql`), with what is used if ``now``, else
    with nothing allocated."""
    amount = sa.literal(amount, sa.Integer)
    used = sa.literal(0, sa.Integer)
    if now:
        used = (sa.select(sa.func.coalesce(sa.func.sum(_ALLOC.c.used), 0))
                .where(_ALLOC.c.resource_provider_id
                       == _INV.c.resource_provider_id,
                       _ALLOC.c.resource_class_id == class_id)
                .scalar_subquery())
    return [_INV.c.resource_class_id == class_id,
            *capacity.fits_sql(_INV.c, used, amount)]


def with_capacity(class_id, amount):
    """Ids of the providers that can serve ``amount`` of a class now."""
    return sa.select(_INV.c.resource_provider_id).where(
        *_fits(class_id, amount))


def could_ever_fit(class_id, amount):
    """Condition: some inventory could serve ``amount`` of a class were
    nothing allocated from it (an index range of the class, stopping at
    the first that can)."""
    return sa.exists(sa.select(1).where(*_fits(class_id, amount, now=False)))


def has_capacity(provider_id, class_id, amount, per_provider=False):
    """Condition (or flag): provider ``provider_id`` can serve ``amount``
    of a class now (:func:`exists`); a probe, where
    :func:`with_capacity` is a set."""
    return exists(_INV.c.resource_provider_id == provider_id,
                  *_fits(class_id, amount), per_provider=per_provider)


def known_groups(groups, known):
    """``groups`` (sets of aggregate uuids, a provider is in one of
    each) without the uuids that are not in ``known`` and without
    repeats; None if a group is left empty (no provider is in it).

    A thousand groups of one real aggregate and one unknown are then one
    group: a condition each made the planners of MariaDB and PostgreSQL
    search for minutes, and nested beyond SQLite's 1,000 levels.
    """
    found = []
    for group in groups:
        group = frozenset(uuid for uuid in group if uuid in known)
        if not group:
            return None
        found.append(group)
    return tuple(dict.fromkeys(found))


def _aggregate_conditions(conn, filters):
    known = aggregate.existing_ids(
        conn, set(filters.forbidden_aggregates).union(*filters.member_of))
    groups = known_groups(filters.member_of, known)
    if groups is None:
        return [sa.false()]
    single, any_of = each_of(groups)
    probed = looked_up_each(any_of)
    conditions = [in_any_aggregate(RP.c.id, group, per_provider=probed)
                  for group in any_of]
    if single:
        conditions.append(in_every_aggregate(RP.c.id, sorted(single)))
    forbidden = known.keys() & filters.forbidden_aggregates
    if forbidden:
        conditions.append(~in_any_aggregate(RP.c.id, sorted(forbidden)))
    return conditions


def trait_conditions(conn, filters):
    """Conditions on :data:`RP` for the traits of ``filters``."""
    names = set(filters.forbidden_traits).union(*filters.required_traits)
    ids = trait.ids_by_name(conn, names)
    single, any_of = each_of(filters.required_traits)
    probed = looked_up_each(any_of)
    conditions = [has_any_trait(RP.c.id, [ids[name] for name in group],
                                per_provider=probed)
                  for group in any_of]
    if single:
        conditions.append(
            has_every_trait(RP.c.id, sorted(ids[name] for name in single)))
    if filters.forbidden_traits:
        conditions.append(~has_any_trait(
            RP.c.id, [ids[name] for name in filters.forbidden_traits]))
    return conditions


def _resource_conditions(conn, filters):
    ids = resource_class.ids_by_name(conn, filters.resources)
    return [RP.c.id.in_(with_capacity(ids[name], amount))
            for name, amount in sorted(filters.resources.items())]


def _tree_condition(in_tree):
    root = (sa.select(sa.func.coalesce(RP.c.root_provider_id, RP.c.id))
            .where(RP.c.uuid == in_tree).scalar_subquery())
    return RP.c.root_provider_id == root


def list_providers(conn, filters):
    """Provider rows (:func:`resource_provider.select_listed`), by id, as
    the result gives them: read them all before the next statement.

    Unknown resource classes and traits are BadRequest.
    """
    # Checked first: naming an unknown class or trait is an error even
    # when another filter already excludes everything.
    conditions = (_resource_conditions(conn, filters)
                  + trait_conditions(conn, filters)
                  + _aggregate_conditions(conn, filters))
    if filters.name is not None:
        if not name_table.storable(filters.name):
            return []
        conditions.append(RP.c.name == filters.name)
    if filters.uuid is not None:
        conditions.append(RP.c.uuid == filters.uuid)
    if filters.in_tree is not None:
        conditions.append(_tree_condition(filters.in_tree))
    rows = db_api.streamed(conn, resource_provider.select_listed(*conditions))
    # MySQL compares names ignoring case and trailing spaces; we do not.
    return (row for row in rows
            if filters.name is None or row.name == filters.name)
