"""The operation table is consistent: one entry per method and URL,
variants that tile each operation's microversions, known policy rules,
error codes and path variables."""

import re

import pytest

from placement import contract
from placement import errors
from placement import microversion
from placement import operations
from placement import policies
from placement import query_values

_OPERATIONS = operations.OPERATIONS
_IDS = [f'{op.method} {op.path}' for op in _OPERATIONS]


def _minors(operation):
    return [minor for minor in range(microversion.MAX_VERSION.minor + 1)
            if microversion.v1(minor) in operation.versions]


def test_one_entry_per_method_and_url():
    assert len(set(_IDS)) == len(_IDS)


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_policy_rule_is_registered(operation):
    rules = {rule.name for rule in policies.list_rules()}
    assert operation.policy is None or operation.policy in rules


@pytest.mark.parametrize(
    'operation', operations.OPERATIONS + operations.REPORTS,
    ids=[f'{op.method} {op.path}'
         for op in operations.OPERATIONS + operations.REPORTS])
def test_a_rule_exactly_where_a_token_is_needed(operation):
    """request_checks enforces the rule it finds here: an authenticated
    operation without one would be open to every token."""
    assert operation.authenticated == (operation.policy is not None)


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_url_check_only_where_a_body_is_taken(operation):
    assert operation.url_check is None or operation.bodies


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_error_codes_are_known(operation):
    for codes in operation.errors.values():
        assert set(codes) <= errors.ALL_CODES


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_path_variables_are_described(operation):
    for name in re.findall(r'{(\w+)}', operation.path):
        assert name in contract.PATH_PARAMETERS


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_a_body_is_declared_once_per_microversion(operation):
    """At most one request body schema per microversion, and one for
    every microversion if any (PUT /resource_classes/{name} has a body
    only before 1.7)."""
    for minor in _minors(operation):
        version = microversion.v1(minor)
        found = [body for body in operation.bodies
                 if version in body.versions]
        assert len(found) <= 1, minor
        if operation.consumes and operation.path != '/resource_classes/{name}':
            assert len(found) == 1, minor


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_every_microversion_has_one_response_per_status(operation):
    for minor in _minors(operation):
        version = microversion.v1(minor)
        statuses = [response.status for response in operation.responses
                    if version in response.versions]
        assert statuses, minor
        assert len(statuses) == len(set(statuses)), minor


def test_versions_of_an_inclusive_range():
    versions = contract.between(microversion.TRAITS, microversion.v1(9))
    assert microversion.v1(6) in versions
    assert microversion.v1(8) in versions
    assert microversion.v1(9) not in versions
    assert microversion.v1(5) not in versions
    assert microversion.MAX_VERSION in contract.since(microversion.v1(9))


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_bodies_only_where_a_media_type_is_declared(operation):
    assert bool(operation.bodies) <= bool(operation.consumes)
    answers_a_body = any(response.schema is not None
                         for response in operation.responses)
    assert answers_a_body <= bool(operation.produces)


@pytest.mark.parametrize('operation', _OPERATIONS + operations.REPORTS,
                         ids=_IDS + [f'{op.method} {op.path}'
                                     for op in operations.REPORTS])
def test_query_parameters_are_well_formed(operation):
    """One entry per name, a known repetition rule and error code, and a
    schema for every microversion of the operation (placement.query_values
    builds and compiles them)."""
    names = [param.name for param in operation.query]
    assert len(set(names)) == len(names)
    for param in operation.query:
        assert param.repeated in (contract.LAST, contract.FIRST, contract.ONCE)
        assert param.code in errors.ALL_CODES
    for minor in _minors(operation):
        schema = query_values.schema(operation.query, microversion.v1(minor))
        assert schema['additionalProperties'] is False
