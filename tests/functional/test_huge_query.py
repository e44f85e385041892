"""Query strings too big to write into a gabbit; each found by
tools/fuzz_api.py as a 500 on some backend."""

import pytest

pytestmark = pytest.mark.db


def test_traits_startswith_a_huge_prefix_finds_none(api):
    """SQLite refuses LIKE patterns of more than 50,000 bytes."""
    response = api.request('GET', '/traits?name=startswith:' + 'A' * 60000)
    assert response.status_int == 200, response.text
    assert response.json == {'traits': []}
