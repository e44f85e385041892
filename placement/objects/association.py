"""Replacing the rows of a provider in an association table.

Provider aggregates and provider traits are both sets of ids linked to a
provider; a PUT replaces the whole set, touching only what changes.
"""

import sqlalchemy as sa


class Association:
    """The statements of one association table, built once (building a
    statement costs more CPU than running it).

    ``column`` is the table's column of the linked ids (the table has a
    ``resource_provider_id`` column too); ``key_column`` the unique column
    (name, uuid) of the linked table that requests name its rows by.
    """

    def __init__(self, column, key_column):
        self.column = column
        table = column.table
        mine = table.c.resource_provider_id == sa.bindparam('provider_id')
        # The keys found, as (key, id), and the linked ids as (NULL, id):
        # no key found is NULL.
        self._found_and_linked = sa.union_all(
            sa.select(key_column, key_column.table.c.id).where(
                key_column.in_(sa.bindparam('keys', expanding=True))),
            sa.select(sa.null(), column).where(mine))
        self._insert = sa.insert(table)
        self._delete = sa.delete(table).where(
            mine, column.in_(sa.bindparam('ids', expanding=True)))

    def found_and_linked(self, conn, provider_id, keys):
        """``({key: id} of the rows found of ``keys``, set of the ids
        linked to provider ``provider_id``)``, in one round trip."""
        found, current = {}, set()
        for key, linked_id in conn.execute(self._found_and_linked, {
                'keys': sorted(keys), 'provider_id': provider_id}):
            if key is None:
                current.add(linked_id)
            else:
                found[key] = linked_id
        return found, current

    def replace(self, conn, provider_id, wanted, current):
        """Link provider ``provider_id`` to exactly the ids ``wanted``.

        ``current`` are the ids linked now, as :meth:`found_and_linked`
        read them in this transaction.
        """
        wanted = set(wanted)
        if current - wanted:
            conn.execute(self._delete, {'provider_id': provider_id,
                                        'ids': sorted(current - wanted)})
        if wanted - current:
            conn.execute(self._insert, [
                {'resource_provider_id': provider_id,
                 self.column.key: linked}
                for linked in sorted(wanted - current)])
