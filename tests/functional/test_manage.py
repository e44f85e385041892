"""placement-manage, run as an operator runs it, on the test backend."""

import pytest
import sqlalchemy as sa

from placement.cmd import manage
from placement.conf import loading
from placement.db import migration
from placement.db import models
from placement.objects import data_migrations
from tests.functional import commands
from tests.functional import legacy_data
from tests.functional import schema

MIGRATIONS = ('set_root_provider_ids', 'create_incomplete_consumers')
_RP = models.ResourceProvider.__table__




def summary(stdout):
    """The final table of online_data_migrations: {name: (found, done)}."""
    rows = {}
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if len(cells) == 3 and cells[0] in MIGRATIONS:
            rows[cells[0]] = (int(cells[1]), int(cells[2]))
    return rows


def test_categories(config_dir):
    result = commands.placement_manage(config_dir)
    assert result.returncode == 0, result.stderr
    assert 'Command categories' in result.stdout
    assert 'db' in result.stdout


def test_db_commands(config_dir):
    result = commands.placement_manage(config_dir, 'db')
    assert result.returncode == 0, result.stderr
    for command in ('sync', 'version', 'stamp', 'online_data_migrations'):
        assert command in result.stdout


def test_help_names_config_options(config_dir):
    result = commands.placement_manage(config_dir, '--help')
    assert result.returncode == 0, result.stderr
    assert '--config-file' in result.stdout
    assert '--config-dir' in result.stdout


def test_missing_connection(tmp_path, config_dir):
    conf = commands.write_config(tmp_path / 'manage.conf',
                                 placement_database={})
    result = commands.placement_manage(config_dir, '--config-file', str(conf),
                                       'db', 'sync')
    assert result.returncode != 0
    assert '[placement_database] connection' in result.stderr
    assert 'Traceback' not in result.stderr


@pytest.mark.db
def test_sync_creates_schema_and_standard_names(tmp_path, config_dir,
                                                empty_db_url):
    conf = commands.manage_config(tmp_path, empty_db_url)
    assert commands.db_version(config_dir, conf) == 'None'
    commands.db_command(config_dir, conf, 'sync')
    schema.assert_synced(empty_db_url)
    assert commands.db_version(config_dir, conf) == (
        migration.head_version())
    # Nothing left to do, nothing added twice.
    commands.db_command(config_dir, conf, 'sync')
    schema.assert_synced(empty_db_url)


@pytest.mark.db
def test_sync_with_config_dir(tmp_path, config_dir, empty_db_url):
    conf_d = tmp_path / 'placement.conf.d'
    conf_d.mkdir()
    commands.write_config(conf_d / 'database.conf',
                          placement_database={'connection': empty_db_url})
    result = commands.placement_manage(config_dir, '--config-dir', str(conf_d),
                                       'db', 'sync')
    assert result.returncode == 0, result.stderr
    schema.assert_synced(empty_db_url)


@pytest.mark.db
def test_stamp_records_revision_only(tmp_path, config_dir, empty_db_url):
    conf = commands.manage_config(tmp_path, empty_db_url)
    unknown = commands.placement_manage(config_dir, '--config-file', conf,
                                        'db', 'stamp', 'nosuchrevision')
    assert unknown.returncode == 1
    assert 'nosuchrevision' in unknown.stderr
    assert 'Traceback' not in unknown.stderr

    # Upstream's ids, the first and the head.
    for revision in ('b4ed3a175331', 'a082b8bb98d0'):
        commands.db_command(config_dir, conf, 'stamp', revision)
        assert commands.db_version(config_dir, conf) == revision
    assert schema.table_names(empty_db_url) == {'alembic_version'}


@pytest.mark.db
def test_online_migrations_nothing_to_do(tmp_path, config_dir, db_url):
    result = commands.online_migrations(
        config_dir, commands.manage_config(tmp_path, db_url))
    assert result.returncode == 0, result.stderr
    assert 'Running batches of 50 until complete' in result.stdout
    assert summary(result.stdout) == {name: (0, 0) for name in MIGRATIONS}


