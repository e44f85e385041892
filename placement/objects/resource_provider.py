"""Resource providers: lookup, create, update, delete, generation CAS.

Every write that changes what a provider has (inventory, allocations,
traits, aggregates from 1.19) calls :func:`increment_generation` in the
same transaction as the change, so a stale generation changes nothing.
As upstream, renaming a provider or changing its parent does not change
its generation: clients that cache generations (neutron, cyborg) would
get spurious conflicts.

Changes to the shape of a tree (a provider created under a parent,
re-parented or deleted) lock the root rows of the trees they touch, in id
order, before reading them (:func:`_lock_trees`): such changes serialise
per tree and each sees the result of the one before, so that two
concurrent moves cannot build a loop, and a child cannot be created under
a provider that is being moved or deleted with a stale root. They run
through :func:`write_tree`, which starts them again when a tree moved
before its lock was granted.

Those transactions read committed data: once the root locks are held,
plain reads of the trees are current, as no one else can change them.
Locking reads of a whole tree, under MySQL's REPEATABLE READ, would also
lock the rows and gaps their scan passes, those of other trees too, and
deadlock with the writers of those trees.
"""

import collections

import orjson
import sqlalchemy as sa
import sqlalchemy.ext.compiler

from placement import exception
from placement import uuid_form
from placement.db import api as db_api
from placement.db import models
from placement.objects import name_table

RP = models.ResourceProvider.__table__
_PARENT = RP.alias('parent_provider')
_ROOT = RP.alias('root_provider')
_INV = models.Inventory.__table__
_ALLOC = models.Allocation.__table__
_RP_AGG = models.ResourceProviderAggregate.__table__
_RP_TRAIT = models.ResourceProviderTrait.__table__

# How often a tree change is run again when trees move under it.
_TREE_MOVED_RETRIES = 10


def _select_providers():
    """Providers with the uuids of their parent and root."""
    return sa.select(
        RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
        RP.c.parent_provider_id, RP.c.root_provider_id,
        RP.c.created_at, RP.c.updated_at,
        _PARENT.c.uuid.label('parent_provider_uuid'),
        sa.func.coalesce(_ROOT.c.uuid, RP.c.uuid).label(
            'root_provider_uuid'),
    ).select_from(
        RP.outerjoin(_PARENT, _PARENT.c.id == RP.c.parent_provider_id)
        .outerjoin(_ROOT, _ROOT.c.id == RP.c.root_provider_id))


#: The statements of every request about one provider, built once:
#: building a SQLAlchemy statement costs several times the CPU of
#: running it (the lookup by uuid: 0.6 against 0.08 ms).
_BY_UUID = _select_providers().where(RP.c.uuid == sa.bindparam('uuid'))
_GENERATION = sa.select(RP.c.generation).where(
    RP.c.id == sa.bindparam('provider_id'))
_GENERATION_SWAP = sa.update(RP).where(
    RP.c.id == sa.bindparam('provider_id'),
    RP.c.generation == sa.bindparam('seen'),
).values(generation=RP.c.generation + 1)
#: Another provider (not ``provider_id``, which may be None) with the
#: name, or the uuid (which may be None).
_SAME_NAME_OR_UUID = sa.select(RP.c.name, RP.c.uuid).where(
    sa.or_(RP.c.name == sa.bindparam('name'),
           RP.c.uuid == sa.bindparam('uuid')),
    RP.c.id != sa.func.coalesce(
        sa.bindparam('provider_id', type_=sa.Integer), 0))
_INSERT = sa.insert(RP)
_ITS_OWN_ROOT = sa.update(RP).where(
    RP.c.id == sa.bindparam('provider_id')).values(
    root_provider_id=sa.bindparam('provider_id'))


#: A provider row built from what a write has just stored, with the
#: columns of :func:`get_by_uuid`'s rows: no need to read it back.
ProviderRow = collections.namedtuple('ProviderRow', (
    'id', 'uuid', 'name', 'generation', 'parent_provider_id',
    'root_provider_id', 'created_at', 'updated_at', 'parent_provider_uuid',
    'root_provider_uuid'))


def not_found(uuid):
    """NotFound of provider ``uuid``, in upstream's words."""
    return exception.NotFound(f'No resource provider with uuid {uuid} found')


def canonical_uuid(uuid):
    """The canonical form of provider uuid ``uuid``; NotFound when it is
    not a uuid."""
    canonical = uuid_form.canonical(uuid)
    if canonical is None:
        raise not_found(uuid)
    return canonical


