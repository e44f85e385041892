"""Time the explain report against the candidate search it explains.

    python -m tools.bench_explain --db mysql --providers 10000
    python -m tools.bench_explain --db postgresql --providers 100000

Plants the cloud of :mod:`tools.bench_audit` (``--providers`` compute
nodes, every tenth with two NUMA children, two consumers each) in a
throw-away database, gives every third node HW_CPU_X86_AVX2 and every
node one of two aggregates, then times, per query, the object layer of
GET /allocation_candidates without a limit (the search, not the JSON
rendering: the comparison favours the candidates) and of GET
/reports/explain (its whole document), run alternately
``--repetitions`` times: the medians of their wall times and the means
of their CPU times (this process's and, when the database server runs
on this machine, that of the server thread or process serving the
connection, read from ``/proc``: on a machine loaded by others, wall
times are noise and CPU times hold), and the peak of Python memory of
one run of each (tracemalloc). The issue's bound: explain within twice the
candidates' time.
"""

import argparse
import statistics
import tracemalloc
import uuid

import sqlalchemy as sa

from placement import microversion
from placement.cmd import report as report_command
from placement.conf import loading
from placement.db import migration
from placement.db import models
from placement.db import standard_data
from placement.objects import allocation_candidate
from placement.reports.declared import explain as declared_explain
from tools import bench_audit

RP = models.ResourceProvider.__table__
RC = models.ResourceClass.__table__
TRAIT = models.Trait.__table__
RP_TRAIT = models.ResourceProviderTrait.__table__
AGG = models.PlacementAggregate.__table__
RP_AGG = models.ResourceProviderAggregate.__table__
AGGREGATES = ('0a000000-0000-4000-8000-00000000000a',
              '0b000000-0000-4000-8000-00000000000b')
