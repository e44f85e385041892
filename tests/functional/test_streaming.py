"""Streamed answers (``[api] stream_above_bytes``): the same JSON bytes
as answered whole, at every microversion; what a failure after the first
byte does; placement-api's servers (waitress in gunicorn's workers,
chunked) and a plain WSGI server (wsgiref, as mod_wsgi would) stream.
"""

import gc
import http.client
import random
import re
import threading
import urllib.parse
import uuid
import wsgiref.simple_server
import wsgiref.util

import orjson
import pytest

from placement import util
from placement.handlers import allocation_candidate as candidate_handler
from placement.metrics import definitions
from tests import processes
from tests.functional import app
from tests.functional import server as api_server

pytestmark = pytest.mark.db

VERSIONS = ('1.10', '1.12', '1.17', '1.27', '1.29', '1.34', 'latest')
AGGREGATE = str(uuid.uuid4())
#: The queries, from the first of VERSIONS each is valid at.
QUERIES = (('1.10', 'resources=VCPU:1'),
           ('1.10', 'resources=VCPU:1,DISK_GB:10'),
           ('1.10', 'resources=VCPU:1,SRIOV_NET_VF:1'),
           ('1.17', 'resources=MEMORY_MB:256&required=HW_CPU_X86_AVX'),
           ('1.29', 'resources1=VCPU:1&resources2=SRIOV_NET_VF:1'
                    '&group_policy=none'),
           ('1.29', 'resources1=SRIOV_NET_VF:1&resources2=SRIOV_NET_VF:1'
                    '&group_policy=isolate'))


@pytest.fixture
def stacks(db_url):
    """``(API answering whole, API streaming every answer)`` on one
    database."""
    whole, whole_db = app.build_stack(db_url)
    streamed, streamed_db = app.build_stack(
        db_url, api__stream_above_bytes=0)
    try:
        yield app.API(whole, whole_db), app.API(streamed, streamed_db)
    finally:
        whole_db.dispose()
        streamed_db.dispose()


