"""GET /metrics in-process: access, request and transaction counts, the
capacity gauges against the reports, the cache."""

import pytest
import webob

from placement.metrics import definitions
from tests.functional import app
from tests.functional import report_cloud
from tests.functional import scrape
from tools import report_data

pytestmark = pytest.mark.db


def _get(application, path, token='admin', **headers):
    if token is not None:
        headers['X-Auth-Token'] = token
    return webob.Request.blank(path, headers=headers).get_response(
        application)


def _scrape(application):
    response = _get(application, '/metrics')
    assert response.status_int == 200, response.text
    assert response.content_type == 'text/plain'
    assert 'version=' in response.headers['Content-Type']
    return scrape.samples(response.text)


def test_admin_and_service_tokens_only(wsgi_stack):
    application, _db = wsgi_stack
    assert _get(application, '/metrics', token=None).status_int == 401
    assert _get(application, '/metrics', token='user').status_int == 403
    assert _get(application, '/metrics', token='reader',
                **{'X-Roles': 'reader'}).status_int == 403
    assert _get(application, '/metrics', token='nova',
                **{'X-Roles': 'service'}).status_int == 200
    assert _get(application, '/metrics').status_int == 200


def test_off_is_404(db_url):
    application, db = app.build_stack(db_url, metrics__enabled=False)
    try:
        assert _get(application, '/metrics').status_int == 404
    finally:
        db.dispose()


_LIST = {'method': 'GET', 'route': '/resource_providers', 'status': '200'}
_SHOW_MISSING = {'method': 'GET', 'route': '/resource_providers/{uuid}',
                 'status': '404'}


def test_requests_are_counted_by_route_template(api):
    before = _scrape(api.app)
    for _ in range(3):
        assert api.request('GET', '/resource_providers').status_int == 200
    for name in ('a', 'b'):
        assert api.request(
            'GET', f'/resource_providers/{name}').status_int == 404
    assert _get(api.app, '/resource_providers', token=None).status_int == 401
    after = _scrape(api.app)

    def delta(name, **labels):
        return (scrape.value(after, name, **labels)
                - scrape.value(before, name, **labels))
    assert delta('placement_http_requests_total', **_LIST) == 3
    assert delta('placement_http_requests_total', **_SHOW_MISSING) == 2
    assert delta('placement_http_requests_total', method='GET',
                 route='/resource_providers', status='401') == 1
    assert delta('placement_http_request_duration_seconds_count',
                 **_LIST) == 3
    assert delta('placement_http_request_duration_seconds_bucket',
                 le='+Inf', **_LIST) == 3
    assert delta('placement_http_request_sql_seconds_count', **_LIST) == 3
    assert delta('placement_http_response_size_bytes_count', **_LIST) == 3
    # No raw path in any label.
    routes = {dict(labels).get('route') for labels in scrape.named(
        after, 'placement_http_requests_total')}
    assert not any('/a' == route[-2:] for route in routes)
    # Three list reads committed, two misses rolled back.
    assert delta('placement_db_transactions_total', access='read',
                 outcome='committed') >= 3
    assert delta('placement_db_transactions_total', access='read',
                 outcome='rolled_back') == 2
    # The scrape itself is the one request in flight.
    assert scrape.value(after, 'placement_http_requests_in_flight') >= 1


def test_a_series_is_found_once(api, monkeypatch):
    """prometheus_client's labels() (a lock and a look-up per metric) is
    asked once per method, route and status, not per request."""
    assert api.request('GET', '/resource_providers').status_int == 200
    asked = []
    real = definitions.REQUESTS.labels
    monkeypatch.setattr(definitions.REQUESTS, 'labels',
                        lambda *labels: asked.append(labels) or real(*labels))
    for _ in range(3):
        assert api.request('GET', '/resource_providers').status_int == 200
    assert api.request('GET', '/resource_providers/a').status_int == 404
    assert asked == [('GET', '/resource_providers/{uuid}', '404')]


def test_a_stale_generation_is_a_conflict(api):
    rp_uuid = api.provider()
    before = _scrape(api.app)
    response = api.request(
        'PUT', f'/resource_providers/{rp_uuid}/inventories',
        body={'inventories': {'VCPU': {'total': 1}},
              'resource_provider_generation': 99})
    assert response.status_int == 409
    after = _scrape(api.app)
    labels = {'access': 'write', 'outcome': 'conflict'}
    assert (scrape.value(after, 'placement_db_transactions_total', **labels)
            - scrape.value(before, 'placement_db_transactions_total',
                           **labels)) == 1


def test_candidate_requests_by_groups_and_limit(api):
    for _ in range(3):
        api.provider()
    before = _scrape(api.app)
    assert api.request(
        'GET', '/allocation_candidates?resources=VCPU:1&limit=2'
    ).status_int == 200
    assert api.request(
        'GET', '/allocation_candidates?resources=VCPU:1'
        '&resources1=MEMORY_MB:1&group_policy=none').status_int == 200
    after = _scrape(api.app)

    def delta(name, **labels):
        return (scrape.value(after, name, **labels)
                - scrape.value(before, name, **labels))
    assert delta('placement_allocation_candidates_requests_total',
                 groups='1', limited='true') == 1
    assert delta('placement_allocation_candidates_requests_total',
                 groups='2', limited='false') == 1
    assert delta('placement_allocation_candidates_returned_count') == 2
    # 2 candidates, then 3 of the 3 trees.
    assert delta('placement_allocation_candidates_returned_sum') == 5
    assert delta('placement_allocation_candidates_first_seconds_count') == 2


def test_capacity_gauges_are_the_reports(db_url):
    with report_data.serving(db_url) as application:
        found = _scrape(application)

        def get_json(path):
            return report_cloud.get_json(application, path)
        expected = {**scrape.exporter_expected(get_json),
                    **scrape.report_expected(
                        get_json('/reports/capacity'))}
    assert scrape.capacity_part(found) == expected
    assert scrape.value(found, 'openstack_placement_up') == 1
    assert ('placement_zone_capacity',
            (('availability_zone', 'az1'), ('resource_class', 'VCPU'),
             ('service', 'compute'))) in found


def _capacity_of(application, name):
    return scrape.value(_scrape(application),
                        'openstack_placement_resource_total',
                        hostname=name, resourcetype='VCPU')


@pytest.mark.parametrize('cache_time, seen', [(30, 0), (0, 8)])
def test_capacity_is_cached_for_the_configured_time(db_url, cache_time,
                                                     seen):
    application, db = app.build_stack(
        db_url, metrics__capacity_cache_time=cache_time)
    api = app.API(application, db)
    try:
        _scrape(application)
        rp_uuid = api.provider()
        assert _capacity_of(application, rp_uuid) == seen
    finally:
        db.dispose()


def test_per_provider_gauges_can_be_left_out(db_url):
    application, db = app.build_stack(db_url, metrics__per_provider=False)
    try:
        app.API(application, db).provider()
        found = _scrape(application)
        report = report_cloud.get_json(application, '/reports/capacity')
    finally:
        db.dispose()
    assert scrape.capacity_part(found) == scrape.report_expected(report)
    assert scrape.value(found, 'openstack_placement_up') == 1
