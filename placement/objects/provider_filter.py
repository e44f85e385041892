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
from placement.objects import kept
from placement.objects import name_table
from placement.objects import resource_class
from placement.objects import resource_provider
from placement.objects import tagged_union
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
    return conditions.trait_conditions(*_trait_ids(
        filters, trait.ids_by_name(conn, _trait_names(filters))))


def _trait_ids(filters, ids):
    """``(required, forbidden)`` trait ids of ``filters`` (``ids``:
    ``{name: id}``), as :func:`conditions.trait_conditions` takes them."""
    return (tuple(frozenset(ids[name] for name in group)
                  for group in filters.required_traits),
            frozenset(ids[name] for name in filters.forbidden_traits))


def _named_ids(conn, filters):
    """What the resources, traits and aggregates of ``filters`` ask for,
    by id, read in one statement (:func:`_look_up`, kept built):
    ``(amounts, required traits, forbidden traits, aggregate groups,
    forbidden aggregates)``, the arguments of :func:`_listing`. Unknown
    resource classes, then traits, are BadRequest; aggregate groups are
    None when one holds no aggregate that exists."""
    names = _trait_names(filters)
    uuids = set(filters.forbidden_aggregates).union(*filters.member_of)
    named = (tuple(sorted(filters.resources)), tuple(sorted(names)),
             tuple(sorted(uuids)))
    kinds = [kind for kind, given in zip(_KINDS, named, strict=True)
             if given]
    statement = (_KEPT_LOOK_UPS.get(named, lambda: _look_up(*named),
                                    sum(map(len, named)))
                 if kinds else None)
    found = name_table.looked_up(conn, statement, kinds)
    classes = dict(found.get('class', ()))
    resource_class.require_known(filters.resources, classes)
    amounts = tuple(sorted((classes[name], amount)
                           for name, amount in filters.resources.items()))
    required, forbidden = _trait_ids(filters, trait.known(
        *name_table.found_and_unknown(names, found.get('trait', ()))))
    known = aggregate.canonical_ids(found.get('aggregate', ()))
    return (amounts, required, forbidden,
            conditions.known_groups(filters.member_of, known),
            tuple(conditions.known_ids(filters.forbidden_aggregates, known)))


#: What :func:`_look_up` looks up, in the order of its arguments.
_KINDS = ('class', 'trait', 'aggregate')


def _look_up(classes, traits, uuids):
    """The statement of :func:`_named_ids`: the ``(name, id, kind)``
    rows of resource ``classes``, ``traits`` and aggregate ``uuids``
    (:func:`tagged_union.union`)."""
    queries = {}
    if classes:
        queries['class'] = name_table.select_ids(resource_class.RC, classes)
    if traits:
        queries['trait'] = name_table.select_ids(trait.TRAIT, traits)
    if uuids:
        queries['aggregate'] = aggregate.select_ids(uuids)
    return tagged_union.union(queries)


#: Look-up statements kept built (:func:`_look_up`), the last 128:
#: SQLAlchemy's construction and compilation of the union of IN lists
#: cost more than its execution, and on PostgreSQL and MariaDB it is
#: then prepared.
_KEPT_LOOK_UPS = kept.Kept(128)

#: Listing statements kept built (:func:`_listing`), the last 128.
_KEPT = kept.Kept(128)


def _listing(amounts, required, forbidden, groups, forbidden_aggregates,
             by_name, by_uuid, in_tree, folded):
    """The statements of the pages (:func:`db_api.pages`) of the
    providers with those ids (as :func:`_named_ids` gives them), and,
    if asked, the name, uuid and tree of parameters ``name``, ``uuid``
    and ``in_tree``; ``folded``:
    its rows folded (:func:`resource_provider.folded_listing`), for a
    listing no name, uuid, tree or aggregate bounds: MariaDB spends
    about 2 microseconds more a row folding than sending it, the
    service 3.5 less reading it, but a statement's fixed cost more
    (1,000 providers of one aggregate or a few of a tree cost more
    folded than not).

    Kept built (:data:`_KEPT`, with at most :data:`kept.MOST_IDS`
    ids): SQLAlchemy's construction of a listing
    with a look-up of aggregates and traits took as much CPU as
    running it.
    """
    wanted = []
    if amounts:
        wanted.append(RP.c.id.in_(conditions.with_capacity(amounts)))
    wanted += conditions.trait_conditions(required, forbidden)
    if groups is None:
        wanted.append(sa.false())
    else:
        wanted += conditions.aggregate_conditions(groups,
                                                  forbidden_aggregates)
    if by_name:
        wanted.append(RP.c.name == sa.bindparam('name'))
    if by_uuid:
        wanted.append(RP.c.uuid == sa.bindparam('uuid'))
    if in_tree:
        wanted.append(conditions.in_tree(sa.bindparam('in_tree')))
    listing = resource_provider.select_listed(*wanted)
    if folded:
        listing = resource_provider.folded_listing(listing)
    return db_api.pages(listing, RP.c.id)


def _count(amounts, required, forbidden, groups, forbidden_aggregates):
    """How many ids (of :func:`_named_ids`) a listing names."""
    return (len(amounts) + sum(map(len, required)) + len(forbidden)
            + sum(map(len, groups or ())) + len(forbidden_aggregates))


@db_api.read_committed
def list_providers(conn, filters, read):
    """``read(rows)``, of the provider rows
    (:func:`resource_provider.select_listed`'s columns after the id,
    unpacked by position), by id, as the database sends them
    (:func:`db_api.paged`), read all there.

    Unknown resource classes and traits are BadRequest. Read committed
    (:func:`db_api.read_committed`: on PostgreSQL without BEGIN and
    COMMIT, two of a page's four round trips): the look-up of the names
    and the listing of their ids each read what was committed before
    it, as they did in a transaction at PostgreSQL's READ COMMITTED;
    a page and the rest after it were read so already.
    """
    return read(_listed(conn, filters))


def _listed(conn, filters):
    """The rows of :func:`list_providers`."""
    # Checked first: naming an unknown class or trait is an error even
    # when another filter already excludes everything.
    ids = _named_ids(conn, filters)
    if filters.name is not None and not name_table.storable(filters.name):
        return []
    given = {'name': filters.name, 'uuid': filters.uuid,
             'in_tree': filters.in_tree}
    folded = (resource_provider.folds_listings(conn.dialect)
              and not (filters.member_of or any(
                  value is not None for value in given.values())))
    arguments = (*ids, *(value is not None for value in given.values()),
                 folded)
    listing = _KEPT.get(arguments, lambda: _listing(*arguments),
                        _count(*ids))
    parameters = {name: value for name, value in given.items()
                  if value is not None}
    rows = db_api.paged(conn, listing, parameters, lambda: (
        # A statement kept runs again with the values of its first run.
        conn.execute(listing.first, parameters) if parameters
        else kept.execute(conn, listing.first)))
    if folded:
        rows = resource_provider.unfolded_listing(rows)
    if filters.name is None:
        return rows
    # MySQL compares names ignoring case and trailing spaces; we do not.
    return (row for row in rows if row[1] == filters.name)
