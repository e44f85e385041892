"""The whole service in process on a throw-away database.

For what exercises the API without a server: ``tools/fuzz_api.py`` and
the functional tests (``tests/database.py`` and
``tests/functional/app.py`` build on it), so that a tool needs nothing
of the test tree. Requests go through every middleware (noauth2) to the
handlers as webob requests; ``API.db`` gives direct access to the rows.

A database made by :func:`new_database_url` is dropped (its SQLite files
removed) when the process exits.
"""

import atexit
import json
import os
import tempfile
import uuid

import sqlalchemy as sa
import webob

from placement import deploy
from placement import policy
from placement.conf import loading
from placement.db import models


def _create_server_database(server_url, prefix):
    url = sa.engine.make_url(server_url)
    name = f'{prefix}{uuid.uuid4().hex[:12]}'
    admin_db = 'postgres' if url.get_backend_name() == 'postgresql' else None
    admin = sa.create_engine(url.set(database=admin_db),
                             isolation_level='AUTOCOMMIT')
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE {name}')

    def _drop():
        with admin.connect() as conn:
            if url.get_backend_name() == 'postgresql':
                conn.exec_driver_sql(
                    f'DROP DATABASE IF EXISTS {name} WITH (FORCE)')
            else:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS {name}')
        admin.dispose()
    atexit.register(_drop)
    return str(url.set(database=name).render_as_string(hide_password=False))


def _create_sqlite_database(prefix):
    handle, path = tempfile.mkstemp(prefix=f'{prefix}', suffix='.sqlite')
    os.close(handle)
    atexit.register(remove_sqlite_files, path)
    return f'sqlite:///{path}'


def remove_sqlite_files(path):
    """Remove SQLite database ``path`` and its WAL files."""
    for name in (path, f'{path}-wal', f'{path}-shm'):
        if os.path.exists(name):
            os.unlink(name)


def new_database_url(server_url, prefix='placement_'):
    """The URL of a new database without any table, named ``prefix``
    and a random suffix, on ``server_url`` (a server URL without a
    database name; empty: a temporary SQLite file)."""
    return (_create_server_database(server_url, prefix) if server_url
            else _create_sqlite_database(prefix))


def make_conf(url, **overrides):
    """A parsed service configuration using database ``url``.

    ``overrides`` are ``{'group.option': value}`` style keyword pairs given
    as ``group__option=value``.
    """
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    conf.set_override('connection', url, group='placement_database')
    for key, value in overrides.items():
        group, name = key.split('__', 1)
        conf.set_override(name, value, group=group)
    return conf


def empty(engine):
    """Delete every row but the standard resource classes and traits."""
    rp = models.ResourceProvider.__table__
    with engine.begin() as conn:
        for table in reversed(models.Base.metadata.sorted_tables):
            if table is rp:
                conn.execute(sa.update(rp).values(
                    parent_provider_id=None, root_provider_id=None))
            if table.name in ('resource_classes', 'traits'):
                conn.execute(sa.delete(table).where(
                    table.c.name.like('CUSTOM\\_%', escape='\\')))
            else:
                conn.execute(sa.delete(table))


def build_stack(db_url, **overrides):
    """``(application, Database)``: the whole stack (noauth2) on db_url.

    ``overrides`` are ``group__option=value`` configuration overrides;
    the caller disposes of the Database.
    """
    conf = make_conf(db_url, api__auth_strategy='noauth2', **overrides)
    db = deploy.prepare_database(conf)
    return deploy.build_stack(conf, db, policy.make_enforcer(conf)), db


class API:
    """The application plus direct access to its database."""

    def __init__(self, app, db):
        self.app = app
        self.db = db

    def request(self, method, path, version='latest', body=None):
        """The response to an admin's request; ``body`` is JSON's."""
        headers = {'x-auth-token': 'admin', 'accept': 'application/json',
                   'openstack-api-version': f'placement {version}'}
        raw_body = None
        if body is not None:
            headers['content-type'] = 'application/json'
            raw_body = json.dumps(body).encode('utf-8')
        return self.send(method, path, headers, raw_body)

    def send(self, method, path, headers, body=None):
        """The response to a request given as is: ``body`` is bytes."""
        req = webob.Request.blank(path, method=method, headers=headers)
        if body is not None:
            req.body = body
        return req.get_response(self.app)
