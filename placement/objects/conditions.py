"""Conditions on resource providers, by provider id: the one library of
what the provider list (GET /resource_providers), the allocation
candidates and the reports select providers with.

Each is an SQL condition on a provider id column (most often that of
:data:`RP`, the provider tested): has traits, lacks traits, is (or its
root is) in aggregates, is in a tree, can serve an amount of a class.
Traits and aggregates are given by id: the callers look their names and
uuids up once a request.

Conditions of one kind are either *joined* (an IN of a subquery over
the whole table, which suits a search of the whole cloud) or *probed*
(an EXISTS looked up for each provider tested, :func:`exists`, which
suits a window of providers or many conditions).
"""

import functools

import os_traits
import sqlalchemy as sa

from placement.db import models
from placement.objects import capacity
from placement.objects import resource_provider
from placement.objects import trait

RP = resource_provider.RP
#: The root provider id of the provider row of :data:`RP`: always set
#: (the migrations refuse to run while a provider has none), and indexed.
ROOT_ID = RP.c.root_provider_id

_INV = models.Inventory.__table__
_RC = models.ResourceClass.__table__
_ALLOC = models.Allocation.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__

#: Capacity conditions kept built (:func:`_built`).
MOST_BUILT = 512

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


def each_of(groups):
    """``(the members of the groups of one, the larger groups)``."""
    single = {member for group in groups if len(group) == 1
              for member in group}
    return single, [group for group in groups if len(group) > 1]


def known_groups(groups, known):
    """``groups`` (sets of aggregate uuids, a provider is in one of
    each) as sets of the ids of those in ``known`` (``{uuid: id}``),
    without repeats; None if a group is left empty (no provider is in
    it).

    A thousand groups of one real aggregate and one unknown are then one
    group: a condition each made the planners of MariaDB and PostgreSQL
    search for minutes, and nested beyond SQLite's 1,000 levels.
    """
    found = []
    for group in groups:
        group = frozenset(known[uuid] for uuid in group if uuid in known)
        if not group:
            return None
        found.append(group)
    return tuple(dict.fromkeys(found))


def known_ids(uuids, known):
    """The sorted ids (``known``: ``{uuid: id}``) of those of ``uuids``
    that exist."""
    return sorted({known[uuid] for uuid in uuids if uuid in known})


def in_any_aggregate(provider_id, aggregate_ids, per_provider=False):
    """Condition: provider ``provider_id`` is in one of the aggregates
    (none: false; :func:`exists`)."""
    return exists(_RP_AGG.c.resource_provider_id == provider_id,
                  _RP_AGG.c.aggregate_id.in_(aggregate_ids),
                  per_provider=per_provider)


def member_of_any(aggregate_ids, with_root=False, per_provider=False):
    """Condition: the provider of :data:`RP` (or, ``with_root``, its
    root) is in one of the aggregates."""
    condition = in_any_aggregate(RP.c.id, aggregate_ids, per_provider)
    if with_root:
        # A root is its own root: no second probe.
        condition = condition | sa.and_(
            ROOT_ID != RP.c.id,
            in_any_aggregate(ROOT_ID, aggregate_ids, per_provider))
    return condition


def member_of_every(aggregate_ids, with_root=False):
    """Condition: the provider of :data:`RP` (or, ``with_root``, its
    root) is in every one of the aggregates.

    One condition however many they are: a condition each nests beyond
    SQLite's 1,000 levels with a thousand, and makes PostgreSQL plan a
    join each. One aggregate keeps its probe.
    """
    if len(aggregate_ids) == 1:
        return member_of_any(aggregate_ids, with_root)
    members = [RP.c.id, ROOT_ID] if with_root else [RP.c.id]
    return sa.select(
        sa.func.count(sa.distinct(_RP_AGG.c.aggregate_id))).where(
            _RP_AGG.c.resource_provider_id.in_(members),
            _RP_AGG.c.aggregate_id.in_(sorted(aggregate_ids))
    ).scalar_subquery() == len(aggregate_ids)


