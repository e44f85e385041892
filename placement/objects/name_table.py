"""Tables of unique names: resource classes and traits.

Both hold standard names (seeded from os-resource-classes and os-traits)
and custom ``CUSTOM_*`` names created through the API, and are written the
same way. Creation relies on the unique constraint on ``name``, inside a
savepoint, so that concurrent creators of one name (in other workers) get
DuplicateName rather than a database error.

Names are compared again in Python after the query: MySQL's default
collations and SQLite's LIKE ignore case, the API does not.

:func:`last_modified` and :func:`newest` serve any row with the
``created_at``/``updated_at`` columns, :class:`Newest` a long listing
of rows with their :func:`changed_text`.
"""

import datetime

import sqlalchemy as sa

from placement import exception
from placement.db import models
from placement.objects import kept

# Tries at an id of its own for a new row, against concurrent creators.
_ID_ATTEMPTS = 20


def storable(name):
    """Whether ``name`` can be sent to every backend (PostgreSQL: no NUL)."""
    return '\x00' not in name


def get(conn, table, name):
    """The row named exactly ``name``, or None."""
    if not storable(name):
        return None
    rows = conn.execute(sa.select(table).where(table.c.name == name))
    return next((row for row in rows if row.name == name), None)


def ids_by_name(conn, table, names):
    """``({name: id}, unknown)`` for ``names``; ``unknown`` is sorted."""
    names = set(names)
    if not names:
        return {}, []
    return found_and_unknown(
        names, conn.execute(select_ids(table, names)).all())


def select_ids(table, names):
    """The query of the ``(name, id)`` rows of ``names``."""
    return (sa.select(table.c.name, table.c.id)
            .where(table.c.name.in_(filter(storable, names))))


def ids_named(table, names):
    """The query of the ids of the rows of ``names`` (for a statement
    that reads them with what they name): :func:`select_ids`'s rows
    without their names."""
    return select_ids(table, names).with_only_columns(table.c.id)


def looked_up(conn, statement, kinds):
    """``{kind: [(key, id), ...]}`` from ``statement``, a
    :func:`tagged_union.union` of queries of ``(key, id)`` rows (as
    :func:`select_ids`) tagged ``kinds``, kept built by the callers."""
    found = {kind: [] for kind in kinds}
    if statement is not None:
        for key, row_id, kind in kept.execute(conn, statement):
            found[kind].append((key, row_id))
    return found


def found_and_unknown(names, rows):
    """``({name: id}, unknown)`` from the rows of :func:`select_ids`."""
    found = dict(rows)
    return found, sorted(set(names) - found.keys())


def insert(conn, table, name, kind):
    """Add ``name``; DuplicateName when it exists, even concurrently.

    A table whose id column names a first id (resource classes: upstream
    numbers custom ones so, and its databases never use the sequence)
    gives the row the next id above every existing one and at least that;
    when a concurrent writer took that id first, the next one is tried.
    """
    first_id = table.c.id.info.get(models.FIRST_ID_OF_NEW_ROWS)
    row_id = None
    for attempt in range(1, _ID_ATTEMPTS + 1):
        values = {'name': name}
        if first_id is not None:
            row_id = max(first_id, _highest_id(conn, table) + 1,
                         (row_id or 0) + 1)
            values['id'] = row_id
        try:
            with conn.begin_nested():
                conn.execute(sa.insert(table).values(values))
            return
        except sa.exc.IntegrityError as exc:
            if (first_id is None or attempt == _ID_ATTEMPTS
                    or _locked_name(conn, table, name)):
                raise exception.DuplicateName(
                    f'Conflicting {kind} already exists: {name}') from exc


def _highest_id(conn, table):
    """The highest id committed by anyone.

    Creators first lock the lowest row, so that they wait for each other
    rather than race for one id (which MySQL answers with a deadlock).
    """
    conn.scalar(sa.select(table.c.id).order_by(table.c.id).limit(1)
                .with_for_update())
    return conn.scalar(sa.select(table.c.id).order_by(table.c.id.desc())
                       .limit(1).with_for_update()) or 0


def _locked_name(conn, table, name):
    """Whether ``name`` exists, committed by anyone (a locking read)."""
    return conn.scalar(sa.select(table.c.id).where(table.c.name == name)
                       .with_for_update(read=True)) is not None


def ensure(conn, table, name, kind):
    """``(row, created)``: the existing row, or None when (just) created.

    ``created`` is False when another writer created ``name`` between
    our read and our insert.
    """
    row = get(conn, table, name)
    if row is not None:
        return row, False
    try:
        insert(conn, table, name, kind)
    except exception.DuplicateName:
        return None, False
    return None, True