def _provider(api, inventories, parent=None, traits=(), aggregates=()):
    rp_uuid = str(uuid.uuid4())
    body = {'name': rp_uuid, 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    path = f'/resource_providers/{rp_uuid}'
    generation = api.request('POST', '/resource_providers', body=body).json[
        'generation']
    for part, data in (('inventories', {'inventories': inventories}),
                       ('traits', {'traits': list(traits)}),
                       ('aggregates', {'aggregates': list(aggregates)})):
        response = api.request('PUT', f'{path}/{part}', body={
            **data, 'resource_provider_generation': generation})
        assert response.status_int == 200, response.text
        generation = response.json['resource_provider_generation']
    return rp_uuid


def _random_world(api, seed):
    """Roots with random children, inventories, traits and a sharing
    provider in an aggregate with some of them."""
    chance = random.Random(seed)
    _provider(api, {'DISK_GB': {'total': 500}},
              traits=['MISC_SHARES_VIA_AGGREGATE'], aggregates=[AGGREGATE])
    for _ in range(chance.randint(2, 5)):
        root = _provider(
            api, {'VCPU': {'total': chance.randint(1, 8)},
                  'MEMORY_MB': {'total': chance.choice([128, 1024])}},
            traits=chance.sample(['HW_CPU_X86_AVX', 'HW_CPU_X86_SSE'],
                                 chance.randint(0, 2)),
            aggregates=[AGGREGATE] if chance.random() < 0.5 else [])
        for _ in range(chance.randint(0, 3)):
            _provider(api, {'SRIOV_NET_VF': {'total': chance.randint(1, 4)}},
                      parent=root)


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_streamed_bytes_are_the_whole_bytes(stacks, monkeypatch, seed):
    # Many chunks: a few candidates or summaries each.
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    whole, streamed = stacks
    _random_world(whole, seed)
    compared = 0
    for number, version in enumerate(VERSIONS):
        for query in (query for first, query in QUERIES
                      if first in VERSIONS[:number + 1]):
            path = f'/allocation_candidates?{query}'
            expected = whole.request('GET', path, version)
            answered = streamed.request('GET', path, version)
            assert expected.status_int == answered.status_int == 200
            assert expected.content_length == len(expected.body)
            assert answered.content_length is None
            assert answered.body == expected.body, (version, query)
            assert (answered.headers.get('cache-control')
                    == expected.headers.get('cache-control'))
            compared += len(expected.json['allocation_requests'])
    assert compared


def test_providers_and_reports_stream_alike(stacks):
    whole, streamed = stacks
    _random_world(whole, 4)
    for path in ('/resource_providers', '/reports/capacity?detail',
                 '/reports/usage'):
        expected = whole.request('GET', path)
        answered = streamed.request('GET', path)
        assert expected.status_int == answered.status_int == 200, path
        assert answered.content_length is None
        assert _unscraped(answered.body) == _unscraped(expected.body), path


def _unscraped(body):
    """``body`` without the reports' times of reading (now)."""
    return re.sub(rb'"((min|max)_)?scraped_at":\d+', b'', body)


#: Providers of :func:`_allocated_cloud`, each with two consumers.
PROVIDERS = 6
#: The reports whose answers grow with the cloud: each in pieces.
GROWING_REPORTS = ('/reports/capacity?detail', '/reports/usage',
                   '/reports/usage?sort=VCPU', '/reports/usage/p0?detail')


def _allocated_cloud(api):
    """``PROVIDERS`` providers, two consumers each, of three projects."""
    for number in range(PROVIDERS):
        rp_uuid = _provider(api, {'VCPU': {'total': 8},
                                  'DISK_GB': {'total': 100}})
        for slot in range(2):
            response = api.request(
                'PUT', f'/allocations/{uuid.uuid4()}', body={
                    'allocations': {rp_uuid: {'resources': {
                        'VCPU': 1 + slot, 'DISK_GB': 10}}},
                    'project_id': f'p{(2 * number + slot) % 3}',
                    'user_id': 'u', 'consumer_generation': None,
                    'consumer_type': 'INSTANCE'})
            assert response.status_int == 204, response.text


@pytest.mark.parametrize('path', GROWING_REPORTS)
def test_a_growing_report_is_made_in_pieces(stacks, monkeypatch, path):
    """The body leaves the application a few entries (providers,
    projects, consumers) at a time, as the server sends it, never made
    whole; put together it is the JSON of the answer made whole."""
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 1)
    whole, streamed = stacks
    _allocated_cloud(whole)
    expected = whole.request('GET', path)
    assert expected.status_int == 200
    started = []
    body = streamed.app(_environ(path), lambda status, headers,
                        exc_info=None: started.append((status, headers)))
    try:
        pieces = list(body)
    finally:
        body.close()
    [(status, headers)] = started
    assert status == '200 OK'
    assert 'content-length' not in {name.lower() for name, _ in headers}
    assert len(pieces) >= 3, pieces
    assert (_unscraped(b''.join(pieces)) == _unscraped(expected.body))


def test_a_small_answer_keeps_its_content_length(stacks):
    whole, _streamed = stacks
    _random_world(whole, 5)
    response = whole.request('GET', '/allocation_candidates?resources=VCPU:1')
    assert response.content_length == len(response.body)


@pytest.mark.parametrize('token, path, status', [
    # The query string is checked before anything is made...
    ('admin', '/allocation_candidates?resources=VCPU:x', 400),
    ('admin', '/reports/capacity?bogus=1', 400),
    # ...and so is the policy.
    ('user', '/allocation_candidates?resources=VCPU:1', 403),
    ('user', '/reports/capacity', 403),
])
def test_refusals_are_whole_error_documents(stacks, token, path, status):
    """With every answer streamed, a refused request is still answered
    by a whole JSON error document: the checks come before the first
    byte."""
    _whole, streamed = stacks
    response = streamed.send('GET', path, {
        'x-auth-token': token, 'accept': 'application/json',
        'openstack-api-version': 'placement latest'})
    assert response.status_int == status
    assert response.content_length == len(response.body)
    [error] = orjson.loads(response.body)['errors']
    assert error['status'] == status


