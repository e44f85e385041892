"""Replacing the rows of a provider in an association table.

Provider aggregates and provider traits are both sets of ids linked to a
provider; a PUT replaces the whole set, touching only what changes.
The provider, the ids of the keys the request names and the ids linked
now are read in one statement (:meth:`Association.of_provider`).
"""

import collections

import sqlalchemy as sa

from placement.db import api as db_api
from placement.db import models
from placement.objects import name_table
from placement.objects import resource_provider

_RP = models.ResourceProvider.__table__

#: What a write of a provider's links needs of the provider: its id, its
#: generation, and when it last changed (``created_at``, ``updated_at``).
Provider = collections.namedtuple(
    'Provider', ('id', 'generation', 'created_at', 'updated_at'))


#: How often a write of links is run again when the links it read moved
#: under it (:class:`LinksMoved`).
RETRIES = 3


class LinksMoved(db_api.RetryTransaction):
    """A link this transaction inserts was inserted by another since we
    read the links (a writer without a generation: aggregates before
    1.19), or what it links to was deleted: read them all again."""

    def __init__(self):
        super().__init__(
            'The resource provider\'s links were changed concurrently; '
            'retry.')


def write(db, operation, *args, read_committed=False):
    """``operation(conn, *args)``, a write of a provider's links, run
    again when they moved under it (:data:`RETRIES` times at most);
    ``read_committed`` as :meth:`placement.db.api.Database.write`."""
    return db.write(operation, *args, conflict_retries=RETRIES,
                    read_committed=read_committed)


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
        # The provider as (id, generation, created_at, updated_at, NULL,
        # NULL), the keys found as (NULL x 4, key, id) and the linked ids
        # as (NULL x 5, id).
        by_uuid = _RP.c.uuid == sa.bindparam('uuid')
        unset = [sa.null()] * len(Provider._fields)
        self._of_provider = sa.union_all(
            sa.select(_RP.c.id, _RP.c.generation, _RP.c.created_at,
                      _RP.c.updated_at, sa.null(), sa.null())
            .where(by_uuid),
            sa.select(*unset, key_column, key_column.table.c.id).where(
                key_column.in_(sa.bindparam('keys', expanding=True))),
            sa.select(*unset, sa.null(), column)
            .join_from(table, _RP, _RP.c.id == table.c.resource_provider_id)
            .where(by_uuid))
        # The provider's generation and last change with each key linked
        # to it (one row with a NULL key without any), the keys in order.
        self._linked = (
            sa.select(_RP.c.generation,
                      name_table.changed(_RP).label('changed'), key_column)
            .select_from(
                _RP.outerjoin(table, table.c.resource_provider_id == _RP.c.id)
                .outerjoin(key_column.table,
                           key_column.table.c.id == column))
            .where(by_uuid).order_by(key_column))
        self._insert = sa.insert(table)
        self._delete = sa.delete(table).where(
            mine, column.in_(sa.bindparam('ids', expanding=True)))

    def linked(self, conn, uuid):
        """``(generation, last change, sorted keys linked to it)`` of
        provider ``uuid`` (the change as :func:`name_table.changed`), in
        one round trip (:func:`resource_provider.joined_rows`); NotFound
        when there is no such provider."""
        rows = resource_provider.joined_rows(conn, self._linked, uuid)
        generation, changed, _key = rows[0]
        return generation, changed, [
            key for _generation, _changed, key in rows if key is not None]

    def of_provider(self, conn, uuid, keys):
        """``(Provider, {key: id} of the rows found of ``keys``, set of
        the ids linked to the provider)`` of provider ``uuid``, in one
        round trip; NotFound when there is no such provider."""
        canonical = resource_provider.canonical_uuid(uuid)
        provider, found, current = None, {}, set()
        for *columns, key, linked_id in conn.execute(self._of_provider, {
                'uuid': canonical, 'keys': sorted(keys)}):
            if columns[0] is not None:
                provider = Provider(*columns)
            elif key is not None:
                found[key] = linked_id
            else:
                current.add(linked_id)
        if provider is None:
            raise resource_provider.not_found(uuid)
        return provider, found, current

    def replace(self, conn, provider_id, wanted, current):
        """Link provider ``provider_id`` to exactly the ids ``wanted``.

        ``current`` are the ids linked now, as :meth:`of_provider`
        read them in this transaction. Run it with :func:`write`.
        """
        wanted = set(wanted)
        if current - wanted:
            conn.execute(self._delete, {'provider_id': provider_id,
                                        'ids': sorted(current - wanted)})
        if wanted - current:
            # A concurrent writer that moves no generation may have
            # linked one since ``current`` was read (the primary key), or
            # the linked row may be gone (the foreign key of traits):
            # LinksMoved, and the caller runs it all again.
            try:
                conn.execute(self._insert, [
                    {'resource_provider_id': provider_id,
                     self.column.key: linked}
                    for linked in sorted(wanted - current)])
            except sa.exc.IntegrityError as exc:
                raise LinksMoved() from exc