def rename(conn, table, row_id, new_name, kind):
    """Rename row ``row_id``; DuplicateName when ``new_name`` is taken.

    Returns whether the row was renamed: False when a concurrent request
    deleted it.
    """
    try:
        with conn.begin_nested():
            result = conn.execute(
                sa.update(table).where(table.c.id == row_id)
                .values(name=new_name))
    except sa.exc.IntegrityError as exc:
        raise exception.DuplicateName(
            f'{kind.capitalize()} already exists: {new_name}') from exc
    return result.rowcount == 1


def delete(conn, table, row_id, referrers, in_use_message):
    """Delete row ``row_id`` unless a ``referrers`` column refers to it.

    ``referrers`` are the columns pointing at ``table``; where the schema
    has a foreign key (provider traits to traits; upstream's has none to
    resource classes) the database refuses a use committed before the
    delete. The row is deleted first, then the referrers are read with a
    locking read, which sees every use committed before it (whatever
    snapshot the transaction read before): a writer that holds the row
    (:func:`hold`) while it adds a use is waited for by the delete, and
    its use is then found. Either way the answer is
    Conflict(``in_use_message``), and the transaction is rolled back.
    Returns whether the row was deleted: False when a concurrent request
    deleted it first.
    """
    try:
        with conn.begin_nested():
            result = conn.execute(
                sa.delete(table).where(table.c.id == row_id))
    except sa.exc.IntegrityError as exc:
        raise exception.Conflict(in_use_message) from exc
    for column in referrers:
        if conn.execute(sa.select(column).where(column == row_id).limit(1)
                        .with_for_update(read=True)).first() is not None:
            raise exception.Conflict(in_use_message)
    return result.rowcount == 1


def hold(conn, table, row_ids):
    """Hold the rows ``row_ids`` of ``table`` until the transaction ends
    (a shared lock, which a rename of the row does not wait for on
    PostgreSQL), for a write that adds rows referring to them where the
    schema has no foreign key: :func:`delete` of one of them waits for
    this transaction and then finds its use. Returns the ids of those
    that still exist, as committed by anyone."""
    if not row_ids:
        return set()
    return set(conn.scalars(
        sa.select(table.c.id).where(table.c.id.in_(sorted(row_ids)))
        .order_by(table.c.id).with_for_update(read=True, key_share=True)))


def dated(changed):
    """``changed`` (a naive UTC datetime, or None if unknown) aware."""
    if changed is None:
        return None
    return changed.replace(tzinfo=datetime.UTC)


def _change(row):
    """When ``row`` (with both columns) last changed, updated, else
    created: :func:`changed` read in Python (naive UTC, or None)."""
    return row.updated_at or row.created_at


def last_modified(row):
    """When ``row`` last changed (aware UTC), or None if unknown."""
    return dated(_change(row))


def newest(rows):
    """The latest :func:`last_modified` of ``rows``, or None."""
    return latest(map(_change, rows))


def latest(changes):
    """The latest of ``changes`` (the :func:`changed` of rows, None where
    unknown), aware UTC, or None."""
    return dated(max(filter(None, changes), default=None))


def changed(table):
    """SQL: the last change of a row of ``table``, updated, else created
    (the time :func:`last_modified` reads from both columns).

    One column where two were: PyMySQL decodes each column's
    description anew for every result, as much CPU as a row's values
    for a short read.
    """
    return sa.func.coalesce(table.c.updated_at, table.c.created_at)


def changed_text(table):
    """SQL: :func:`changed` as text, ISO 8601 (what MySQL and SQLite
    write, and PostgreSQL with psycopg2's DateStyle), which sorts as the
    times do.

    For long listings (:class:`Newest`): PyMySQL makes a datetime of a
    DATETIME column in Python, a third of its CPU for a provider row;
    only the latest is made one here.
    """
    return sa.cast(changed(table), sa.String)


class Newest:
    """:func:`newest` of rows that are seen once, as they stream by,
    from their :func:`changed_text`."""

    def __init__(self):
        # The text of the latest change so far.
        self._latest = ''

    @property
    def value(self):
        """The latest change so far (aware UTC), or None."""
        if not self._latest:
            return None
        return datetime.datetime.fromisoformat(self._latest).replace(
            tzinfo=datetime.UTC)

    def note(self, changed):
        """Note the :func:`changed_text` of a row (None: unknown)."""
        if changed is not None and changed > self._latest:
            self._latest = changed
