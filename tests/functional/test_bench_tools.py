"""The benchmark tools run end to end (on SQLite, a tiny data set).

Their figures are not asserted (performance is measured, not tested);
this keeps the tools working as the code under them changes.
"""

import json
import socket
import threading

import pytest

from placement.reports import audit
from tests import database
from tools import bench_allocation_candidates as bench
from tools import bench_audit
from tools import bench_claims
from tools import bench_cloud
from tools import bench_cpu
from tools import bench_fixed_cost
from tools import bench_kills
from tools import bench_loading
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
    # Every compute root is nova's: root_required=OWNER_NOVA drops none.
    assert by_query['nova 2026.2 flat resources-only limit=1000'][
        'candidates'] == by_query['flat resources-only limit=1000'][
            'candidates']
    assert by_query['nova 2026.2 nested same_subtree limit=10'][
        'candidates'] == by_query['nested granular same_subtree limit=10'][
            'candidates'] > 0
    assert all(row['median_ms'] > 0 for row in rows)


@pytest.mark.db
def test_cpu_benchmark_answers_in_process(tmp_path):
    """The in-process stack answers on a database as it is (here the
    test database: its fixed-cost requests need no data)."""
    out = tmp_path / 'cpu.json'
    assert bench_cpu.main([database.database_url(), '--query', 'fixed cost',
                           '--repetitions', '2', '--warmups', '0',
                           '--json', str(out)]) == 0
    rows = json.loads(out.read_text())['results']
    assert [row['query'] for row in rows] == [
        name for name, _path in bench_cpu.FIXED_COST]
    assert all(row['bytes'] > 0 and row['cpu_ms'] >= 0 for row in rows)


def test_claims_benchmark_claims_without_over_allocation(tmp_path):
    out = tmp_path / 'claims.json'
    assert bench_claims.main(TINY + ['--writers', '2', '--claims', '20',
                                     '--hot-providers', '10',
                                     '--json', str(out)]) == 0
    result = json.loads(out.read_text())
    assert result['over_allocated'] == 0
    assert result['results'][0]['claimed'] > 0


def test_cloud_simulation_reports_every_operation(tmp_path):
    """A few seconds of a tiny cloud: every kind of request is sent and
    answered without a 5xx, and nothing is over-allocated."""
    out = tmp_path / 'cloud.json'
    assert bench_cloud.main([
        '--db', 'sqlite', '--computes', '30', '--aggregates', '3',
        '--rate', '5', '--seconds', '8', '--calibrate', '3',
        '--inventory-change-percent', '100', '--migration-ratio', '0.5',
        '--workers', '1', '--load-workers', '1', '--load-threads', '2',
        '--client-threads', '4', '--json', str(out)]) == 0
    result = json.loads(out.read_text())
    assert (result['computes'], result['providers']) == (30, 42)
    assert result['over_allocated'] == 0
    assert set(result['calibration']) >= {
        'GET /allocation_candidates', 'GET /allocation_candidates +PCI',
        'PUT /allocations/{consumer}'}
    [window] = result['windows']
    rows = {row['operation']: row for row in window['operations']}
    # One boot in ten asks a PCI device: 40 boots may have none.
    assert set(rows) - {'GET /allocation_candidates +PCI'} == {
        'GET .../allocations', 'GET .../inventories', 'PUT .../inventories',
        'GET .../aggregates', 'GET .../traits',
        'GET /resource_providers?in_tree',
        'GET /resource_providers?member_of&required',
        'GET /allocation_candidates', 'PUT /allocations/{consumer}',
        'DELETE /allocations/{consumer}', 'GET /allocations/{consumer}',
        'POST /allocations'}
    assert all(row['errors_5xx'] == row['failed_other'] == 0
               and row['p99_ms'] >= row['p50_ms'] > 0
               for row in rows.values())
    assert window['service_cpu_ms'] > 0


def test_cloud_client_sends_again_what_an_idle_close_refused():
    """A server that closes each kept-alive connection after its answer
    (as placement-api does past its keep-alive timeout): the cloud's
    client sends the next request again, once, on a new connection."""
    listener = socket.create_server(('127.0.0.1', 0))
    accepted = []

    def serve():
        for _ in range(2):
            conn, _address = listener.accept()
            accepted.append(conn)
            conn.recv(65536)
            conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}')
            conn.close()
    server = threading.Thread(target=serve)
    server.start()
    stats = bench_cloud.Stats()
    api = bench_cloud.Api(
        f'http://127.0.0.1:{listener.getsockname()[1]}', stats)
    try:
        assert [api.send('GET /', 'GET', '/') for _ in range(2)] == [
            (200, {}), (200, {})]
    finally:
        server.join(timeout=10)
        listener.close()
    assert len(accepted) == 2


