"""Pure helpers of tools/bench_allocation_candidates.py."""

import pytest

from tools import bench_allocation_candidates as bench
from tools import bench_claims


def test_percentile_is_nearest_rank():
    values = list(range(30, 0, -1))
    assert bench.percentile(values, 90) == 27
    assert bench.percentile(values, 50) == 15
    assert bench.percentile(values, 100) == 30


def test_percentile_of_few_values_rounds_up_the_rank():
    assert bench.percentile([4.0, 1.0, 3.0, 2.0], 90) == 4.0
    assert bench.percentile([7.5], 90) == 7.5
    assert bench.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90) == 10


def test_percentile_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        bench.percentile([], 90)


def test_default_is_mysql_and_both_data_sets():
    args = bench.parse_args([])
    assert args.server_url == 'mysql+pymysql://root@127.0.0.1:3306'
    assert args.phase == ['flat', 'nested']


def test_sqlite_has_no_server_and_a_url_overrides_db():
    assert bench.parse_args(['--db', 'sqlite']).server_url is None
    url = 'postgresql+psycopg2://bench@127.0.0.1:5433'
    args = bench.parse_args(['--db', 'sqlite', '--database-url', url,
                             '--phase', 'nested'])
    assert args.server_url == url
    assert args.phase == ['nested']


def test_flat_queries_name_every_member_of_aggregate():
    queries = dict(bench.flat_queries(['a1', 'a2']))
    query = queries['flat member_of+required limit=1000']
    assert '&member_of=in:a1,a2&required=HW_CPU_X86_AVX2' in query
    assert query.endswith('&limit=1000')
    assert 'limit' not in queries['flat resources-only unlimited']


def test_bad_input_queries_are_the_flat_ones_with_more_named():
    queries = dict(bench.flat_queries(['a1', 'a2']))
    many = queries['bad input: 2,005 aggregates, limit=1000']
    named = many.split('member_of=in:')[1].split('&')[0].split(',')
    assert named[:2] == ['a1', 'a2'] and len(set(named)) == 2002
    forbidden = queries['bad input: all traits forbidden, limit=1000']
    assert '!HW_CPU_X86_AVX2' not in forbidden
    assert '!MISC_SHARES_VIA_AGGREGATE' not in forbidden
    assert '!HW_CPU_X86_SSE' in forbidden
    assert queries['bad input: limit beyond any integer'].startswith(
        queries['flat member_of+required unlimited'] + '&limit=1')


def test_chunks_keep_order_and_the_remainder():
    assert bench.chunks(range(5), 2) == [[0, 1], [2, 3], [4]]
    assert bench.chunks([], 3) == []


def test_xlarge_puts_nodes_only_in_queried_aggregates():
    assert bench.parse_args(['--size', 'xlarge']).queried_aggregates_only
    assert not bench.parse_args([]).queried_aggregates_only
    assert not bench.parse_args(
        ['--size', 'xlarge', '--no-queried-aggregates-only']
    ).queried_aggregates_only


def test_claims_defaults_to_8_and_32_writers_on_the_large_set():
    args = bench_claims.parse_args(['--db', 'postgresql'])
    assert args.writers == [8, 32]
    assert args.providers == 10000
    assert args.server_url.startswith('postgresql')


def test_kept_and_reused_databases_need_a_server():
    for option in (['--keep-database'], ['--reuse-database', 'kept']):
        with pytest.raises(SystemExit):
            bench.parse_args(['--db', 'sqlite', *option])
    args = bench.parse_args(['--reuse-database', 'kept'])
    assert args.reuse_database == 'kept' and not args.keep_database


def test_the_load_has_its_own_server_shape():
    args = bench.parse_args([])
    assert (args.load_workers, args.load_server_threads,
            args.load_threads) == (4, 4, 16)
    assert (args.workers, args.threads) == (2, 8)
