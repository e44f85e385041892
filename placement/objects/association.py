"""Replacing the rows of a provider in an association table.

Provider aggregates and provider traits are both sets of ids linked to a
provider; a PUT replaces the whole set, touching only what changes.
"""

import sqlalchemy as sa


def linked_ids(conn, column, provider_id):
    """The set of ids ``column`` links provider ``provider_id`` to."""
    return set(conn.scalars(sa.select(column).where(
        column.table.c.resource_provider_id == provider_id)))


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