@pytest.mark.db
def test_kills_benchmark_reads_while_sessions_end(tmp_path):
    """A few seconds of reads while a session of the service ends every
    0.2 s: every answer a 200 (the tool exits 1 otherwise), sessions
    ended, the percentiles in order."""
    if not database.backend_url():
        pytest.skip('SQLite has no session of another client to end')
    out = tmp_path / 'kills.json'
    assert bench_kills.main([
        '--database-url', database.backend_url(), '--computes', '20',
        '--aggregates', '2', '--clients', '3', '--seconds', '3',
        '--every', '0.2', '--rounds', '1', '--workers', '1',
        '--threads', '4', '--json', str(out)]) == 0
    [figures] = json.loads(out.read_text())['rounds']['this']
    assert figures['ended'] > 0
    assert figures['statuses'] == {'200': figures['requests']}
    assert (0 < figures['p50_ms'] <= figures['p90_ms'] <= figures['p99_ms']
            <= figures['max_ms'])


def test_fixed_cost_benchmark_measures_every_small_request(tmp_path):
    """Both checkouts' rounds (here the same code) through a server,
    with idle kept-alive connections open meanwhile."""
    out = tmp_path / 'fixed.json'
    assert bench_fixed_cost.main([
        '--db', 'sqlite', '--computes', '10', '--requests', '4',
        '--rounds', '1', '--clients', '2', '--workers', '1',
        '--threads', '2', '--before', '.', '--idle-connections', '3',
        '--json', str(out)]) == 0
    medians = json.loads(out.read_text())['medians']
    assert set(medians) == {
        'GET .../allocations', 'GET .../inventories', 'GET .../aggregates',
        'GET .../traits', 'GET /resource_providers?in_tree',
        'GET /resource_providers?member_of&required',
        'PUT /allocations/{consumer}', 'GET /allocations/{consumer}',
        'DELETE /allocations/{consumer}'}
    assert all(set(row) == {'before', 'this'} and min(row.values()) >= 0
               for row in medians.values())


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


def test_audit_benchmark_plants_one_of_each_finding_per_thousand(db):
    """What tools/bench_audit.py plants is what the audit finds, so that
    its timings are of the audit that finds something."""
    providers, consumers, live = db.write(bench_audit.plant, 2000)
    assert (providers, consumers) == (2400, 4000)
    findings = db.read(audit.report, live)['audit']['findings']
    counts = {name: found['count'] for name, found in findings.items()}
    assert counts == {
        'over_capacity': 2, 'allocations_without_inventory': 2,
        'inventories_without_provider_or_class': 2,
        # One consumer in ten is a migration holding two nodes; two of
        # those hold a node whose root is gone (counted there).
        'consumers_in_several_trees': 398,
        'consumers_without_allocations': 2, 'allocations_without_consumer': 2,
        'consumers_without_project': 0, 'consumers_without_user': 0,
        'providers_without_root': 2, 'providers_with_wrong_root': 2,
        'providers_with_parent_in_other_tree': 2,
        'providers_with_broken_parent_chain': 0,
        'aggregate_links_without_provider_or_aggregate': 2,
        # One consumer in a thousand left out of the list, and the two
        # allocations without a consumer record.
        'orphaned_allocations': 6}


def test_loading_benchmark_measures_every_write(tmp_path):
    """Both checkouts' rounds (here the same code) in process at two
    sizes, then a load through a server."""
    out = tmp_path / 'loading.json'
    assert bench_loading.main([
        '--db', 'sqlite', '--sizes', '0,30', '--requests', '3',
        '--rounds', '1', '--before', '.', '--load', '45', '--workers', '1',
        '--threads', '2', '--load-threads', '2', '--json', str(out)]) == 0
    results = json.loads(out.read_text())
    assert set(results['in_process']) == {'0', '30'}
    for writes in results['in_process'].values():
        assert set(writes) == set(bench_loading.WRITES)
        for checkouts in writes.values():
            assert set(checkouts) == {'before', 'this'}
            assert all(row['statements'] >= 2 and row['transactions'] == 1
                       for row in checkouts.values())
    [step] = results['load']
    assert step['providers'] == 45 and step['rate'] > 0