#: A custom class with no inventory anywhere.
ABSENT_CLASS = 'CUSTOM_NOBODY_HAS_IT'
QUERIES = [
    ('fits everywhere', 'resources=VCPU:2,MEMORY_MB:2048'),
    ('traits and aggregate',
     'resources=VCPU:2,MEMORY_MB:2048&required=HW_CPU_X86_AVX2'
     f'&member_of={AGGREGATES[1]}'),
    ('nothing fits', 'resources=VCPU:1000'),
    ('isolated NUMA', 'resources1=VCPU:1&resources2=VCPU:1'
     '&group_policy=isolate'),
    # One class among several that fit is impossible: the search stops
    # at once, explain still counts the classes that fit (their own
    # search is the next query's).
    ('the classes that fit', 'resources=VCPU:1,MEMORY_MB:512'),
    ('one class nobody has',
     f'resources=VCPU:1,MEMORY_MB:512,{ABSENT_CLASS}:1'),
    ('one class too large', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:5000'),
    ('one class full', 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:3990'),
    ('granular, one group full',
     'resources1=VCPU:1&resources2=VCPU:1&resources3=DISK_GB:3990'
     '&group_policy=none'),
]


def decorate(conn):
    """Every third root has AVX2; roots alternate between the two
    aggregates; :data:`ABSENT_CLASS` exists, without inventory. The
    audit's broken trees are mended (the search needs consistent
    ones): roots are their own, children (of roots) their parent's."""
    conn.execute(sa.update(RP).where(RP.c.parent_provider_id.is_(None))
                 .values(root_provider_id=RP.c.id))
    conn.execute(sa.update(RP).where(RP.c.parent_provider_id.isnot(None))
                 .values(root_provider_id=RP.c.parent_provider_id))
    roots = conn.scalars(sa.select(RP.c.id).where(
        RP.c.parent_provider_id.is_(None)).order_by(RP.c.id)).all()
    avx2 = conn.scalar(sa.select(TRAIT.c.id).where(
        TRAIT.c.name == 'HW_CPU_X86_AVX2'))
    bench_audit._insert(conn, RP_TRAIT, [
        {'resource_provider_id': root, 'trait_id': avx2}
        for root in roots[::3]])
    conn.execute(sa.insert(AGG), [{'id': index + 1, 'uuid': uuid_}
                                  for index, uuid_ in enumerate(AGGREGATES)])
    bench_audit._insert(conn, RP_AGG, [
        {'resource_provider_id': root, 'aggregate_id': index % 2 + 1}
        for index, root in enumerate(roots)])
    conn.execute(sa.insert(RC).values(id=10000, name=ABSENT_CLASS))


def peak_kib(function, *args):
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1] // 1024
    finally:
        tracemalloc.stop()


def measure(db, conf, repetitions, queries, memory=True):
    version = microversion.MAX_VERSION
    for name, query in queries:
        params, variables = report_command._read_query(
            declared_explain.REPORTS[0], query, version)
        request = variables['request']
        runs = {'search': [], 'explain': []}
        for _ in range(repetitions):
            runs['search'].append(bench_audit.run(
                db, allocation_candidate.get_candidates, request, conf))
            runs['explain'].append(bench_audit.run(
                db, declared_explain.build, conf, params, request))
        # The CPU is read in clock ticks (10 ms): its mean, not median.
        (wall, cpu), (explain_wall, explain_cpu) = (
            (statistics.median(walls), statistics.mean(cpus))
            for walls, cpus in (zip(*runs[kind], strict=True)
                                for kind in ('search', 'explain')))
        found = db.read(declared_explain.build, conf, params,
                        request)['explain']
        peaks = 'not measured'
        if memory:
            search = peak_kib(db.read, allocation_candidate.get_candidates,
                              request, conf)
            explain = peak_kib(db.read, declared_explain.build, conf,
                               params, request)
            peaks = f'{search} / {explain} KiB'
        print(f'{name}: {found["candidates"]} candidates; search / explain '
              f'wall {wall:.0f} / {explain_wall:.0f} ms '
              f'({explain_wall / wall:.2f}x), CPU {cpu:.0f} / '
              f'{explain_cpu:.0f} ms ({explain_cpu / cpu:.2f}x); peak '
              f'Python memory {peaks}')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--db', choices=sorted(bench_audit.SERVERS),
                        required=True)
    parser.add_argument('--providers', type=int, default=10000,
                        help='Compute nodes (a tenth with 2 children more).')
    parser.add_argument('--repetitions', type=int, default=5)
    parser.add_argument('--keep-database', action='store_true')
    parser.add_argument('--database',
                        help='Measure this database, kept by an earlier '
                             'run (--keep-database), without planting; '
                             'it is kept.')
    parser.add_argument('--no-memory', action='store_true',
                        help='Skip the runs under tracemalloc (slow).')
    parser.add_argument('--prefix', default='placement_explain_bench',
                        help='Prefix of the name of the database planted.')
    parser.add_argument('--queries', nargs='+', metavar='NAME',
                        choices=[name for name, _ in QUERIES],
                        help='Only these queries (default: all).')
    args = parser.parse_args()
    server = bench_audit.SERVERS[args.db]
    name = args.database or f'{args.prefix}_{uuid.uuid4().hex[:8]}'
    url = (sa.engine.make_url(server).set(database=name).render_as_string(
        hide_password=False) if args.database
        else bench_audit.create_database(server, name))
    db = bench_audit.open_database(url)
    conf = loading.new_conf()
    conf([], project='placement', default_config_files=[])
    try:
        if not args.database:
            migration.upgrade(db.engine)
            standard_data.sync(db)
            db.write(bench_audit.plant, args.providers)
            db.write(decorate)
            bench_audit.analyze(db, args.db)
        providers = db.read(lambda conn: conn.scalar(
            sa.select(sa.func.count()).select_from(RP)))
        print(f'{args.db}: {providers} providers (database {name})')
        measure(db, conf, args.repetitions, [
            (query_name, query) for query_name, query in QUERIES
            if not args.queries or query_name in args.queries],
            memory=not args.no_memory)
    finally:
        db.dispose()
        if not (args.keep_database or args.database):
            bench_audit.drop_database(server, name)


if __name__ == '__main__':
    main()