@db_api.read_committed
def get_by_uuid(conn, uuid):
    """The provider row; else NotFound.

    The row has the provider's columns (id, uuid, name, generation,
    parent_provider_id, root_provider_id, created_at, updated_at) and
    ``parent_provider_uuid`` and ``root_provider_uuid``.
    """
    row = conn.execute(_BY_UUID, {'uuid': canonical_uuid(uuid)}).first()
    if row is None:
        raise not_found(uuid)
    return row


def joined_rows(conn, statement, uuid):
    """The rows of ``statement`` for provider ``uuid``; else NotFound.

    ``statement`` selects the provider of the bound ``uuid`` outer-joined
    with rows of its own (inventories, traits...): one round trip where
    :func:`get_by_uuid` and a read of the rows were two, and at least
    one row while the provider exists.
    """
    rows = conn.execute(statement, {'uuid': canonical_uuid(uuid)}).all()
    if not rows:
        raise not_found(uuid)
    return rows


def select_listed(*conditions):
    """Only what a listing shows of the providers, in id order, after
    the id (the key of its pages, :func:`db_api.pages`): uuid, name,
    generation, ``parent_provider_uuid``, ``root_provider_uuid`` and
    ``changed``, the text of the last change
    (:func:`name_table.changed_text`).

    Every column costs the driver work per row: thousands of rows are
    listed at once. A root (most providers) is its own root, without a
    look-up: the join to the root row was half of MariaDB's work for a
    listing of 2,000 providers.
    """
    root_uuid = (sa.select(_ROOT.c.uuid)
                 .where(_ROOT.c.id == RP.c.root_provider_id)
                 .scalar_subquery())
    return sa.select(
        RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
        _PARENT.c.uuid.label('parent_provider_uuid'),
        sa.func.coalesce(
            sa.case((RP.c.root_provider_id != RP.c.id, root_uuid)),
            RP.c.uuid).label('root_provider_uuid'),
        name_table.changed_text(RP).label('changed'),
    ).select_from(
        RP.outerjoin(_PARENT, _PARENT.c.id == RP.c.parent_provider_id)
    ).where(*conditions).order_by(RP.c.id)


class _JsonRows(sa.sql.functions.FunctionElement):
    """SQL aggregate: the JSON text of an array of the group's rows, each
    an array of the columns (all but the first), in the order of the
    first (an id). MariaDB only (:func:`folded_listing`)."""

    type = sa.Text()
    inherit_cache = True
    name = 'json_rows'


@sa.ext.compiler.compiles(_JsonRows, 'mysql')
@sa.ext.compiler.compiles(_JsonRows, 'mariadb')
def _json_rows_mysql(element, compiler, **kw):
    """``GROUP_CONCAT`` of the rows' JSON, each value ``JSON_QUOTE``d
    (an integer as it is): MariaDB's ``JSON_ARRAYAGG(JSON_ARRAY(...))``
    cost it 9.5 ms of CPU for 2,000 providers, this 7.6 (the rows
    unfolded: 6.2)."""
    key, *columns = element.clauses
    values = ", ',', ".join(
        f"COALESCE({compiler.process(column, **kw)}, 'null')"
        if isinstance(column.type, sa.Integer)
        else f"COALESCE(JSON_QUOTE({compiler.process(column, **kw)}), 'null')"
        for column in columns)
    return (f"CONCAT('[', GROUP_CONCAT(CONCAT('[', {values}, ']') "
            f"ORDER BY {compiler.process(key, **kw)} SEPARATOR ','), ']')")


#: Listed providers in one JSON text of :func:`folded_listing`: the
#: providers whose id divided by this is the same.
LISTED_PER_TEXT = 64


def folded_listing(listing):
    """The rows of ``listing`` (a :func:`select_listed`) folded into
    JSON texts of up to :data:`LISTED_PER_TEXT` rows (without the id),
    in id order, each after the greatest id of its rows (the key of its
    pages), on MariaDB (:func:`folds_listings`; :func:`unfolded_listing`
    reads them).

    PyMySQL decodes a row in Python, at a cost per row and per column:
    2,000 listed providers took 8-10 ms of CPU, their 32 JSON texts
    0.8 ms (orjson parses them in 0.3). A listing of 2,000 cost the
    service 9 ms of CPU rather than 16, MariaDB about 1.5 ms more
    (``tools/results/2026-11-26b-limited.rst``). Not on PostgreSQL,
    whose driver decodes in C: ``json_agg`` cost the server 3.7 ms more
    CPU than it saved the service; nor SQLite, which orders no
    aggregate (before 3.44); nor MySQL, where it is not tested.
    """
    _id, *columns = [getattr(column, 'element', column)
                     for column in listing.selected_columns]
    group = RP.c.id // LISTED_PER_TEXT
    return (listing.with_only_columns(sa.func.max(RP.c.id),
                                      _JsonRows(RP.c.id, *columns))
            .group_by(group).order_by(None).order_by(group))