def aggregate_conditions(groups, forbidden, with_root=False):
    """Conditions on :data:`RP`: the provider (or, ``with_root``, its
    root) is in one aggregate of each of ``groups`` (sets of ids, as
    :func:`known_groups` gives them) and in none of ``forbidden`` (ids).
    """
    single, any_of = each_of(groups)
    probed = looked_up_each(any_of)
    conditions = [member_of_any(sorted(ids), with_root, probed)
                  for ids in any_of]
    if single:
        conditions.append(member_of_every(sorted(single), with_root))
    if forbidden:
        conditions.append(~member_of_any(sorted(forbidden), with_root))
    return conditions


def meets_aggregates(aggregates, groups, forbidden):
    """Whether a provider in ``aggregates`` (ids; with its root's for
    ``with_root``) meets :func:`aggregate_conditions` of ``groups`` and
    ``forbidden``: what they ask the database, of a provider read
    apart."""
    return (all(not aggregates.isdisjoint(ids) for ids in groups)
            and aggregates.isdisjoint(forbidden))


def has_any_trait(provider_id, trait_ids, per_provider=False):
    """Condition: provider ``provider_id`` has one of the traits
    (:func:`exists`)."""
    return exists(_RP_TRAIT.c.resource_provider_id == provider_id,
                  _RP_TRAIT.c.trait_id.in_(trait_ids),
                  per_provider=per_provider)


def has_every_trait(provider_id, trait_ids, per_provider=False):
    """Condition: provider ``provider_id`` has all of the traits.

    One subquery however many they are, for the reasons of
    :func:`member_of_every`. ``per_provider``: the provider's traits
    counted, where the joined form groups every provider with one of
    them (all 1,300 of the nested benchmark's with OWNER_NOVA, for each
    of nova 2026.2's PCI groups, to check the 176 providers of a window).
    """
    if per_provider:
        return sa.select(sa.func.count()).where(
            _RP_TRAIT.c.resource_provider_id == provider_id,
            _RP_TRAIT.c.trait_id.in_(trait_ids)
        ).scalar_subquery() == len(trait_ids)
    return provider_id.in_(
        sa.select(_RP_TRAIT.c.resource_provider_id)
        .where(_RP_TRAIT.c.trait_id.in_(trait_ids))
        .group_by(_RP_TRAIT.c.resource_provider_id)
        .having(sa.func.count() == len(trait_ids)))


def trait_conditions(required, forbidden, per_provider=False,
                     provider_id=RP.c.id):
    """Conditions on :data:`RP`: the provider (or the one of
    ``provider_id``, its root say) has one trait of each of ``required``
    (sets of ids) and none of ``forbidden`` (ids); looked up per
    provider if ``per_provider``. The traits of sets of one are one
    condition however many (as for :func:`member_of_every`)."""
    single, any_of = each_of(required)
    probed = per_provider or looked_up_each(any_of)
    conditions = [has_any_trait(provider_id, sorted(ids), probed)
                  for ids in any_of]
    if len(single) == 1:
        conditions.append(has_any_trait(provider_id, sorted(single),
                                        per_provider))
    elif single:
        conditions.append(has_every_trait(provider_id, sorted(single),
                                          per_provider))
    if forbidden:
        conditions.append(~has_any_trait(provider_id, sorted(forbidden),
                                         per_provider))
    return conditions


def tree_has_any_trait(trait_ids, per_provider=False):
    """Condition: a provider of the tree of :data:`RP` (itself included)
    has one of the traits (:func:`exists`).

    Joined, the roots of the trees with one: the database can start from
    those (MariaDB does not turn a correlated EXISTS under an OR into a
    join), 0.7 ms against 1.8 for the flat member_of + required query's
    2,000 providers, of which a tenth have the trait."""
    member = RP.alias('tree_member')
    holders = [_RP_TRAIT.c.resource_provider_id == member.c.id,
               _RP_TRAIT.c.trait_id.in_(trait_ids)]
    if per_provider:
        return exists(member.c.root_provider_id == ROOT_ID, *holders,
                      per_provider=True)
    return ROOT_ID.in_(sa.select(member.c.root_provider_id).where(*holders))


def sharing():
    """Ids of the providers that share their inventory with the trees of
    their aggregates (trait MISC_SHARES_VIA_AGGREGATE)."""
    return (sa.select(_RP_TRAIT.c.resource_provider_id)
            .join(trait.TRAIT, trait.TRAIT.c.id == _RP_TRAIT.c.trait_id)
            .where(trait.TRAIT.c.name == os_traits.MISC_SHARES_VIA_AGGREGATE))


