"""Upstream's schema at each of its revisions, and a way to compare schemas.

:func:`load` builds upstream's schema of one revision in an empty database
from the dump in ``fixtures/upstream_schema/`` and records that revision
in ``alembic_version``, as upstream's own ``db sync`` would have left it.
:func:`describe` is what SQLAlchemy's inspector sees of a schema: two
databases on one backend with equal descriptions have the same tables,
columns (type, nullability, default), primary keys, indexes, unique
constraints and foreign keys, names included.
"""

import os
import re

import sqlalchemy as sa

REVISIONS = ('b4ed3a175331', '611cd6dffd7b', 'b5c396305c25',
             '422ece571366', 'a082b8bb98d0')
FIXTURES = os.path.join(os.path.dirname(__file__), 'fixtures',
                        'upstream_schema')
_DUMP_SUFFIX = {'sqlite': 'sqlite', 'mysql': 'mysql',
                'postgresql': 'postgresql'}
# pg_dump's psql meta-commands (\restrict ...): not SQL.
_PSQL_COMMAND = re.compile(r'^\\.*$', re.MULTILINE)


def statements(revision, backend):
    """The SQL statements of the dump of ``revision`` for ``backend``."""
    path = os.path.join(FIXTURES, f'{revision}.{_DUMP_SUFFIX[backend]}.sql')
    with open(path) as handle:
        sql = _PSQL_COMMAND.sub('', handle.read())
    return [statement.strip() for statement in sql.split(';')
            if statement.strip()]


def load(engine, revision):
    """Create upstream's schema of ``revision``, stamped with it."""
    with engine.begin() as conn:
        if engine.dialect.name == 'mysql':
            # The tables come in name order, some before those they refer
            # to; mysqldump would switch the checks off the same way.
            conn.exec_driver_sql('SET FOREIGN_KEY_CHECKS = 0')
        for statement in statements(revision, engine.dialect.name):
            conn.exec_driver_sql(statement)
        if engine.dialect.name == 'mysql':
            conn.exec_driver_sql('SET FOREIGN_KEY_CHECKS = 1')
        conn.execute(sa.text('INSERT INTO alembic_version (version_num) '
                             'VALUES (:revision)'), {'revision': revision})


def describe(engine):
    """``{table: {aspect: ...}}``, everything the inspector sees."""
    inspector = sa.inspect(engine)
    return {table: _describe_table(inspector, table)
            for table in inspector.get_table_names()}


def _describe_table(inspector, table):
    pk = inspector.get_pk_constraint(table)
    return {
        'columns': [(column['name'], str(column['type']),
                     column['nullable'], column['default'])
                    for column in inspector.get_columns(table)],
        'primary key': (pk['name'], pk['constrained_columns']),
        'indexes': sorted(
            (index['name'], tuple(index['column_names']),
             bool(index['unique']))
            for index in inspector.get_indexes(table)),
        'unique constraints': sorted(
            (unique['name'], tuple(unique['column_names']))
            for unique in inspector.get_unique_constraints(table)),
        'foreign keys': sorted(
            (fk['name'] or '', tuple(fk['constrained_columns']),
             fk['referred_table'], tuple(fk['referred_columns']))
            for fk in inspector.get_foreign_keys(table)),
    }
