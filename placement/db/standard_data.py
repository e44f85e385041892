"""Synchronise the standard resource classes and traits into the database.

The standard names come from os-resource-classes and os-traits. Rows are
only ever added, never removed, so this is idempotent; when several worker
processes start at once and race to insert the same names, the loser's
transaction fails on the unique constraint and simply tries again, finding
the rows the winner wrote.

Standard resource classes get upstream's ids, their index in
os-resource-classes (VCPU is 0), so that a database moves between upstream
and this service; traits are numbered by the database, as upstream's.
"""

import contextlib
import logging

import os_resource_classes
import os_traits
import sqlalchemy as sa

from placement.db import models

LOG = logging.getLogger(__name__)
_ATTEMPTS = 5


def _missing_names(conn, table, wanted):
    existing = set(conn.scalars(sa.select(table.c.name)))
    return [name for name in wanted if name not in existing]


def _insert_missing(db, table, wanted, numbered=False):
    """Insert the names of ``wanted`` not in ``table``; how many.

    ``numbered``: each row's id is the name's index in ``wanted``.
    """
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            with db.writer() as conn:
                missing = _missing_names(conn, table, wanted)
                if missing:
                    rows = [{'name': name} for name in missing]
                    if numbered:
                        for row in rows:
                            row['id'] = wanted.index(row['name'])
                    with explicit_zero_id(conn):
                        conn.execute(sa.insert(table), rows)
                return len(missing)
        except sa.exc.IntegrityError:
            if attempt == _ATTEMPTS:
                raise
            LOG.debug('Concurrent insert into %s; retrying', table.name)


@contextlib.contextmanager
def explicit_zero_id(conn):
    """Let MySQL store an id of 0 rather than take it for "generate one"."""
    if conn.dialect.name != 'mysql':
        yield
        return
    sql_mode = conn.scalar(sa.text('SELECT @@SESSION.sql_mode'))
    conn.execute(sa.text("SET SESSION sql_mode = CONCAT_WS(',', "
                         "NULLIF(:mode, ''), 'NO_AUTO_VALUE_ON_ZERO')"),
                 {'mode': sql_mode})
    try:
        yield
    finally:
        conn.execute(sa.text('SET SESSION sql_mode = :mode'),
                     {'mode': sql_mode})


def sync(db):
    """Ensure every standard resource class and trait has a row."""
    classes = _insert_missing(db, models.ResourceClass.__table__,
                              os_resource_classes.STANDARDS, numbered=True)
    traits = _insert_missing(db, models.Trait.__table__,
                             os_traits.get_traits())
    if classes or traits:
        LOG.info('Added %d standard resource classes and %d standard traits',
                 classes, traits)
