"""[placement] debug_timing counts the fetching of a streamed result,
which happens after the statement's cursor events, as sql."""

import re
import time
import types

from placement import timing


class _Streamed:
    """A streamed result that takes 10 ms to fetch each batch."""

    def partitions(self, size=None):
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
        rows.extend(timing.fetched(_Streamed()))
        start_response('200 OK', [])
        return [b'']

    parts = _timed(application)
    assert rows == [1, 2, 3]
    assert parts['sql'] >= 20
    assert parts['app'] < parts['sql']


def test_untimed_a_streamed_result_is_read_as_it_is():
    result = _Streamed()
    assert timing.fetched(result) is result
