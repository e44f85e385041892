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


@pytest.mark.parametrize('version, feature, expected', [
    ('1.0', microversion.BASE, True),
    ('1.13', microversion.NESTED_PROVIDERS, False),
    ('1.14', microversion.NESTED_PROVIDERS, True),
    ('1.15', microversion.NESTED_PROVIDERS, True),
    ('1.9', microversion.ALLOCATION_CANDIDATES, False),
    ('1.10', microversion.TOTAL_USAGES, True),
    ('1.39', microversion.ANY_TRAITS, True),
    ('1.38', microversion.ANY_TRAITS, False),
])
def test_at_least(version, feature, expected):
    assert microversion.at_least(_request_at(version), feature) is expected


def test_of_returns_the_negotiated_version():
    assert microversion.of(_request_at('1.23')) == (1, 23)
