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
TABLE_ROWS = (*MIGRATIONS, 'broken_migration')
_RP = models.ResourceProvider.__table__




def summary(stdout):
    """The final table of online_data_migrations: {name: (found, done)}."""
    rows = {}
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if len(cells) == 3 and cells[0] in TABLE_ROWS:
            rows[cells[0]] = (int(cells[1]), int(cells[2]))
    return rows


@pytest.mark.parametrize('args, usage, required', [
    ((), 'placement-manage [-h]', 'command'),
    (('db',), 'placement-manage db [-h] <command> ...', '<command>'),
    (('report',), 'placement-manage report [-h] <report> ...', '<report>'),
])
def test_a_command_is_required(config_dir, args, usage, required):
    """A usage error, as any other (placement-status without a command):
    it printed the help and exited 0."""
    result = commands.placement_manage(config_dir, *args)
    assert result.returncode == 2
    assert result.stdout == ''
    assert result.stderr.startswith(f'usage: {usage}')
    prog = ' '.join(('placement-manage', *args))
    assert result.stderr.splitlines()[-1] == (
        f'{prog}: error: the following arguments are required: {required}')


def test_categories(config_dir):
    result = commands.placement_manage(config_dir, '--help')
    assert result.returncode == 0, result.stderr
    assert 'Command categories' in result.stdout
    assert 'db' in result.stdout


def test_db_commands(config_dir):
    result = commands.placement_manage(config_dir, 'db', '--help')
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
    assert progress(result.stdout) == []
    assert summary(result.stdout) == {name: (0, 0) for name in MIGRATIONS}


def progress(stdout):
    """The progress lines of online_data_migrations."""
    return [line for line in stdout.splitlines()
            if ' rows matched query ' in line]


def add_rootless_providers(db, count):
    with db.writer() as conn:
        return [legacy_data.add_provider(conn, f'legacy-{i}')
                for i in range(count)]


def add_consumerless_allocations(db, count):
    with db.writer() as conn:
        provider = legacy_data.add_provider(conn, 'legacy', with_root=True)
        return legacy_data.add_consumerless_allocations(
            conn, provider, count)


@pytest.mark.db
def test_online_migrations_create_incomplete_consumers(
        tmp_path, config_dir, db_url, db):
    consumers = add_consumerless_allocations(db, 3)
    conf = commands.manage_config(tmp_path, db_url, placement={
        'incomplete_consumer_project_id': 'legacy-project',
        'incomplete_consumer_user_id': 'legacy-user'})

    first = commands.online_migrations(config_dir, conf, '--max-count', '2')
    assert first.returncode == 1, first.stderr
    assert progress(first.stdout) == [
        '2 rows matched query create_incomplete_consumers, 2 migrated '
        '(2 so far, 1 left)']
    assert summary(first.stdout) == {
        'set_root_provider_ids': (0, 0),
        'create_incomplete_consumers': (2, 2)}

    rest = commands.online_migrations(config_dir, conf)
    assert rest.returncode == 0, rest.stderr
    assert summary(rest.stdout)['create_incomplete_consumers'] == (1, 1)

    consumer, project, user = (models.Consumer.__table__,
                               models.Project.__table__,
                               models.User.__table__)
    with db.reader() as conn:
        rows = conn.execute(
            sa.select(consumer.c.uuid, project.c.external_id,
                      user.c.external_id, consumer.c.generation,
                      consumer.c.consumer_type_id,
                      consumer.c.created_at.is_not(None))
            .join(project, project.c.id == consumer.c.project_id)
            .join(user, user.c.id == consumer.c.user_id)
            .order_by(consumer.c.uuid)).all()
    assert [tuple(row) for row in rows] == [
        (uuid, 'legacy-project', 'legacy-user', 0, None, True)
        for uuid in consumers]


@pytest.mark.db
def test_online_migrations_set_root_provider_ids(
        tmp_path, config_dir, db_url, db):
    with db.writer() as conn:
        # The lowest ids are the deepest: a batch of one meets the
        # grandchild before its parent and grandparent, which have no
        # root yet either.
        grandchild = legacy_data.add_provider(conn, 'grandchild')
        child = legacy_data.add_provider(conn, 'child')
        parent = legacy_data.add_provider(conn, 'parent')
        legacy_data.set_parent(conn, grandchild, child)
        legacy_data.set_parent(conn, child, parent)
        other = legacy_data.add_provider(conn, 'other')
        # Under a root that has its id already.
        rooted = legacy_data.add_provider(conn, 'rooted', with_root=True)
        under_rooted = legacy_data.add_provider(conn, 'under-rooted')
        legacy_data.set_parent(conn, under_rooted, rooted)
    conf = commands.manage_config(tmp_path, db_url)

    first = commands.online_migrations(config_dir, conf, '--max-count', '1')
    assert first.returncode == 1, first.stderr
    assert progress(first.stdout) == [
        '1 rows matched query set_root_provider_ids, 1 migrated '
        '(1 so far, 4 left)']
    assert summary(first.stdout)['set_root_provider_ids'] == (1, 1)

    rest = commands.online_migrations(config_dir, conf)
    assert rest.returncode == 0, rest.stderr
    assert summary(rest.stdout)['set_root_provider_ids'] == (4, 4)

    with db.reader() as conn:
        roots = dict(conn.execute(
            sa.select(_RP.c.id, _RP.c.root_provider_id)).all())
    assert roots == {grandchild: parent, child: parent, parent: parent,
                     other: other, rooted: rooted, under_rooted: rooted}


