"""[placement] debug_timing: a Server-Timing header, only when asked."""

import re

from tests.functional import app

_PART = re.compile(r'(sql|serialise|app|total);dur=(\d+\.\d)')


def _candidates(api):
    api.provider()
    return api.request('GET', '/allocation_candidates?resources=VCPU:1')


def test_timing_splits_the_request_when_enabled(db_url):
    application, db = app.build_stack(db_url, placement__debug_timing=True)
    try:
        response = _candidates(app.API(application, db))
    finally:
        db.dispose()
    assert response.status_int == 200
    parts = {name: float(ms) for name, ms
             in _PART.findall(response.headers['Server-Timing'])}
    assert sorted(parts) == ['app', 'serialise', 'sql', 'total']
    assert parts['sql'] > 0
    assert parts['sql'] + parts['serialise'] <= parts['total'] + 0.1


def test_no_timing_by_default(api):
    response = _candidates(api)
    assert response.status_int == 200
    assert 'Server-Timing' not in response.headers