def folds_listings(dialect):
    """Whether listings are :func:`folded_listing` on ``dialect``."""
    return getattr(dialect, 'is_mariadb', False)


def unfolded_listing(texts):
    """The rows (lists) of the JSON texts of :func:`folded_listing`."""
    loads = orjson.loads
    for (text,) in texts:
        yield from loads(text)


def increment_generation(conn, provider_id, expected_generation):
    """Compare-and-swap the generation; the new generation.

    Raises ConcurrentUpdate when the provider's generation is no longer
    ``expected_generation`` (another writer got there first).
    """
    increment_generations(conn, {provider_id: expected_generation})
    return expected_generation + 1


def advance_generation(conn, provider, expected_generation):
    """:func:`increment_generation` of ``provider`` (a namedtuple with
    its id, generation and ``updated_at``); the provider as it is after
    (new generation and ``updated_at``)."""
    changed_at = increment_generations(
        conn, {provider.id: expected_generation})
    return provider._replace(generation=expected_generation + 1,
                             updated_at=changed_at)


def increment_generations(conn, expected):
    """Compare-and-swap the generations ``{provider id: generation}``.

    In one statement, which locks the rows in index order; raises
    ConcurrentUpdate unless every provider was still at its generation.
    Returns the rows' new ``updated_at``.
    """
    # The successor is the database's, of a row that matched: sent as a
    # value, that of 2147483647 is out of PostgreSQL's integer range even
    # when no row matches.
    if len(expected) == 1:
        [(provider_id, generation)] = expected.items()
        result = conn.execute(_GENERATION_SWAP, {
            'provider_id': provider_id, 'seen': generation})
    else:
        result = conn.execute(
            sa.update(RP).where(
                RP.c.id.in_(sorted(expected)),
                RP.c.generation == sa.case(expected, value=RP.c.id))
            .values(generation=RP.c.generation + 1))
    if result.rowcount != len(expected):
        if len(expected) == 1:
            raise generation_conflict(conn.scalar(
                _GENERATION, {'provider_id': provider_id}), generation)
        raise generation_conflict()
    return result.last_updated_params()['updated_at']


def generation_conflict(actual=None, given=None):
    """ConcurrentUpdate in upstream's words (clients match them), with
    the generations where they are known."""
    seen = '' if actual is None else f' actual: {actual}, given: {given}.'
    return exception.ConcurrentUpdate(
        "resource provider generation conflict: Resource provider's "
        "generation already changed. Please update the generation and "
        f"try again.{seen}")


def _root_id(row):
    # Rows from before nesting may lack a root: they are their own.
    return row.root_provider_id or row.id


class _TreeMoved(db_api.RetryTransaction):
    """A tree lock was taken on a root that is no longer the root."""

    def __init__(self):
        super().__init__(
            'Resource provider trees were changed concurrently; retry.')


def _lock_trees(conn, uuids):
    """Lock the trees of the providers ``uuids``; ``{uuid: row}``.

    The rows are read again, locked, after the roots are; unknown uuids
    are absent. Raises _TreeMoved when a provider changed trees before we
    got the lock: the caller must roll back (releasing it) and start
    again, as locking the new root now could deadlock with a holder of
    that root. Rows are locked by primary key, in id order: a locking
    read by uuid may scan (and lock) the rows of other trees on MySQL.
    """
    rows = conn.execute(sa.select(RP).where(RP.c.uuid.in_(uuids))).all()
    roots = sorted({_root_id(row) for row in rows})
    conn.execute(sa.select(RP.c.id).where(RP.c.id.in_(roots))
                 .order_by(RP.c.id).with_for_update()).all()
    fresh = conn.execute(
        sa.select(RP).where(RP.c.id.in_([row.id for row in rows]))
        .order_by(RP.c.id).with_for_update()).all()
    if not {_root_id(row) for row in fresh} <= set(roots):
        raise _TreeMoved()
    return {row.uuid: row for row in fresh}


