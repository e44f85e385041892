"""The benchmark tools run end to end (on SQLite, a tiny data set).

Their figures are not asserted (performance is measured, not tested);
this keeps the tools working as the code under them changes.
"""

import json

from tools import bench_allocation_candidates as bench
from tools import bench_claims
from tools import bench_slow_clients

TINY = ['--db', 'sqlite', '--providers', '30', '--trees', '2',
        '--aggregates', '4', '--member-of', '2', '--sharing', '2',
        '--workers', '1', '--threads', '2', '--load-workers', '1',
        '--load-server-threads', '2', '--load-threads', '2']


def test_candidates_benchmark_measures_every_query(tmp_path):
    out = tmp_path / 'bench.json'
    assert bench.main(TINY + ['--repetitions', '1', '--warmups', '0',
                              '--json', str(out)]) == 0
    result = json.loads(out.read_text())
    assert result['cpython_loop_ms'] > 0
    rows = result['results']
    by_query = {row['query']: row for row in rows}
    assert by_query['flat resources-only limit=1000']['candidates'] > 0
    assert all(row['median_ms'] > 0 for row in rows)


def test_claims_benchmark_claims_without_over_allocation(tmp_path):
    out = tmp_path / 'claims.json'
    assert bench_claims.main(TINY + ['--writers', '2', '--claims', '20',
                                     '--hot-providers', '10',
                                     '--json', str(out)]) == 0
    result = json.loads(out.read_text())
    assert result['over_allocated'] == 0
    assert result['results'][0]['claimed'] > 0


def test_slow_clients_benchmark_measures_every_kind(tmp_path):
    out = tmp_path / 'slow.json'
    assert bench_slow_clients.main([
        '--stalled', '3', '--seconds', '2', '--wrk-seconds', '1',
        '--workers', '1', '--threads', '2',
        '--server-arg=--header-timeout=1', '--json', str(out)]) == 0
    result = json.loads(out.read_text())['this']
    assert [row['kind'] for row in result['stalled']] == list(
        bench_slow_clients.STALLS)
    assert all(row['stalled'] == 3 and row['probes'] > 0
               for row in result['stalled'])