def in_tree(provider_uuid):
    """Condition: the provider of :data:`RP` is in the tree of provider
    ``provider_uuid`` (none if there is no such provider)."""
    tree = RP.alias('in_tree')
    return ROOT_ID == (sa.select(tree.c.root_provider_id)
                       .where(tree.c.uuid == provider_uuid).scalar_subquery())


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


def _built(condition):
    """``condition`` (a function of hashable arguments) built once for
    each of the last :data:`MOST_BUILT` different arguments.

    A capacity condition is a dozen SQL elements that SQLAlchemy builds
    in Python each time (a tenth of the CPU of a candidates request of
    three classes); built elements are immutable, and the amounts that
    schedulers ask for are few (flavors).
    """
    return functools.lru_cache(MOST_BUILT)(condition)


@_built
def with_capacity(amounts):
    """Ids of the providers that can serve now each amount of
    ``amounts``, pairs ``(class id, amount)``.

    One pass over the inventories of those classes, grouped by provider,
    and one over their allocations, summed per inventory: a subquery per
    class, with the sum of allocations looked up for each inventory,
    cost MariaDB two and a half times the CPU (15 ms against 6 for 2,000
    providers of two classes), PostgreSQL one and a half (12 against 8).
    """
    class_ids = sorted(class_id for class_id, _ in amounts)
    used = (sa.select(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id,
                      sa.func.sum(_ALLOC.c.used).label('used'))
            .where(_ALLOC.c.resource_class_id.in_(class_ids))
            .group_by(_ALLOC.c.resource_provider_id,
                      _ALLOC.c.resource_class_id)
            .subquery('used'))
    now_used = sa.func.coalesce(used.c.used, 0)
    fitting = [sa.and_(_INV.c.resource_class_id == class_id,
                       *capacity.fits_sql(_INV.c, now_used,
                                          sa.literal(amount, sa.Integer)))
               for class_id, amount in amounts]
    return (sa.select(_INV.c.resource_provider_id)
            .select_from(_INV.outerjoin(
                used, capacity.of_inventory_sql(used.c, _INV.c)))
            .where(_INV.c.resource_class_id.in_(class_ids),
                   sa.or_(*fitting))
            .group_by(_INV.c.resource_provider_id)
            .having(sa.func.count() == len(amounts)))


@_built
def could_ever_fit(class_id, amount):
    """Condition: some inventory could serve ``amount`` of a class were
    nothing allocated from it (an index range of the class, stopping at
    the first that can)."""
    return sa.exists(sa.select(1).where(*_fits(class_id, amount, now=False)))


@_built
def could_ever_fit_named(class_name, amount):
    """:func:`could_ever_fit` of the class named ``class_name``, its id
    read by the same statement (none such: false), for a statement
    that reads the ids of names with what they name."""
    return sa.exists(sa.select(1).where(*_fits(
        sa.select(_RC.c.id).where(_RC.c.name == class_name)
        .scalar_subquery(), amount, now=False)))


def anyone_in(aggregate_ids):
    """Condition: some provider is in one of the aggregates (ids, or a
    query of them)."""
    return sa.exists().where(_RP_AGG.c.aggregate_id.in_(aggregate_ids))


def anyone_has(trait_ids):
    """Condition: some provider has one of the traits (ids, or a query
    of them)."""
    return sa.exists().where(_RP_TRAIT.c.trait_id.in_(trait_ids))


@_built
def has_capacity(provider_id, class_id, amount, per_provider=False):
    """Condition (or flag): provider ``provider_id`` can serve ``amount``
    of a class now (:func:`exists`); a probe, where
    :func:`with_capacity` is a set."""
    return exists(_INV.c.resource_provider_id == provider_id,
                  *_fits(class_id, amount), per_provider=per_provider)


@_built
def could_serve(class_id, amount):
    """Ids (a query) of the providers whose inventory of a class could
    serve ``amount`` were nothing allocated: a set the database may
    read from the class's index, where a probe per provider costs what
    a window holds; for a class few providers have (nova's PCI
    devices: 2,000 inventories against the 9,000 providers of a window
    at 10,000 computes, 5,100 index reads against 13,400)."""
    return sa.select(_INV.c.resource_provider_id).where(
        *_fits(class_id, amount, now=False))
