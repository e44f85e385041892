"""Folded strings: a provider's inventories (with usage) and trait ids,
joined into one string each by the database, and rows of providers
joined into strings of many rows; read back here.

The database driver's cost is per row and per column: folded, a
provider is one row of a few columns, not one per inventory and trait,
and many providers are one row (PyMySQL decodes 1,000 rows of four
columns in 2.7 ms of CPU, their folded string in 0.5 ms).
"""

import typing

import sqlalchemy as sa
from sqlalchemy.ext import compiler
from sqlalchemy.sql import functions

from placement.db import models
from placement.objects import candidate_tree
from placement.objects import capacity
from placement.objects import tagged_union

RP = models.ResourceProvider.__table__
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__
_TRAIT = models.Trait.__table__


#: Rows of providers in one string of :func:`folded_rows`: the rows
#: whose key (a provider id) divided by this is the same. A string's
#: length is then bounded by this many providers' own, far below the
#: 16 MB of MySQL's ``group_concat_max_len`` (:mod:`placement.db.api`).
ROWS_PER_STRING = 64
#: What separates the fields of a folded row, and the rows: neither is
#: in a number, a uuid or a folded inventory or trait string.
_FIELD, _ROW = ' ', '|'


def as_text(column):
    return sa.cast(column, sa.String)


def aggregated(text, separator):
    """SQL: the aggregate of the values of ``text`` joined by
    ``separator``."""
    return sa.func.aggregate_strings(text, tagged_union.constant(separator))


def _joined(texts, separator):
    """SQL: the text expressions ``texts`` joined by ``separator``."""
    separator = tagged_union.constant(separator)
    joined = texts[0]
    for text in texts[1:]:
        joined = joined + separator + text
    return joined


