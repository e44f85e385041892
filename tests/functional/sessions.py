"""A database server's sessions, as a test sees them: the id of its own
connection's, and ending one as an operator's KILL or
pg_terminate_backend (or a server restart) does."""

import time

import sqlalchemy as sa

#: The statement giving the id of the connection's own session.
_OWN_ID = {'mysql': 'SELECT CONNECTION_ID()',
           'mariadb': 'SELECT CONNECTION_ID()',
           'postgresql': 'SELECT pg_backend_pid()'}


def own_id(conn):
    """The server's id of the session of ``conn`` (a SQLAlchemy
    connection)."""
    return conn.exec_driver_sql(_OWN_ID[conn.dialect.name]).scalar()


def end(url, session):
    """End ``session`` of the server at ``url``, from a connection of
    its own (none of the service's pools), and wait until it is gone."""
    admin_engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with admin_engine.connect() as admin:
            admin = admin.execution_options(isolation_level='AUTOCOMMIT')
            if admin.dialect.name == 'postgresql':
                admin.execute(sa.text('SELECT pg_terminate_backend(:id)'),
                              {'id': session})
                query = ('SELECT count(*) FROM pg_stat_activity '
                         'WHERE pid = :id')
            else:
                admin.execute(sa.text(f'KILL CONNECTION {int(session)}'))
                query = ('SELECT count(*) FROM information_schema.processlist'
                         ' WHERE id = :id')
            while admin.execute(sa.text(query), {'id': session}).scalar():
                time.sleep(0.05)
    finally:
        admin_engine.dispose()