@pytest.mark.db
def test_online_migrations_count_the_rows_left_down(
        tmp_path, config_dir, db_url, db):
    """Batches of 50 shared by the migrations in order, each line with
    the rows migrated so far and those left."""
    add_rootless_providers(db, 60)
    add_consumerless_allocations(db, 120)
    result = commands.online_migrations(
        config_dir, commands.manage_config(tmp_path, db_url))
    assert result.returncode == 0, result.stderr
    roots, consumers = MIGRATIONS
    assert progress(result.stdout) == [
        f'50 rows matched query {roots}, 50 migrated (50 so far, 10 left)',
        f'10 rows matched query {roots}, 10 migrated (60 so far, 0 left)',
        f'40 rows matched query {consumers}, 40 migrated '
        f'(40 so far, 80 left)',
        f'50 rows matched query {consumers}, 50 migrated '
        f'(90 so far, 30 left)',
        f'30 rows matched query {consumers}, 30 migrated '
        f'(120 so far, 0 left)']
    assert summary(result.stdout) == {roots: (60, 60),
                                      consumers: (120, 120)}


@pytest.mark.db
@pytest.mark.parametrize('max_count', ['10', '6'])
def test_online_migrations_max_count_that_finishes_exits_0(
        tmp_path, config_dir, db_url, db, max_count):
    """A --max-count at least as large as what is left migrates it all
    and exits 0: nothing is left (6: exactly what is left)."""
    add_rootless_providers(db, 2)
    add_consumerless_allocations(db, 4)
    conf = commands.manage_config(tmp_path, db_url)
    result = commands.online_migrations(config_dir, conf,
                                        '--max-count', max_count)
    assert result.returncode == 0, result.stdout + result.stderr
    assert summary(result.stdout) == {'set_root_provider_ids': (2, 2),
                                      'create_incomplete_consumers': (4, 4)}
    again = commands.online_migrations(config_dir, conf,
                                       '--max-count', max_count)
    assert again.returncode == 0, again.stderr
    assert summary(again.stdout) == {name: (0, 0) for name in MIGRATIONS}


@pytest.mark.db
def test_online_migrations_large_max_count_in_transactions(
        tmp_path, config_dir, db_url, db):
    add_consumerless_allocations(db, 1200)
    conf = commands.manage_config(tmp_path, db_url)
    result = commands.online_migrations(config_dir, conf,
                                        '--max-count', '5000')
    assert result.returncode == 0, result.stderr
    name = 'create_incomplete_consumers'
    assert progress(result.stdout) == [
        f'1000 rows matched query {name}, 1000 migrated '
        f'(1000 so far, 200 left)',
        f'200 rows matched query {name}, 200 migrated (1200 so far, 0 left)']


@pytest.mark.db
def test_online_migrations_start_again_behind_the_walk(db_url, db):
    """A batch after the last key finds nothing: the walk starts again
    from the first key, for rows recorded behind it meanwhile."""
    consumers = add_consumerless_allocations(db, 3)
    conf = loading.new_conf()
    conf([], default_config_files=[])
    run = manage._MigrationRun(data_migrations.CREATE_INCOMPLETE_CONSUMERS)
    run.count(db, conf)
    run.after = consumers[-1]
    assert run.next_batch(db, conf, 50).found == 3
    assert not run.finished
    assert run.next_batch(db, conf, 50).found == 0
    assert run.finished


def _fail(*_args):
    raise RuntimeError('this migration is broken')


BROKEN_MIGRATIONS = {
    'batch fails': data_migrations.OnlineMigration(
        'broken_migration', lambda conn, conf: 1, _fail),
    'count fails': data_migrations.OnlineMigration(
        'broken_migration', _fail, _fail)}


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


@pytest.fixture(params=sorted(BROKEN_MIGRATIONS))
def broken_migration(request, monkeypatch, in_process):
    """A migration that always fails, run before the real ones."""
    monkeypatch.setattr(data_migrations, 'ONLINE_MIGRATIONS',
                        (BROKEN_MIGRATIONS[request.param],
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
@pytest.mark.parametrize('max_count, status', [
    # Run again: the failing one may depend on those that progressed.
    (['--max-count', '5'], 1),
    # Until complete: the last batch failed and migrated nothing.
    ([], 2)])
def test_online_migrations_error_and_progress(
        tmp_path, capsys, db_url, db, broken_migration, max_count, status):
    add_rootless_providers(db, 1)
    conf = commands.manage_config(tmp_path, db_url)
    assert manage.main(['--config-file', conf, 'db',
                        'online_data_migrations', *max_count]) == status
    out = capsys.readouterr().out
    assert summary(out) == {'broken_migration': (0, 0),
                            'set_root_provider_ids': (1, 1),
                            'create_incomplete_consumers': (0, 0)}
    assert 'Some migrations failed unexpectedly' in out
