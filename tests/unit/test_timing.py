"""[placement] debug_timing counts the fetching of a streamed result,
which happens after the statement's cursor events, as sql."""

import re
import time
import types

from placement import timing


def _streamed():
    """Batches of a streamed result, each taking 10 ms to fetch."""
    for batch in ([1, 2], [3]):
        time.sleep(0.01)
        yield batch


def _timed(application):
    """The rows ``application`` fetched and its Server-Timing parts."""
    conf = types.SimpleNamespace(
        placement=types.SimpleNamespace(debug_timing=True))
    headers = {}

    def start_response(status, response_headers, exc_info=None):
        headers.update(response_headers)

    timing.middleware(conf)(application)({}, start_response)
    return {name: float(ms) for name, ms in re.findall(
        r'(\w+);dur=([\d.]+)', headers['Server-Timing'])}


def test_fetching_a_streamed_result_counts_as_sql():
    rows = []

    def application(environ, start_response):
        rows.extend(timing.fetched(_streamed()))
        start_response('200 OK', [])
        return [b'']

    parts = _timed(application)
    assert rows == [1, 2, 3]
    assert parts['sql'] >= 20
    assert parts['app'] < parts['sql']


def test_untimed_the_batches_are_read_as_they_are():
    assert list(timing.fetched(_streamed())) == [1, 2, 3]
