"""Concurrent claims against a placement API: what must hold.

Many clients claim the same providers at once; exactly as many claims as
fit succeed, the others get a documented 409, never a 500, and every
acknowledged claim is present afterwards. An API is anything with
``request(method, path, body=None)`` returning ``(status, decoded body
or None)``: :class:`OverHTTP` for a server, the tests' in-process
client, ``tools/galera_claims.py``'s client of a cluster's nodes.
"""

import concurrent.futures
import random
import uuid

import requests

CAPACITY = 10
CLAIMS = 16
CONFLICT_CODES = {'placement.concurrent_update', 'placement.undefined_code'}


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


def check_batches_in_different_orders(api):
    """POST /allocations batches over shared providers: no 500, no loss.

    Each batch claims, for many new consumers, from several providers
    listed in a different order; whatever succeeds is all there.
    """
    providers = [make_provider(api, {'VCPU': {'total': 1000},
                                            'MEMORY_MB': {'total': 100000}})
                 for _ in range(3)]

    def post(seed):
        order = random.Random(seed).sample(providers, len(providers))
        batch = {
            str(uuid.uuid4()): consumer_body({
                rp_uuid: {'resources': {'VCPU': 1, 'MEMORY_MB': 64}}
                for rp_uuid in order})
            for _ in range(100)}
        status, body = api.request('POST', '/allocations', batch)
        return batch, status, body

    results = in_parallel(post, range(4), workers=4)
    written = set()
    for batch, status, body in results:
        assert_documented(status, body)
        if status == 204:
            written.update(batch)
    assert written
    for rp_uuid in providers:
        assert set(provider_allocations(api, rp_uuid)) == written
        assert usage(api, rp_uuid, 'VCPU') == len(written)
