"""Concurrent allocation writes never over-allocate and never fail with 500.

Many threads claim the same provider at once, through the in-process
WSGI stack and through a real multi-process server, and the outcome is
compared with what the provider can hold: exactly as many claims as fit
succeed, the others get a documented 409, and every acknowledged claim
is present afterwards.
"""

import uuid

import pytest

from tests.functional import app as app_client
from tests.functional import server
from tools import claim_checks as checks

pytestmark = pytest.mark.db


class InProcess:
    """The WSGI application, called from many threads."""

    def __init__(self, app):
        self.api = app_client.API(app, db=None)

    def request(self, method, path, body=None, version='latest'):
        """``(status, decoded body or None)``."""
        response = self.api.request(method, path, version, body)
        return response.status_int, (response.json if response.body
                                     else None)


@pytest.fixture
def in_process(wsgi_stack):
    return InProcess(wsgi_stack[0])


def test_claims_race_in_process(in_process):
    checks.check_claims_race(in_process)


def test_claims_race_against_server_processes(tmp_path):
    """Several worker processes (each with threads) serve the claims."""
    with server.running_server(tmp_path, workers=3, threads=4) as endpoint:
        checks.check_claims_race(checks.OverHTTP(endpoint))


def test_one_consumer_generation_one_winner(in_process):
    """Writers of one consumer at one generation: exactly one wins."""
    rp_uuid = checks.make_provider(in_process, {'VCPU': {'total': 100}})
    consumer = str(uuid.uuid4())
    status, body = in_process.request(
        'PUT', f'/allocations/{consumer}',
        checks.consumer_body(checks.claim(rp_uuid, {'VCPU': 1})))
    assert status == 204, body

    def put(amount):
        return in_process.request(
            'PUT', f'/allocations/{consumer}',
            checks.consumer_body(checks.claim(rp_uuid, {'VCPU': amount}),
                                 generation=1))

    results = checks.in_parallel(put, range(2, 10), workers=8)
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
    rp_uuid = checks.make_provider(in_process, {'VCPU': {'total': 100}})
    consumer = str(uuid.uuid4())

    def put(amount):
        return in_process.request(
            'PUT', f'/allocations/{consumer}',
            {'allocations': checks.claim(rp_uuid, {'VCPU': amount}),
             'project_id': 'p', 'user_id': 'u'}, version='1.27')

    results = checks.in_parallel(put, range(1, 9), workers=8)
    assert [status for status, _body in results] == [204] * 8, results
    status, body = in_process.request('GET', f'/allocations/{consumer}')
    assert body['consumer_generation'] == 8
    assert checks.usage(in_process, rp_uuid, 'VCPU') == (
        body['allocations'][rp_uuid]['resources']['VCPU'])


def test_new_consumer_created_twice_at_once(in_process):
    """Two creators of one consumer (generation null): one wins."""
    rp_uuid = checks.make_provider(in_process, {'VCPU': {'total': 100}})
    consumer = str(uuid.uuid4())

    def put(amount):
        return in_process.request(
            'PUT', f'/allocations/{consumer}',
            checks.consumer_body(checks.claim(rp_uuid, {'VCPU': amount})))

    results = checks.in_parallel(put, [1, 2, 3, 4], workers=4)
    assert sorted(status for status, _body in results) == [
        204, 409, 409, 409], results
    assert checks.usage(in_process, rp_uuid, 'VCPU') in {1, 2, 3, 4}


def test_batches_in_different_orders(in_process):
    checks.check_batches_in_different_orders(in_process)


@pytest.mark.parametrize('round_', range(5))
def test_shrink_races_a_claim(in_process, round_):
    """A shrink and a claim that each fit alone: exactly one wins.

    VCPU 10 with 6 used; shrinking to 7 fits, claiming 2 more fits, both
    together would leave 8 used of 7. Whichever commits first, the other
    sees it (stale generation, or capacity on the server-side retry) and
    usage never ends above capacity.
    """
    rp_uuid = checks.make_provider(in_process, {'VCPU': {'total': 10}})
    status, body = in_process.request(
        'PUT', f'/allocations/{uuid.uuid4()}',
        checks.consumer_body(checks.claim(rp_uuid, {'VCPU': 6})))
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
            checks.consumer_body(checks.claim(rp_uuid, {'VCPU': 2})))

    results = dict(zip(
        ['shrink', 'claim'],
        checks.in_parallel(write, ['shrink', 'claim'], workers=2),
        strict=True))
    won = {kind for kind, (status, _body) in results.items()
           if status in (200, 204)}
    assert len(won) == 1, results
    for status, body in results.values():
        checks.assert_documented(status, body)
    status, body = in_process.request(
        'GET', f'/resource_providers/{rp_uuid}/inventories/VCPU')
    assert body['total'] == (7 if won == {'shrink'} else 10)
    assert checks.usage(in_process, rp_uuid, 'VCPU') == (
        6 if won == {'shrink'} else 8)
