"""Concurrent allocation writes never over-allocate and never fail with 500.

Many threads claim the same provider at once, through the in-process
WSGI stack and through a real multi-process server, and the outcome is
compared with what the provider can hold: exactly as many claims as fit
succeed, the others get a documented 409, and every acknowledged claim
is present afterwards.
"""

import concurrent.futures
import random
import uuid

import pytest
import requests

from tests.functional import app as app_client
from tests.functional import server

pytestmark = pytest.mark.db

CAPACITY = 10
CLAIMS = 16
CONFLICT_CODES = {'placement.concurrent_update', 'placement.undefined_code'}


class InProcess:
    """The WSGI application, called from many threads."""

    def __init__(self, app):
        self.api = app_client.API(app, db=None)

    def request(self, method, path, body=None, version='latest'):
        """``(status, decoded body or None)``."""
        response = self.api.request(method, path, version, body)
        return response.status_int, (response.json if response.body
                                     else None)


class OverHTTP:
    """A placement-api server over HTTP."""

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def request(self, method, path, body=None):
        response = requests.request(
            method, self.endpoint + path, json=body, timeout=120,
            headers={'x-auth-token': 'admin',
                     'openstack-api-version': 'placement latest'})
        return response.status_code, (response.json() if response.content
                                      else None)


@pytest.fixture
def in_process(wsgi_stack):
    return InProcess(wsgi_stack[0])


def make_provider(api, inventories):
    """A new provider with ``inventories``; its uuid."""
    rp_uuid = str(uuid.uuid4())
    status, body = api.request('POST', '/resource_providers',
                               {'name': rp_uuid, 'uuid': rp_uuid})
    assert status == 200, body
    status, body = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories',
        {'inventories': inventories, 'resource_provider_generation': 0})
    assert status == 200, body
    return rp_uuid


def consumer_body(allocations, generation=None):
    return {'allocations': allocations, 'project_id': 'p',
            'user_id': 'u', 'consumer_generation': generation,
            'consumer_type': 'INSTANCE'}


def claim(rp_uuid, resources):
    return {rp_uuid: {'resources': resources}}


def assert_documented(status, body):
    """2xx, or a 409 with a documented code; never anything else."""
    if status >= 300:
        assert status == 409, body
        assert body['errors'][0]['code'] in CONFLICT_CODES, body


def in_parallel(function, arguments, workers=CLAIMS):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, arguments))


def provider_allocations(api, rp_uuid):
    status, body = api.request(
        'GET', f'/resource_providers/{rp_uuid}/allocations')
    assert status == 200, body
    return body['allocations']


def usage(api, rp_uuid, class_name):
    status, body = api.request('GET', f'/resource_providers/{rp_uuid}/usages')
    assert status == 200, body
    return body['usages'][class_name]


def check_claims_race(api):
    """CLAIMS new consumers each claim VCPU:1 of CAPACITY at once."""
    rp_uuid = make_provider(api, {'VCPU': {'total': CAPACITY}})

    def put(consumer):
        return api.request('PUT', f'/allocations/{consumer}',
                           consumer_body(claim(rp_uuid, {'VCPU': 1})))

    consumers = [str(uuid.uuid4()) for _ in range(CLAIMS)]
    results = dict(zip(consumers, in_parallel(put, consumers), strict=True))
    for status, body in results.values():
        assert_documented(status, body)
    won = {consumer for consumer, (status, _body) in results.items()
           if status == 204}
    assert len(won) == CAPACITY, results
    assert usage(api, rp_uuid, 'VCPU') == CAPACITY
    allocations = provider_allocations(api, rp_uuid)
    assert set(allocations) == won
    assert all(entry['resources'] == {'VCPU': 1}
               for entry in allocations.values())


def test_claims_race_in_process(in_process):
    check_claims_race(in_process)


def test_claims_race_against_server_processes(tmp_path):
    """Several worker processes (each with threads) serve the claims."""
    with server.running_server(tmp_path, workers=3, threads=4) as endpoint:
        check_claims_race(OverHTTP(endpoint))


def test_one_consumer_generation_one_winner(in_process):
    """Writers of one consumer at one generation: exactly one wins."""
    rp_uuid = make_provider(in_process, {'VCPU': {'total': 100}})
    consumer = str(uuid.uuid4())
    status, body = in_process.request(
        'PUT', f'/allocations/{consumer}',
        consumer_body(claim(rp_uuid, {'VCPU': 1})))
    assert status == 204, body

    def put(amount):
        return in_process.request(
            'PUT', f'/allocations/{consumer}',
            consumer_body(claim(rp_uuid, {'VCPU': amount}), generation=1))

    results = in_parallel(put, range(2, 10), workers=8)
    winners = [amount for amount, (status, _body)
               in zip(range(2, 10), results, strict=True) if status == 204]
    assert len(winners) == 1, results
    for status, body in results:
        if status != 204:
            assert status == 409, body
            assert body['errors'][0]['code'] == 'placement.concurrent_update'
    status, body = in_process.request('GET', f'/allocations/{consumer}')
    assert body['consumer_generation'] == 2
    assert body['allocations'][rp_uuid]['resources'] == {
        'VCPU': winners[0]}