def write_tree(db, operation, *args, **kwargs):
    """``operation(conn, *args, **kwargs)`` in a writer transaction.

    For the operations that change the shape of trees: the transaction
    is run again when a tree moved under it; ConcurrentUpdate when that
    keeps happening.
    """
    return db.write(operation, *args, read_committed=True,
                    conflict_retries=_TREE_MOVED_RETRIES, **kwargs)


def _subtree_ids(conn, provider):
    """Ids of ``provider`` and all its descendants.

    One plain read of the provider's whole tree, whose root the caller
    holds locked, walked in Python.
    """
    children = {}
    for row in conn.execute(
            sa.select(RP.c.id, RP.c.parent_provider_id)
            .where(RP.c.root_provider_id == _root_id(provider))):
        children.setdefault(row.parent_provider_id, []).append(row.id)
    subtree, pending = set(), [provider.id]
    while pending:
        current = pending.pop()
        subtree.add(current)
        pending.extend(children.get(current, ()))
    return subtree


def _check_unique(conn, name, uuid=None, provider_id=None):
    """DuplicateName when another provider has ``name`` (or ``uuid``)."""
    duplicates = []
    for row in conn.execute(_SAME_NAME_OR_UUID, {
            'name': name, 'uuid': uuid, 'provider_id': provider_id}):
        if row.uuid == uuid:
            duplicates.append(f'uuid: {uuid}')
        else:
            duplicates.append(f'name: {name}')
    if duplicates:
        raise _duplicate(sorted(set(duplicates)))


def _duplicate(duplicates):
    return exception.DuplicateName(
        f'Conflicting resource provider {", ".join(duplicates)} already '
        f'exists.')


def _write(conn, statement, duplicates, values=None):
    """Run ``statement`` (with ``values``); a unique violation (a race)
    is DuplicateName.

    No savepoint: the error ends the whole transaction.
    """
    try:
        return conn.execute(statement, values)
    except sa.exc.IntegrityError as exc:
        raise _duplicate(duplicates) from exc


def _parent_row(parent_uuid, rows):
    parent = rows.get(parent_uuid)
    if parent is None:
        raise exception.BadRequest(
            f'parent provider UUID does not exist: {parent_uuid}.')
    return parent


class _Taken(Exception):
    """A root's name or uuid is taken (a unique violation)."""


def create(db, name, uuid, parent_uuid=None):
    """Create a provider (under ``parent_uuid``); its row.

    A root (the bulk of what loaders create) is inserted in a plain
    writer transaction without looking for its name and uuid first: no
    tree is locked, and two round trips are saved on MySQL (the
    isolation level and the look). Only when that insert violates a
    unique constraint is it run again the way a child is, looking first,
    to name what is taken (or to succeed if it has gone since).
    """
    if parent_uuid is None:
        try:
            return db.write(_insert, name, uuid, None, _Taken())
        except _Taken:
            pass
    return write_tree(db, _create, name, uuid, parent_uuid)


def _create(conn, name, uuid, parent_uuid):
    parent = None
    if parent_uuid is not None:
        parent = _parent_row(parent_uuid, _lock_trees(conn, [parent_uuid]))
    _check_unique(conn, name, uuid)
    return _insert(conn, name, uuid, parent,
                   _duplicate([f'name: {name}', f'uuid: {uuid}']))


def _insert(conn, name, uuid, parent, taken):
    """Insert the provider, under the ``parent`` row if not None; its
    row. ``taken`` is raised on a unique violation (a race, unless the
    caller did not look); no savepoint: it ends the transaction."""
    parent_id = root_id = None
    if parent is not None:
        parent_id, root_id = parent.id, _root_id(parent)
    try:
        result = conn.execute(_INSERT, {
            'uuid': uuid, 'name': name, 'generation': 0,
            'parent_provider_id': parent_id, 'root_provider_id': root_id})
    except sa.exc.IntegrityError as exc:
        raise taken from exc
    if root_id is not None:
        return get_by_uuid(conn, uuid)
    # A root: its own root, and its row is what we write.
    new_id = result.inserted_primary_key[0]
    rooted = conn.execute(_ITS_OWN_ROOT, {'provider_id': new_id})
    return ProviderRow(
        id=new_id, uuid=uuid, name=name, generation=0,
        parent_provider_id=None, root_provider_id=new_id,
        created_at=result.last_inserted_params()['created_at'],
        updated_at=rooted.last_updated_params()['updated_at'],
        parent_provider_uuid=None, root_provider_uuid=uuid)


