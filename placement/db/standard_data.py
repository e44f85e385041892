"""Synchronise the standard resource classes and traits into the database.

The standard names come from os-resource-classes and os-traits. Rows are
only ever added, never removed, so this is idempotent; when several worker
processes start at once and race to insert the same names, the loser's
transaction fails on the unique constraint and simply tries again, finding
the rows the winner wrote.
"""

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


def _insert_missing(db, table, wanted):
    for attempt in range(1, _ATTEMPTS + 1):
        try:
            with db.writer() as conn:
                missing = _missing_names(conn, table, wanted)
                if missing:
                    conn.execute(sa.insert(table),
                                 [{'name': name} for name in missing])
                return len(missing)
        except sa.exc.IntegrityError:
            if attempt == _ATTEMPTS:
                raise
            LOG.debug('Concurrent insert into %s; retrying', table.name)


def sync(db):
    """Ensure every standard resource class and trait has a row."""
    classes = _insert_missing(db, models.ResourceClass.__table__,
                              os_resource_classes.STANDARDS)
    traits = _insert_missing(db, models.Trait.__table__,
                             os_traits.get_traits())
    if classes or traits:
        LOG.info('Added %d standard resource classes and %d standard traits',
                 classes, traits)