def test_without_consumer_generations_every_writer_wins(in_process):
    """Before 1.28 the server retries consumer conflicts: all succeed."""
    rp_uuid = make_provider(in_process, {'VCPU': {'total': 100}})
    consumer = str(uuid.uuid4())

    def put(amount):
        return in_process.request(
            'PUT', f'/allocations/{consumer}',
            {'allocations': claim(rp_uuid, {'VCPU': amount}),
             'project_id': 'p', 'user_id': 'u'}, version='1.27')

    results = in_parallel(put, range(1, 9), workers=8)
    assert [status for status, _body in results] == [204] * 8, results
    status, body = in_process.request('GET', f'/allocations/{consumer}')
    assert body['consumer_generation'] == 8
    assert usage(in_process, rp_uuid, 'VCPU') == (
        body['allocations'][rp_uuid]['resources']['VCPU'])


def test_new_consumer_created_twice_at_once(in_process):
    """Two creators of one consumer (generation null): one wins."""
    rp_uuid = make_provider(in_process, {'VCPU': {'total': 100}})
    consumer = str(uuid.uuid4())

    def put(amount):
        return in_process.request(
            'PUT', f'/allocations/{consumer}',
            consumer_body(claim(rp_uuid, {'VCPU': amount})))

    results = in_parallel(put, [1, 2, 3, 4], workers=4)
    assert sorted(status for status, _body in results) == [
        204, 409, 409, 409], results
    assert usage(in_process, rp_uuid, 'VCPU') in {1, 2, 3, 4}


def test_batches_in_different_orders(in_process):
    """POST /allocations batches over shared providers: no 500, no loss.

    Each batch claims, for many new consumers, from several providers
    listed in a different order; whatever succeeds is all there.
    """
    providers = [make_provider(in_process, {'VCPU': {'total': 1000},
                                            'MEMORY_MB': {'total': 100000}})
                 for _ in range(3)]

    def post(seed):
        order = random.Random(seed).sample(providers, len(providers))
        batch = {
            str(uuid.uuid4()): consumer_body({
                rp_uuid: {'resources': {'VCPU': 1, 'MEMORY_MB': 64}}
                for rp_uuid in order})
            for _ in range(100)}
        status, body = in_process.request('POST', '/allocations', batch)
        return batch, status, body

    results = in_parallel(post, range(4), workers=4)
    written = set()
    for batch, status, body in results:
        assert_documented(status, body)
        if status == 204:
            written.update(batch)
    assert written
    for rp_uuid in providers:
        assert set(provider_allocations(in_process, rp_uuid)) == written
        assert usage(in_process, rp_uuid, 'VCPU') == len(written)


@pytest.mark.parametrize('round_', range(5))
def test_shrink_races_a_claim(in_process, round_):
    """A shrink and a claim that each fit alone: exactly one wins.

    VCPU 10 with 6 used; shrinking to 7 fits, claiming 2 more fits, both
    together would leave 8 used of 7. Whichever commits first, the other
    sees it (stale generation, or capacity on the server-side retry) and
    usage never ends above capacity.
    """
    rp_uuid = make_provider(in_process, {'VCPU': {'total': 10}})
    status, body = in_process.request(
        'PUT', f'/allocations/{uuid.uuid4()}',
        consumer_body(claim(rp_uuid, {'VCPU': 6})))
    assert status == 204, body
    status, body = in_process.request(
        'GET', f'/resource_providers/{rp_uuid}')
    generation = body['generation']

    def write(kind):
        if kind == 'shrink':
            return in_process.request(
                'PUT', f'/resource_providers/{rp_uuid}/inventories/VCPU',
                {'total': 7, 'resource_provider_generation': generation})
        return in_process.request(
            'PUT', f'/allocations/{uuid.uuid4()}',
            consumer_body(claim(rp_uuid, {'VCPU': 2})))

    results = dict(zip(['shrink', 'claim'],
                       in_parallel(write, ['shrink', 'claim'], workers=2),
                       strict=True))
    won = {kind for kind, (status, _body) in results.items()
           if status in (200, 204)}
    assert len(won) == 1, results
    for status, body in results.values():
        assert_documented(status, body)
    status, body = in_process.request(
        'GET', f'/resource_providers/{rp_uuid}/inventories/VCPU')
    assert body['total'] == (7 if won == {'shrink'} else 10)
    assert usage(in_process, rp_uuid, 'VCPU') == (
        6 if won == {'shrink'} else 8)