def _failing_summary(*args):
    raise RuntimeError('lost after the first byte')


def _environ(path):
    environ = {}
    wsgiref.util.setup_testing_defaults(environ)
    path, _, query = path.partition('?')
    environ.update(PATH_INFO=path, QUERY_STRING=query,
                   HTTP_X_AUTH_TOKEN='admin',
                   HTTP_OPENSTACK_API_VERSION='placement latest')
    return environ


def test_a_failure_after_the_first_byte_cuts_the_body(
        stacks, monkeypatch, caplog):
    """The status line is gone: the body fails, is counted and logged,
    and what the server holds for it (the pause of the collector) is
    released when it is closed."""
    whole, streamed = stacks
    _random_world(whole, 6)
    monkeypatch.setattr(candidate_handler, '_summary', _failing_summary)
    started = []
    cut = definitions.RESPONSES_CUT._value.get()
    gc_was = gc.isenabled()
    body = streamed.app(
        _environ('/allocation_candidates?resources=VCPU:1'),
        lambda status, headers, exc_info=None: started.append(status))
    assert started == ['200 OK']
    received = []
    with pytest.raises(RuntimeError, match='lost after the first byte'):
        for chunk in body:
            received.append(chunk)
    body.close()
    assert received and b'"allocation_requests"' in received[0]
    assert definitions.RESPONSES_CUT._value.get() == cut + 1
    assert 'failed after its first byte' in caplog.text
    assert gc.isenabled() == gc_was


@pytest.fixture
def wsgiref_server(stacks):
    """``(whole API, port)``: the streaming stack under wsgiref."""
    whole, streamed = stacks
    server = wsgiref.simple_server.make_server(
        '127.0.0.1', 0, streamed.app,
        handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield whole, server.server_port
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass


def _get(port, path):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    try:
        connection.request('GET', path, headers={
            'x-auth-token': 'admin',
            'openstack-api-version': 'placement latest'})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def test_a_plain_wsgi_server_streams(wsgiref_server, monkeypatch):
    monkeypatch.setattr(util, 'CHUNK_ITEMS', 2)
    whole, port = wsgiref_server
    _random_world(whole, 7)
    path = '/allocation_candidates?resources=VCPU:1'
    status, headers, body = _get(port, path)
    assert status == 200
    assert headers['content-length'] is None
    assert body == whole.request('GET', path).body


def test_a_plain_wsgi_server_cuts_a_failed_body(wsgiref_server, monkeypatch):
    whole, port = wsgiref_server
    _random_world(whole, 8)
    monkeypatch.setattr(candidate_handler, '_summary', _failing_summary)
    status, _headers, body = _get(
        port, '/allocation_candidates?resources=VCPU:1')
    assert status == 200
    assert body.startswith(b'{"allocation_requests":[')
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(body)


def test_a_streamed_size_is_measured_once_sent(stacks):
    whole, streamed = stacks
    _random_world(whole, 9)
    sizes = definitions.RESPONSE_BYTES.labels(
        'GET', '/allocation_candidates', '200')
    before = sizes._sum.get()
    body = streamed.app(_environ('/allocation_candidates?resources=VCPU:1'),
                        lambda status, headers, exc_info=None: None)
    sent = b''.join(body)
    assert sizes._sum.get() == before
    body.close()
    assert sizes._sum.get() == before + len(sent)


def test_placement_api_streams_chunked(tmp_path):
    """gunicorn's workers (waitress) send a streamed answer chunked, and
    keep the connection alive for the next request."""
    with api_server.running_server(
            tmp_path, extra_conf='[api]\nstream_above_bytes = 0\n') as url:
        address = urllib.parse.urlsplit(url)
        answers = processes.answers_on_one_connection(
            address.hostname, address.port, '/resource_providers',
            headers={'x-auth-token': 'admin'})
    for response, body in answers:
        assert response.status == 200
        assert response.headers['transfer-encoding'] == 'chunked'
        assert response.headers['content-length'] is None
        assert response.headers['connection'] is None
        assert orjson.loads(body) == {'resource_providers': []}
