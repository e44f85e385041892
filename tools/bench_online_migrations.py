"""Time ``placement-manage db online_data_migrations`` on legacy rows.

    .venv/bin/python -m tools.bench_online_migrations [--db mysql]
        [--database-url URL] [--count 100000] [--phase default|max_count]
        [--keep-database] [--json FILE]

Plants ``--count`` resource providers without ``root_provider_id`` and
``--count`` allocations of consumers without a consumer record (bulk
inserts straight into a throw-away database, as a database that upstream
Placement wrote before nested providers and consumer records holds them),
then runs the command as an operator would and reports rows per second.

Two phases, each on a database of its own (``placement_bench_<random>``,
dropped at the end unless ``--keep-database``):

``default``
    no ``--max-count``: batches of 50 until complete; must exit 0.
``max_count``
    ``--max-count`` 1.5 x ``--count`` (exit 1: half the consumers are
    left), then ``--max-count`` 1 x ``--count`` (finishes them: exit 0),
    then once more (nothing left: exit 0).

After each phase every provider must be its own root and every
allocation's consumer must have a record with the ``[placement]
incomplete_consumer_*`` placeholders; in the progress lines the rows
migrated so far must add up and the rows left never go up. The tool
exits 1 when anything differs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

from placement.db import models
from tools import bench_allocation_candidates as bench

_RP = models.ResourceProvider.__table__
_INVENTORY = models.Inventory.__table__
_ALLOCATION = models.Allocation.__table__
_CONSUMER = models.Consumer.__table__
_PROJECT = models.Project.__table__
_USER = models.User.__table__
_RC = models.ResourceClass.__table__
_CHUNK = 10000
_PROGRESS = re.compile(
    r'^\d+ rows matched query (\w+), (\d+) migrated '
    r'\((\d+) so far, (\d+) left\)$', re.M)
_PLACEHOLDER_PROJECT = '00000000-0000-0000-0000-000000000000'


def plant(db_url, count):
    """``count`` providers without a root and allocations without a
    consumer record; the seconds it took."""
    started = time.monotonic()
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        vcpu = conn.scalar(sa.select(_RC.c.id).where(_RC.c.name == 'VCPU'))
        for first in range(0, count, _CHUNK):
            conn.execute(sa.insert(_RP), [
                {'uuid': str(uuid.uuid4()), 'name': f'legacy-{i}',
                 'generation': 1}
                for i in range(first, min(first + _CHUNK, count))])
        ids = conn.scalars(sa.select(_RP.c.id).order_by(_RP.c.id)).all()
        for first in range(0, count, _CHUNK):
            chunk = ids[first:first + _CHUNK]
            conn.execute(sa.insert(_INVENTORY), [
                bench.inventory_row(rp_id, vcpu, 64, 16.0) for rp_id in chunk])
            conn.execute(sa.insert(_ALLOCATION), [
                {'resource_provider_id': rp_id,
                 'consumer_id': str(uuid.uuid4()),
                 'resource_class_id': vcpu, 'used': 2}
                for rp_id in chunk])
    if engine.url.get_backend_name() == 'postgresql':
        # What autovacuum has done on an old database (it is off on the
        # test servers): the planner's statistics.
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            conn.exec_driver_sql('ANALYZE')
    engine.dispose()
    return time.monotonic() - started


def check_migrated(db_url, count):
    """What is wrong with the migrated rows: a list of strings."""
    engine = sa.create_engine(db_url)
    problems = []
    with engine.connect() as conn:
        not_own_root = conn.scalar(
            sa.select(sa.func.count()).select_from(_RP).where(sa.or_(
                _RP.c.root_provider_id.is_(None),
                _RP.c.root_provider_id != _RP.c.id)))
        if not_own_root:
            problems.append(f'{not_own_root} providers not their own root')
        placeholders = conn.scalar(
            sa.select(sa.func.count()).select_from(_ALLOCATION)
            .join(_CONSUMER, _CONSUMER.c.uuid == _ALLOCATION.c.consumer_id)
            .join(_PROJECT, _PROJECT.c.id == _CONSUMER.c.project_id)
            .join(_USER, _USER.c.id == _CONSUMER.c.user_id)
            .where(_PROJECT.c.external_id == _PLACEHOLDER_PROJECT,
                   _USER.c.external_id == _PLACEHOLDER_PROJECT,
                   _CONSUMER.c.generation == 0))
        consumers = conn.scalar(
            sa.select(sa.func.count()).select_from(_CONSUMER))
        if (placeholders, consumers) != (count, count):
            problems.append(
                f'{consumers} consumer records, {placeholders} allocations '
                f'with a placeholder consumer; {count} expected')
    engine.dispose()
    return problems


def check_progress(stdout):
    """What is wrong with the progress lines: a list of strings."""
    problems = []
    last = {}
    for name, done, so_far, left in _PROGRESS.findall(stdout):
        previous = last.get(name, (0, None))
        if int(so_far) != previous[0] + int(done) or (
                previous[1] is not None and int(left) > previous[1]):
            problems.append(f'{name}: {so_far} so far, {left} left after '
                            f'{previous}')
        last[name] = (int(so_far), int(left))
    return problems[:5]


def migrate(conf, *args):
    """Run the command; (exit status, seconds, stdout)."""
    started = time.monotonic()
    result = subprocess.run(
        [bench._venv_command('placement-manage'), '--config-file', conf,
         'db', 'online_data_migrations', *args],
        capture_output=True, text=True)
    seconds = time.monotonic() - started
    if result.returncode not in (0, 1):
        sys.stderr.write(result.stdout[-2000:] + result.stderr[-4000:])
    return result.returncode, seconds, result.stdout


def run_phase(args, workdir, phase):
    """Plant, migrate as ``phase`` says, check; the phase's figures."""
    rows = 2 * args.count
    with bench.phase_database(args, workdir, phase) as db_url:
        conf = bench.prepare_config(workdir, db_url)
        figures = {'phase': phase, 'rows': rows,
                   'plant_seconds': round(plant(db_url, args.count), 1)}
        if phase == 'default':
            runs = [((), 0)]
        else:
            runs = [(('--max-count', str(args.count * 3 // 2)), 1),
                    (('--max-count', str(args.count)), 0),
                    (('--max-count', str(args.count)), 0)]
        figures['runs'] = []
        problems = []
        for run_args, status in runs:
            code, seconds, stdout = migrate(conf, *run_args)
            figures['runs'].append({
                'args': ' '.join(run_args), 'exit': code,
                'seconds': round(seconds, 1),
                'progress_lines': len(_PROGRESS.findall(stdout))})
            if code != status:
                problems.append(f'{run_args}: exit {code}, {status} '
                                f'expected')
            problems += check_progress(stdout)
        seconds = sum(run['seconds'] for run in figures['runs'])
        figures['seconds'] = round(seconds, 1)
        figures['rows_per_second'] = round(rows / seconds)
        figures['problems'] = problems + check_migrated(db_url, args.count)
    figures['load'] = os.getloadavg()
    print(json.dumps(figures), flush=True)
    return figures


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--db', choices=sorted(bench.SERVERS), default='mysql')
    p.add_argument('--database-url', help='database server URL without a '
                   'database name; overrides --db')
    p.add_argument('--count', type=int, default=100000,
                   help='providers, and allocations, to migrate')
    p.add_argument('--phase', action='append',
                   choices=['default', 'max_count'])
    p.add_argument('--keep-database', action='store_true')
    p.add_argument('--json', help='write the figures to this file')
    args = p.parse_args(argv)
    args.server_url = args.database_url or bench.SERVERS[args.db]
    args.phase = args.phase or ['default', 'max_count']
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # What bench_allocation_candidates.phase_database reads.
    args.reuse_database = None
    args.database_name = f'placement_bench_{uuid.uuid4().hex[:8]}'
    print(f'load at start: {os.getloadavg()}', flush=True)
    results = []
    for phase in args.phase:
        with tempfile.TemporaryDirectory() as workdir:
            results.append(run_phase(args, workdir, phase))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)
    return 1 if any(result['problems'] for result in results) else 0


if __name__ == '__main__':
    sys.exit(main())
