"""GET /healthcheck: oslo.middleware's application with the database
backend, before authentication, with the ``[healthcheck]`` options."""

import json

import pytest
import webob

from placement import deploy
from placement import policy
from tests import database
from tests.functional import app

pytestmark = pytest.mark.db


def _check(application, method='GET', accept=None):
    headers = {'Accept': accept} if accept else {}
    req = webob.Request.blank('/healthcheck', method=method, headers=headers)
    return req.get_response(application)


def test_healthy_without_a_token(wsgi_stack):
    application, _db = wsgi_stack
    response = _check(application)
    assert response.status_int == 200
    assert response.text == 'OK'
    assert _check(application, 'HEAD').status_int == 204
    document = json.loads(_check(application, accept='application/json').body)
    assert document == {'detailed': False, 'reasons': ['OK']}


def test_drained_by_file_then_back(db_url, tmp_path):
    flag = tmp_path / 'drain'
    application, db = app.build_stack(
        db_url, healthcheck__backends=['placement_database',
                                       'disable_by_file'],
        healthcheck__disable_by_file_path=str(flag))
    try:
        assert _check(application).status_int == 200
        flag.touch()
        response = _check(application)
        assert response.status_int == 503
        assert response.text == 'OK\nDISABLED BY FILE'
        assert response.headers['Retry-After'] == '2'
        flag.unlink()
        response = _check(application)
        assert response.status_int == 200
        assert 'Retry-After' not in response.headers
        # The rest of the API is not affected by the drain.
        flag.touch()
        assert app.API(application, db).request(
            'GET', '/resource_providers').status_int == 200
    finally:
        db.dispose()


def test_unreachable_database_is_503_without_details():
    # Nothing listens on port 1 of the loopback: connections are refused.
    conf = database.make_conf('mysql+pymysql://root@127.0.0.1:1/placement',
                              api__auth_strategy='noauth2')
    application = deploy.build_stack(conf, None, policy.make_enforcer(conf))
    response = _check(application)
    assert response.status_int == 503
    assert response.text == 'DATABASE UNAVAILABLE'
    assert response.headers['Retry-After'] == '2'
    document = json.loads(_check(application, accept='application/json').body)
    assert document == {'detailed': False,
                        'reasons': ['DATABASE UNAVAILABLE']}


def test_detailed_names_the_failure_when_asked():
    conf = database.make_conf('mysql+pymysql://root@127.0.0.1:1/placement',
                              api__auth_strategy='noauth2',
                              healthcheck__detailed=True)
    application = deploy.build_stack(conf, None, policy.make_enforcer(conf))
    document = json.loads(_check(application, accept='application/json').body)
    [reason] = document['reasons']
    assert reason['reason'] == 'DATABASE UNAVAILABLE'
    assert reason['details'] == 'database unavailable'
    assert reason['class'] == 'HealthcheckResult'


def test_other_sources_fall_through_to_the_api(db_url):
    application, db = app.build_stack(
        db_url, healthcheck__allowed_source_ranges=['192.0.2.0/24'])
    try:
        req = webob.Request.blank('/healthcheck',
                                  environ={'REMOTE_ADDR': '198.51.100.7'})
        # Not a health answer: the API's, which needs a token.
        assert req.get_response(application).status_int == 401
        req = webob.Request.blank('/healthcheck',
                                  environ={'REMOTE_ADDR': '192.0.2.7'})
        assert req.get_response(application).status_int == 200
    finally:
        db.dispose()
