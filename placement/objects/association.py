"""Replacing the rows of a provider in an association table.

Provider aggregates and provider traits are both sets of ids linked to a
provider; a PUT replaces the whole set, touching only what changes.
"""

import sqlalchemy as sa


def linked_ids(conn, column, provider_id):
    """The set of ids ``column`` links provider ``provider_id`` to."""
    return set(conn.scalars(sa.select(column).where(
        column.table.c.resource_provider_id == provider_id)))


def found_and_linked(conn, column, provider_id, found_query):
    """``(rows of found_query, linked_ids(...))`` in one round trip.

    ``found_query`` selects ``(key, id)`` rows by keys (names, uuids),
    so no key it finds is NULL: the linked ids come as ``(NULL, id)``
    rows of the same statement. None: there is nothing to find.
    """
    if found_query is None:
        return [], linked_ids(conn, column, provider_id)
    linked = sa.select(sa.null(), column).where(
        column.table.c.resource_provider_id == provider_id)
    found, current = [], set()
    for key, linked_id in conn.execute(sa.union_all(found_query, linked)):
        if key is None:
            current.add(linked_id)
        else:
            found.append((key, linked_id))
    return found, current


def replace(conn, column, provider_id, wanted, current):
    """Link provider ``provider_id`` to exactly the ids ``wanted``.

    ``column`` is the table's column of the linked ids; the table has a
    ``resource_provider_id`` column too. ``current`` are the
    :func:`linked_ids` the caller has read in this transaction.
    """
    table = column.table
    mine = table.c.resource_provider_id == provider_id
    wanted = set(wanted)
    if current - wanted:
        conn.execute(sa.delete(table).where(
            mine, column.in_(current - wanted)))
    if wanted - current:
        conn.execute(sa.insert(table), [
            {'resource_provider_id': provider_id, column.key: linked}
            for linked in sorted(wanted - current)])