# The parent argument of :func:`update` when the parent stays as it is.
KEEP_PARENT = object()


def update(conn, uuid, name, parent_uuid=KEEP_PARENT,
           allow_reparenting=False):
    """Rename a provider and, unless KEEP_PARENT, set its parent.

    ``allow_reparenting`` (1.37) permits changing or removing an existing
    parent; before, a parent can only be set on a root provider. A parent
    that is the provider itself or one of its descendants is refused.
    Returns the updated row.
    """
    if parent_uuid is KEEP_PARENT:
        provider = get_by_uuid(conn, uuid)
    else:
        provider = _move(conn, uuid, parent_uuid, allow_reparenting)
    if name != provider.name:
        _check_unique(conn, name, provider_id=provider.id)
        _write(conn,
               sa.update(RP).where(RP.c.id == provider.id)
               .values(name=name),
               [f'name: {name}'])
    return get_by_uuid(conn, uuid)


def _move(conn, uuid, parent_uuid, allow_reparenting):
    """Put provider ``uuid`` under ``parent_uuid`` (None: make it a root).

    Returns the provider's row as it was before the move.
    """
    uuids = [uuid_form.canonical(uuid)]
    if parent_uuid is not None:
        uuids.append(parent_uuid)
    rows = _lock_trees(conn, uuids)
    provider = rows.get(uuids[0])
    if provider is None:
        raise not_found(uuid)
    parent = None
    if parent_uuid is not None:
        parent = _parent_row(parent_uuid, rows)
    new_parent_id = parent.id if parent is not None else None
    if new_parent_id == provider.parent_provider_id:
        return provider
    if provider.parent_provider_id is not None and not allow_reparenting:
        action = 're-parenting' if parent is not None else 'un-parenting'
        raise exception.BadRequest(
            f'{action} a provider is not currently allowed.')
    subtree = _subtree_ids(conn, provider)
    if parent is None:
        new_root = provider.id
    elif parent.id == provider.id:
        raise exception.BadRequest(
            'parent provider UUID cannot be same as UUID. Please set '
            'parent provider UUID to None if there is no parent.')
    elif parent.id in subtree:
        raise exception.BadRequest(
            'creating loop in the provider tree is not allowed.')
    else:
        new_root = _root_id(parent)
    conn.execute(sa.update(RP).where(RP.c.id == provider.id)
                 .values(parent_provider_id=new_parent_id))
    if new_root != _root_id(provider):
        conn.execute(sa.update(RP).where(RP.c.id.in_(subtree))
                     .values(root_provider_id=new_root))
    return provider


def _referred(conn, column, provider_id):
    """Whether a row refers to the provider through ``column``.

    A plain read sees all such rows: their writers hold a lock that we
    hold now (a child's creator the root's, an allocation writer the
    provider's) until they commit, and we read committed data.
    """
    return conn.scalar(sa.select(sa.exists().where(column == provider_id)))


def delete(conn, uuid):
    """Delete a provider with its inventories, traits and aggregates.

    Refused while it has child providers or allocations.
    """
    canonical = uuid_form.canonical(uuid)
    provider = _lock_trees(conn, [canonical]).get(canonical)
    if provider is None:
        raise exception.NotFound(
            f'No resource provider with uuid {uuid} found for delete')
    if _referred(conn, RP.c.parent_provider_id, provider.id):
        raise exception.CannotDeleteParentProvider(
            f'Unable to delete parent resource provider {uuid}: It has '
            f'child resource providers.')
    in_use = exception.ProviderInUse(
        f'Unable to delete resource provider {uuid}: Resource provider '
        f'has allocations.')
    if _referred(conn, _ALLOC.c.resource_provider_id, provider.id):
        raise in_use
    for table in (_INV, _RP_AGG, _RP_TRAIT):
        conn.execute(sa.delete(table).where(
            table.c.resource_provider_id == provider.id))
    # The provider refers to itself as its root.
    conn.execute(sa.update(RP).where(RP.c.id == provider.id)
                 .values(root_provider_id=None))
    try:
        with conn.begin_nested():
            conn.execute(sa.delete(RP).where(RP.c.id == provider.id))
    except sa.exc.IntegrityError as exc:
        # A child written concurrently; the parent's foreign key caught it
        # (upstream's schema has none from allocations to providers).
        raise in_use from exc
