"""The inventories and traits of loaded trees kept by a worker
(placement.objects.provider_texts): read once, read again when a
provider's generation moves or its database is filled anew, bounded."""

import pytest

from placement import throwaway
from placement.db import standard_data
from placement.objects import provider_texts
from tests.functional import round_trips

pytestmark = pytest.mark.db

QUERY = '/allocation_candidates?resources=VCPU:2&required=CUSTOM_FAST'


def _ok(response):
    assert response.status_int < 300, response.text
    return response


def _capacities(api, query=QUERY):
    """``{provider uuid: VCPU capacity}`` of the candidates' summaries,
    and the statements the request ran."""
    with round_trips.RoundTrips(api.db.engine) as trips:
        found = _ok(api.request('GET', query)).json
    return ({rp: summary['resources']['VCPU']['capacity']
             for rp, summary in found['provider_summaries'].items()},
            trips.executed)


def _fast_provider(api, total, rp_uuid=None):
    """A provider of ``total`` VCPU with CUSTOM_FAST (its uuid)."""
    rp_uuid = api.provider({'VCPU': {'total': total}}, rp_uuid)
    _ok(api.request('PUT', f'/resource_providers/{rp_uuid}/traits', body={
        'traits': ['CUSTOM_FAST'], 'resource_provider_generation': 1}))
    return rp_uuid


@pytest.fixture
def fast(api):
    _ok(api.request('PUT', '/traits/CUSTOM_FAST'))
    return api, [_fast_provider(api, 4), _fast_provider(api, 8)]


def test_kept_until_an_inventory_changes(fast):
    api, (small, large) = fast
    assert _capacities(api) == ({small: 4, large: 8}, 4)
    assert _capacities(api) == ({small: 4, large: 8}, 3)
    _ok(api.request('PUT', f'/resource_providers/{small}/inventories/VCPU',
                    body={'total': 6, 'resource_provider_generation': 2}))
    # The provider whose generation moved is read again, alone.
    assert _capacities(api) == ({small: 6, large: 8}, 4)
    assert _capacities(api) == ({small: 6, large: 8}, 3)


def test_kept_until_the_traits_change(fast):
    api, (small, large) = fast
    assert _capacities(api)[0] == {small: 4, large: 8}
    _ok(api.request('PUT', f'/resource_providers/{large}/traits', body={
        'traits': [], 'resource_provider_generation': 2}))
    assert _capacities(api)[0] == {small: 4}
    _ok(api.request('PUT', f'/resource_providers/{large}/traits', body={
        'traits': ['CUSTOM_FAST', 'HW_CPU_X86_AVX2'],
        'resource_provider_generation': 3}))
    found = _ok(api.request('GET', QUERY)).json['provider_summaries']
    assert sorted(found[large]['traits']) == [
        'CUSTOM_FAST', 'HW_CPU_X86_AVX2']


def test_a_database_filled_anew_is_read_anew(fast):
    """Emptied under the running service and filled again, a provider
    of the same uuid (on SQLite the same id too: its row ids start
    again) at the same generation is another provider."""
    api, (small, _large) = fast
    assert _capacities(api)[0][small] == 4
    throwaway.empty(api.db.engine)
    standard_data.sync(api.db)
    _ok(api.request('PUT', '/traits/CUSTOM_FAST'))
    _fast_provider(api, 16, small)
    assert _capacities(api)[0] == {small: 16}


def test_bounded(fast, monkeypatch):
    """Past the bound, the half kept first goes: the providers of each
    request are read again, the answers the same."""
    api, (small, large) = fast
    monkeypatch.setattr(provider_texts, 'MOST_PROVIDERS', 2)
    third = _fast_provider(api, 2)
    expected = {small: 4, large: 8, third: 2}
    for _ in range(2):
        assert _capacities(api) == (expected, 4)
        assert len(provider_texts._BY_ENGINE[api.db.engine]) == 1
