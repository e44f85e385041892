"""[profiler]: a request signed with one of ``hmac_keys`` is traced by
osprofiler, its SQL statements as child spans, stored in the machine's
Redis (127.0.0.1:6379) and read back with osprofiler's own driver."""

import uuid

import pytest
from osprofiler import profiler
from osprofiler import web
from osprofiler.drivers import base as drivers

from tests.functional import app

pytestmark = [pytest.mark.db, pytest.mark.redis]

_REDIS = 'redis://127.0.0.1:6379'
_KEY = 'SECRET_KEY'


@pytest.fixture
def traced_api(db_url):
    application, db = app.build_stack(
        db_url, profiler__enabled=True, profiler__hmac_keys=_KEY,
        profiler__connection_string=_REDIS, profiler__trace_sqlalchemy=True)
    try:
        yield app.API(application, db)
    finally:
        db.dispose()
        web.disable()


def _signed_headers(base_id, key=_KEY):
    """The trace headers a client profiling with ``key`` sends."""
    profiler.init(key, base_id=base_id, parent_id=base_id)
    try:
        trace = web.get_trace_id_headers()
    finally:
        profiler.clean()
    return {**trace, 'X-Auth-Token': 'admin',
            'OpenStack-API-Version': 'placement latest'}


def _spans(node):
    for child in node['children']:
        yield child
        yield from _spans(child)


def test_signed_request_is_traced_with_sql_spans(traced_api):
    rp_uuid = traced_api.provider()
    base_id = str(uuid.uuid4())
    response = traced_api.send(
        'GET', f'/resource_providers/{rp_uuid}/inventories',
        _signed_headers(base_id))
    assert response.status_int == 200
    report = drivers.get_driver(_REDIS).get_report(base_id)
    spans = list(_spans(report))
    [request] = [span for span in spans
                 if span['info']['name'] == 'wsgi']
    assert request['info']['meta.raw_payload.wsgi-start']['info'][
        'request']['path'] == f'/resource_providers/{rp_uuid}/inventories'
    statements = [span for span in _spans(request)
                  if span['info']['name'] == 'db']
    assert statements
    assert all('statement' in span['info']['meta.raw_payload.db-start'][
        'info']['db'] for span in statements)
    assert request['info']['project'] == 'placement'
    assert request['info']['service'] == 'placement-api'


@pytest.mark.parametrize('key', [None, 'WRONG_KEY'])
def test_unsigned_or_wrongly_signed_request_is_not_traced(traced_api, key):
    base_id = str(uuid.uuid4())
    headers = ({'X-Auth-Token': 'admin'} if key is None
               else _signed_headers(base_id, key))
    assert traced_api.send('GET', '/resource_providers',
                           headers).status_int == 200
    assert list(_spans(drivers.get_driver(_REDIS).get_report(base_id))) == []
