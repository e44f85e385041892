"""The microversion list and the helpers handlers branch with."""

import pytest
import webob

from placement import microversion


def _request_at(version_string):
    req = webob.Request.blank('/')
    req.environ[microversion.MICROVERSION_ENVIRON] = microversion.parse(
        version_string)
    return req


def test_versions_are_1_0_to_1_39_without_gaps():
    assert microversion.VERSIONS == [f'1.{minor}' for minor in range(40)]


def test_min_and_max_version_strings():
    assert microversion.MIN_VERSION_STRING == '1.0'
    assert microversion.MAX_VERSION_STRING == '1.39'


def test_environ_key_is_the_documented_one():
    assert microversion.MICROVERSION_ENVIRON == 'placement.microversion'


def test_parse_compares_numerically():
    assert microversion.parse('1.10') > microversion.parse('1.9')
    assert microversion.parse('1.2') == (1, 2)


@pytest.mark.parametrize('version, minor, expected', [
    ('1.0', 0, True),
    ('1.13', 14, False),
    ('1.14', 14, True),
    ('1.15', 14, True),
    ('1.9', 10, False),
    ('1.10', 9, True),
    ('1.39', 39, True),
    ('1.38', 39, False),
])
def test_at_least(version, minor, expected):
    assert microversion.at_least(_request_at(version), minor) is expected


def test_of_returns_the_negotiated_version():
    assert microversion.of(_request_at('1.23')) == (1, 23)