def folded_rows(query, key):
    """``query``'s rows folded into strings of up to
    :data:`ROWS_PER_STRING` rows, those whose column ``key`` (an integer
    id) divided by it is the same; a NULL is an empty field, a flag
    (a boolean column) ``1`` or ``0``. :func:`unfolded_rows` reads
    them back."""
    rows = query.subquery()
    return (sa.select(aggregated(folded_row(rows.c), _ROW))
            .group_by(rows.c[key] // ROWS_PER_STRING))


def row_strings(query):
    """``query``'s rows, each as one string of :func:`folded_row`
    (:func:`unfolded_rows` reads them back as it reads
    :func:`folded_rows`): as many rows as ``query``'s, not folded
    together, so without the grouping of :func:`folded_rows`."""
    return sa.select(folded_row(query.subquery().c))


def folded_row(columns):
    """SQL: the text of one row of ``columns`` as :func:`folded_rows`
    joins them (:func:`unfolded_rows` reads it back)."""
    constant = tagged_union.constant
    return _joined([sa.case((column, constant('1')), else_=constant('0'))
                    if isinstance(column.type, sa.Boolean)
                    else sa.func.coalesce(as_text(column), constant(''))
                    for column in columns], _FIELD)


def unfolded_rows(strings):
    """The rows of the strings of :func:`folded_rows`, each a list of
    its fields as text."""
    for string in strings:
        for row in string.split(_ROW):
            yield row.split(_FIELD)


def folded_inventories():
    """The provider's inventories as ``class:total:reserved:ratio:
    max_unit:min_unit:step_size`` joined by ``;`` (None without any);
    their usage is read apart (:func:`usage`)."""
    text = _joined([as_text(field) for field in (
        _INV.c.resource_class_id, _INV.c.total, _INV.c.reserved,
        _INV.c.allocation_ratio, _INV.c.max_unit, _INV.c.min_unit,
        _INV.c.step_size)], ':')
    return (sa.select(aggregated(text, ';'))
            .where(_INV.c.resource_provider_id == RP.c.id)
            .scalar_subquery())


def folded_usage():
    """SQL: what the allocations of each inventory of the provider of
    :data:`RP` use, as ``class id:used`` joined by ``,`` (None without
    any: an inventory without allocations has a NULL sum, its text
    NULL, which the aggregate leaves out); :func:`decode_usage` reads
    it.

    A sum per inventory, in the provider's row, for the few providers
    read alone (the sharing ones): trees are loaded with :data:`USAGE`,
    grouped apart, which for those few read their traits once more
    (PostgreSQL scanned every provider's at 2,000 providers)."""
    used = (sa.select(sa.func.sum(_ALLOC.c.used))
            .where(capacity.of_inventory_sql(_ALLOC.c, _INV.c))
            .correlate(_INV).scalar_subquery())
    return (sa.select(aggregated(
                as_text(_INV.c.resource_class_id) + tagged_union.constant(':')
                + as_text(used), ','))
            .where(_INV.c.resource_provider_id == RP.c.id)
            .correlate(RP).scalar_subquery())


def decode_usage(text):
    """``((class id, used), ...)``, sorted, of a :func:`folded_usage`
    text (as a value of :func:`usage`)."""
    if not text:
        return ()
    return tuple(sorted(tuple(map(int, pair.split(':')))
                        for pair in text.split(',')))


class TreeRoots(typing.NamedTuple):
    """Which trees a statement reads: those whose root id is between
    ``low`` and ``high`` or in ``others``.

    A batch of roots that is dense in its span of ids (as the roots of
    flat providers are) is a range: a list of 1,000 ids cost the
    service 5 ms of CPU to expand and escape, and the database to
    parse; the trees of the range that were not asked for are dropped
    (:meth:`of`). Otherwise (nested trees, sparse matches) the roots are
    a list.
    """

    low: int
    high: int
    others: list
    #: The roots asked for (None: every tree read is).
    asked: frozenset | None

    @property
    def ranged(self):
        """Whether the roots are a range (and a list)."""
        return self.low <= self.high

    @property
    def unasked(self):
        """Whether trees not asked for may be read too (and dropped)."""
        return self.ranged and self.asked is not None

    @classmethod
    def of(cls, dense, others=()):
        """The :class:`TreeRoots` of the roots ``dense`` (those that may
        be a range) and ``others``; a range spans at most
        :data:`MOST_SPAN_PER_ROOT` ids a root of ``dense``."""
        asked = frozenset([*dense, *others])
        if dense:
            low, high = min(dense), max(dense)
            if high - low < MOST_SPAN_PER_ROOT * len(dense):
                return cls(low, high, sorted(
                    {root for root in others if not low <= root <= high}),
                    asked)
        return cls(1, 0, sorted(asked), asked)

    @classmethod
    def of_window(cls, low, high, others):
        """The :class:`TreeRoots` of every tree whose root id is from
        ``low`` to ``high`` (a window of roots), and of ``others``."""
        return cls(low, high, sorted(others), None)

    def params(self):
        return {'low': self.low, 'high': self.high, 'others': self.others}


#: A batch of roots is read as a range (:class:`TreeRoots`) while it
#: holds at least one root in this many ids: at most this many times
#: the trees asked for are read (a flat cloud's roots are every id).
MOST_SPAN_PER_ROOT = 2


def of_trees(root_id):
    """SQL: ``root_id`` (a column) is that of a tree of a
    :class:`TreeRoots` (its :meth:`TreeRoots.params`)."""
    return sa.or_(root_id.between(sa.bindparam('low'), sa.bindparam('high')),
                  root_id.in_(sa.bindparam('others', expanding=True)))


def usage(strings):
    """``{provider id: ((class id, used), ...)}`` from the folded
    strings of :data:`USAGE`: the providers of the trees of a
    :class:`TreeRoots` (other trees of its range may be there too) that
    have allocations, the pairs sorted.

    One grouped statement over the trees' allocations: a sum correlated
    to each inventory of the tree load cost 11 of its 18 ms for 1,000
    providers on MariaDB.
    """
    found = {}
    for provider_id, class_id, used in unfolded_rows(strings):
        found.setdefault(int(provider_id), []).append(
            (int(class_id), int(used)))
    return {provider_id: tuple(sorted(pairs))
            for provider_id, pairs in found.items()}


#: The rows of :func:`usage`, folded; built once (its roots are
#: parameters).
USAGE = folded_rows(
    sa.select(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id,
              sa.func.sum(_ALLOC.c.used))
    .join(RP, RP.c.id == _ALLOC.c.resource_provider_id)
    .where(of_trees(RP.c.root_provider_id))
    .group_by(_ALLOC.c.resource_provider_id, _ALLOC.c.resource_class_id),
    'resource_provider_id')


def strings_by_tag(rows, tags):
    """``{tag: [folded string]}`` of the rows of a
    :func:`tagged_union.union` of folded strings of ``tags``."""
    found = {tag: [] for tag in tags}
    for string, tag in rows:
        found[tag].append(string)
    return found


def folded_traits(trait_ids=None):
    """The provider's trait ids (of ``trait_ids`` only, if given) joined
    by ``,`` (None without any)."""
    conditions = [_RP_TRAIT.c.resource_provider_id == RP.c.id]
    if trait_ids is not None:
        conditions.append(_RP_TRAIT.c.trait_id.in_(trait_ids))
    return (sa.select(aggregated(as_text(_RP_TRAIT.c.trait_id), ','))
        .where(*conditions).correlate(RP).scalar_subquery())


def ids_among(column, ids):
    """SQL aggregate: the distinct values of the integer ``column``, all
    of them among ``ids``, joined by ``,`` (None without any), as a text
    no longer than ``ids`` joined.

    Its length is what MariaDB keeps it as: a GROUP_CONCAT is as long
    as ``group_concat_max_len`` (16 MB here, :mod:`placement.db.api`),
    so a BLOB, and a derived table or an aggregate's rows holding one
    go to an on-disk (Aria) temporary table, made and dropped at each
    execution, rather than one in memory: 0.2 ms of its CPU each, two
    of them for the member_of + required query's narrowing statement.
    Distinct, the values' text is no longer than the length given.
    """
    return sa.cast(_distinct_ids(as_text(column)),
                   sa.String(len(','.join(map(str, ids)))))


class _distinct_ids(functions.GenericFunction):  # noqa: N801 (SQL)
    """The distinct values of a text, joined by ``,``."""

    type = sa.String()
    inherit_cache = True


@compiler.compiles(_distinct_ids)
def _distinct_ids_default(element, compiler_, **kwargs):
    return (f"string_agg(DISTINCT "
            f"{compiler_.process(element.clauses, **kwargs)}, ',')")


@compiler.compiles(_distinct_ids, 'mysql')
@compiler.compiles(_distinct_ids, 'mariadb')
def _distinct_ids_mysql(element, compiler_, **kwargs):
    return (f"group_concat(DISTINCT "
            f"{compiler_.process(element.clauses, **kwargs)} SEPARATOR ',')")


@compiler.compiles(_distinct_ids, 'sqlite')
def _distinct_ids_sqlite(element, compiler_, **kwargs):
    # SQLite's DISTINCT aggregate takes one argument: ',' is its
    # default separator.
    return (f'group_concat(DISTINCT '
            f'{compiler_.process(element.clauses, **kwargs)})')


def decode_inventories(folded_and_used, names):
    """``{class: candidate_tree.Inventory}`` of a folded inventory
    string (:func:`folded_inventories`) and its provider's usage (a
    value of :func:`usage`)."""
    folded, used_by_class = folded_and_used
    if not folded:
        return {}
    used_by_class = dict(used_by_class)
    return {name: candidate_tree.Inventory(
                limit, used, limit - used, max_unit, min_unit, step_size)
            for class_id, name, limit, max_unit, min_unit, step_size
            in names.shared(folded, _parsed_inventories)
            for used in [used_by_class.get(class_id, 0)]}


def _parsed_inventories(folded, names):
    """``((class id, class, capacity, max_unit, min_unit, step_size),
    ...)`` of a folded inventory string, parsed once per request for
    the providers of one model, whatever their usage (a busy cloud's
    usage differs from provider to provider). An inventory of a class
    that no longer exists (the audit's
    ``inventories_without_provider_or_class``) offers nothing."""
    classes = names.classes
    parsed = []
    for inventory in folded.split(';'):
        (class_id, total, reserved, ratio, max_unit, min_unit,
         step_size) = inventory.split(':')
        class_id = int(class_id)
        if class_id not in classes:
            continue
        parsed.append((class_id, classes[class_id], capacity.capacity(
            int(total), int(reserved), float(ratio)), int(max_unit),
            int(min_unit), int(step_size)))
    return tuple(parsed)


def folded_named_traits():
    """The provider's traits as ``id:name`` joined by ``,`` (None
    without any): a trait name holds none of ``:,| `` (the API's
    pattern, ``^[A-Z0-9_]+$``), and read with the trees the names need
    no statement of their own."""
    name = (sa.select(_TRAIT.c.name)
            .where(_TRAIT.c.id == _RP_TRAIT.c.trait_id)
            .correlate(_RP_TRAIT).scalar_subquery())
    return (sa.select(aggregated(
        as_text(_RP_TRAIT.c.trait_id) + tagged_union.constant(':') + name,
        ','))
        .where(_RP_TRAIT.c.resource_provider_id == RP.c.id)
        .correlate(RP).scalar_subquery())


def decode_traits(folded, _names):
    """The trait names of a folded string of :func:`folded_named_traits`,
    in the order of their ids."""
    if not folded:
        return ()
    pairs = sorted((int(trait_id), name) for trait_id, _, name in (
        pair.partition(':') for pair in folded.split(',')))
    return tuple(name for _, name in pairs)
