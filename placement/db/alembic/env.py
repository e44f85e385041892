"""alembic environment: runs on the connection placement passes in.

Run by :mod:`placement.db.migration`; the ``alembic`` command line works
too when ``sqlalchemy.url`` is given (``alembic -x`` is not needed).
"""

import sqlalchemy as sa
from alembic import context

from placement.db import models

config = context.config
target_metadata = models.Base.metadata


def _run(connection):
    sqlite = connection.dialect.name == 'sqlite'
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=sqlite,
        # SQLite can roll back DDL; one transaction (begun EXCLUSIVE by
        # placement.db.migration) keeps concurrent upgrades apart.
        transactional_ddl=True if sqlite else None,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get('connection')
if connection is not None:
    _run(connection)
else:
    engine = sa.create_engine(config.get_main_option('sqlalchemy.url'))
    with engine.connect() as conn:
        _run(conn)