@pytest.mark.db
def test_online_migrations_create_incomplete_consumers(
        tmp_path, config_dir, db_url, db):
    with db.writer() as conn:
        provider = legacy_data.add_provider(conn, 'legacy', with_root=True)
        consumers = legacy_data.add_consumerless_allocations(
            conn, provider, 3)
    conf = commands.manage_config(tmp_path, db_url, placement={
        'incomplete_consumer_project_id': 'legacy-project',
        'incomplete_consumer_user_id': 'legacy-user'})

    first = commands.online_migrations(config_dir, conf, '--max-count', '2')
    assert first.returncode == 1, first.stderr
    assert ('3 rows matched query create_incomplete_consumers, 2 migrated'
            in first.stdout)
    assert summary(first.stdout) == {
        'set_root_provider_ids': (0, 0),
        'create_incomplete_consumers': (3, 2)}

    rest = commands.online_migrations(config_dir, conf)
    assert rest.returncode == 0, rest.stderr
    assert summary(rest.stdout)['create_incomplete_consumers'] == (1, 1)

    consumer, project, user = (models.Consumer.__table__,
                               models.Project.__table__,
                               models.User.__table__)
    with db.reader() as conn:
        rows = conn.execute(
            sa.select(consumer.c.uuid, project.c.external_id,
                      user.c.external_id, consumer.c.generation)
            .join(project, project.c.id == consumer.c.project_id)
            .join(user, user.c.id == consumer.c.user_id)
            .order_by(consumer.c.uuid)).all()
    assert [tuple(row) for row in rows] == [
        (uuid, 'legacy-project', 'legacy-user', 0) for uuid in consumers]


@pytest.mark.db
def test_online_migrations_set_root_provider_ids(
        tmp_path, config_dir, db_url, db):
    with db.writer() as conn:
        # The child has the lower id: a batch of one meets it before its
        # parent, which is not migrated yet either.
        child = legacy_data.add_provider(conn, 'child')
        parent = legacy_data.add_provider(conn, 'parent')
        legacy_data.set_parent(conn, child, parent)
        other = legacy_data.add_provider(conn, 'other')
    conf = commands.manage_config(tmp_path, db_url)

    first = commands.online_migrations(config_dir, conf, '--max-count', '1')
    assert first.returncode == 1, first.stderr
    assert summary(first.stdout)['set_root_provider_ids'] == (3, 1)

    rest = commands.online_migrations(config_dir, conf)
    assert rest.returncode == 0, rest.stderr
    assert summary(rest.stdout)['set_root_provider_ids'] == (2, 2)

    with db.reader() as conn:
        roots = dict(conn.execute(
            sa.select(_RP.c.id, _RP.c.root_provider_id)).all())
    assert roots == {child: parent, parent: parent, other: other}


def _broken_migration(db, conf, max_count):
    raise RuntimeError('this migration is broken')


@pytest.fixture
def in_process(monkeypatch, config_dir):
    """For calling main() in this process: no oslo.log set-up, no ambient
    configuration files."""
    monkeypatch.setattr(loading.logging, 'setup', lambda *args: None)
    monkeypatch.setenv(loading.CONFIG_DIR_ENV, str(config_dir))


@pytest.mark.parametrize('max_count', ['0', '-1', 'abc'])
def test_online_migrations_bad_max_count(tmp_path, capsys, in_process,
                                         max_count):
    conf = commands.manage_config(tmp_path, 'sqlite://')
    assert manage.main(['--config-file', conf, 'db',
                        'online_data_migrations',
                        '--max-count', max_count]) == 127
    assert ('Must supply a positive integer for --max-count'
            in capsys.readouterr().out)


@pytest.fixture
def broken_migration(monkeypatch, in_process):
    """A migration that always fails, run before the real ones."""
    monkeypatch.setattr(data_migrations, 'ONLINE_MIGRATIONS',
                        (_broken_migration,
                         *data_migrations.ONLINE_MIGRATIONS))


@pytest.mark.db
@pytest.mark.parametrize('max_count', [[], ['--max-count', '5']])
def test_online_migrations_error_and_nothing_done(
        tmp_path, capsys, db_url, broken_migration, max_count):
    conf = commands.manage_config(tmp_path, db_url)
    assert manage.main(['--config-file', conf, 'db',
                        'online_data_migrations', *max_count]) == 2
    assert 'Some migrations failed unexpectedly' in capsys.readouterr().out


@pytest.mark.db
def test_online_migrations_error_and_progress(
        tmp_path, capsys, db_url, db, broken_migration):
    with db.writer() as conn:
        legacy_data.add_provider(conn, 'legacy')
    conf = commands.manage_config(tmp_path, db_url)
    # Run again: the failing one may depend on those that made progress.
    assert manage.main(['--config-file', conf, 'db',
                        'online_data_migrations', '--max-count', '5']) == 1
    assert summary(capsys.readouterr().out)['set_root_provider_ids'] == (
        1, 1)
