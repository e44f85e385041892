"""The query string validation of placement.query_values (through
placement.query), on the real table.

Clients match the text of the 400s (issue 14): one test per jsonschema
message family (additionalProperties, pattern, enum, the regexes of the
suffixed group parameters, required) pins the phrase, so a refactor
cannot lose it.
"""

import pytest
import webob
import webob.exc

from placement import contract
from placement import errors
from placement import exception
from placement import microversion
from placement import operations
from placement import query
from placement import query_values
from placement import router
from placement import util
from placement import wsgi_wrapper
from placement.reports import declared
from tests.unit import stack

#: The newest microversion.
LATEST = microversion.MAX_VERSION_STRING

PREFIX = 'Invalid query string parameters: '


def _operation(method, path):
    return next(operation for operation in operations.OPERATIONS
                if (operation.method, operation.path) == (method, path))


CANDIDATES = _operation('GET', '/allocation_candidates')
PROVIDERS = _operation('GET', '/resource_providers')
USAGES = _operation('GET', '/usages')
TRAITS = _operation('GET', '/traits')
PROVIDER = _operation('GET', '/resource_providers/{uuid}')


def _req(query_string, version):
    req = webob.Request.blank(f'/?{query_string}')
    req.environ[microversion.MICROVERSION_ENVIRON] = (
        microversion.parse(version))
    return req


def parse(operation, query_string, version=LATEST):
    return query.parse(operation, _req(query_string, version))


def error(operation, query_string, version=LATEST):
    """``(detail, code)`` of the 400 of ``query_string``."""
    with pytest.raises(exception.InvalidQuery) as info:
        parse(operation, query_string, version)
    return str(info.value), info.value.code


# The message families.

def test_unknown_parameter():
    detail, code = error(CANDIDATES, 'resources=VCPU:1&colour=blue', '1.24')
    assert detail.startswith(PREFIX)
    assert ("Additional properties are not allowed ('colour' was "
            "unexpected)") in detail
    assert "Failed validating 'additionalProperties' in schema" in detail
    assert code == errors.DEFAULT


def test_parameter_before_its_microversion():
    detail, _code = error(CANDIDATES, 'resources=VCPU:1&limit=1', '1.15')
    assert "('limit' was unexpected)" in detail
    assert parse(CANDIDATES, 'resources=VCPU:1&limit=1', '1.16') == {
        'resources': 'VCPU:1', 'limit': '1'}


@pytest.mark.parametrize('limit', ['0', '-1', 'abc', '01'])
def test_pattern(limit):
    detail, code = error(CANDIDATES, f'resources=VCPU:1&limit={limit}')
    assert f"'{limit}' does not match '^[1-9]([0-9]+)?$'" in detail
    assert "Failed validating 'pattern' in schema" in detail
    assert f"On instance['limit']:\n    '{limit}'" in detail
    assert code == errors.DEFAULT


def test_enum():
    detail, code = error(CANDIDATES, 'resources1=VCPU:1&group_policy=bogus')
    assert "'bogus' is not one of ['none', 'isolate']" in detail
    assert "Failed validating 'enum' in schema" in detail
    assert code == errors.DEFAULT


@pytest.mark.parametrize('name, version', [
    ('resources1@', LATEST), ('resources_A', '1.32'), ('resources0', '1.25'),
    ('resources' + 'x' * 65, LATEST)])
def test_regexes(name, version):
    detail, code = error(CANDIDATES, f'{name}=VCPU:1', version)
    assert f"'{name}' does not match any of the regexes: " in detail
    assert "'^resources[1-9][0-9]*$'" in detail or (
        "'^resources([a-zA-Z0-9_-]{1,64})?$'" in detail)
    assert code == errors.DEFAULT


def test_suffixed_group_before_1_25_is_unexpected():
    detail, _code = error(CANDIDATES, 'resources1=VCPU:1', '1.24')
    assert "('resources1' was unexpected)" in detail


def test_format_uuid():
    detail, code = error(PROVIDERS, 'in_tree=nope', '1.14')
    assert "'nope' is not a 'uuid'" in detail
    assert code == errors.DEFAULT


def test_required():
    detail, code = error(USAGES, 'user_id=u', '1.9')
    assert detail.startswith(PREFIX)
    assert "'project_id' is a required property" in detail
    assert code == errors.QUERYPARAM_MISSING_VALUE


def test_a_bad_value_has_the_code_of_its_parameter():
    _detail, code = error(USAGES, 'project_id=', '1.9')
    assert code == errors.QUERYPARAM_BAD_VALUE


# Repetitions: which value counts is the table's.

def test_last_value_counts():
    assert parse(PROVIDERS, 'name=a&name=b') == {'name': 'b'}


def test_first_value_counts():
    params = parse(CANDIDATES, 'resources=VCPU:1&limit=2&limit=1')
    assert params['limit'] == '2'
    assert params.every('limit') == ['2', '1']


def test_repeatable_parameter_is_a_list():
    params = parse(PROVIDERS, 'member_of=a&name=n', '1.3')
    assert params == {'member_of': ['a'], 'name': 'n'}


def test_the_last_value_and_those_that_count_are_validated():
    """The last (as upstream), and the first where it counts (``limit``);
    a value that does not count is not looked at (upstream's rule)."""
    detail, _code = error(CANDIDATES, 'resources=VCPU:1&limit=1&limit=0')
    assert "'0' does not match" in detail
    detail, _code = error(CANDIDATES,
                          'resources=VCPU:1&limit=x&limit=y&limit=1')
    assert "'x' does not match" in detail
    assert parse(CANDIDATES, 'resources=VCPU:1&limit=2&limit=y&limit=1')[
        'limit'] == '2'


def test_parameter_given_once_only():
    detail, code = error(TRAITS, 'name=in:A&name=in:B', '1.6')
    assert detail == "Query parameter 'name' may be specified only once."
    assert code == errors.ILLEGAL_DUPLICATE_QUERYPARAM


def test_operation_without_query_parameters_ignores_its_query_string():
    assert parse(PROVIDER, 'anything=1') == {}


# Schemas: one per microversion range, compiled once.

def test_schema_shape():
    schema = query_values.schema(CANDIDATES.query, microversion.v1(25))
    assert schema['additionalProperties'] is False
    assert schema['properties']['group_policy'] == {
        'type': 'string', 'enum': ['none', 'isolate']}
    assert '^resources[1-9][0-9]*$' in schema['patternProperties']
    assert 'patternProperties' not in query_values.schema(
        CANDIDATES.query, microversion.v1(24))


def test_compiled_once_per_range():
    def compiled(minor):
        return query_values._compiled(CANDIDATES.query,
                                      microversion.v1(minor), 'candidates')
    assert compiled(26) is compiled(30)
    assert compiled(31) is not compiled(30)
    assert compiled(39) is compiled(38)


# Through the router.

@wsgi_wrapper.PlacementWsgify
def _echo(req):
    return util.Result(query.of(req), status=200)


_TABLE = (contract.Operation(
    'GET', '/things', _echo,
    query=(contract.QueryParam('name', 'A name.'),)),)


def _get(query_string, version='latest'):
    return stack.call(router.Router(_TABLE),
                      path=f'/things?{query_string}', version=version)


def test_router_gives_the_handler_its_query():
    assert _get('name=a').json == {'name': 'a'}


def test_router_renders_the_error_with_its_code():
    response = _get('name=a&name=b')
    assert response.status_code == 400
    assert stack.error_of(response)['code'] == (
        errors.ILLEGAL_DUPLICATE_QUERYPARAM)


def test_no_code_before_1_23():
    response = _get('other=1', version='1.22')
    assert response.status_code == 400
    assert 'code' not in stack.error_of(response)


def test_query_string_that_is_not_utf8_is_400():
    response = _get('name=%ff')
    assert response.status_code == 400
    assert PREFIX in stack.error_of(response)['detail']


# What the table says of the values: request groups and which values
# count.

def test_the_groups_are_the_suffixes_of_the_group_parameters():
    params = parse(CANDIDATES, 'resources=VCPU:1&required_NET=A'
                   '&member_of2=x&in_tree_X=y&limit=1&group_policy=none')
    assert params.groups() == {'', '_NET', '2', '_X'}


def test_no_groups_where_no_parameter_takes_a_suffix():
    assert parse(PROVIDERS, 'resources=VCPU:1').groups() == frozenset()


@pytest.mark.parametrize('version, counted', [
    (str(microversion.FORBIDDEN_TRAITS), ['B']),
    (str(microversion.ANY_TRAITS), ['A', 'B'])])
def test_the_last_required_counts_before_any_traits(version, counted):
    params = parse(PROVIDERS, 'required=A&required=B', version)
    assert params['required'] == counted
    assert params.every('required') == ['A', 'B']


def test_every_member_of_is_left_to_its_parser_before_repeats():
    params = parse(PROVIDERS, 'member_of=a&member_of=b',
                   str(microversion.MEMBER_OF))
    assert params['member_of'] == ['a', 'b']


# A query string as typed (placement-manage report explain): read by the
# core as the API reads the request's.

_EXPLAIN = next(report for report in declared.REPORTS
                if report.candidate_query)


def _read(read):
    try:
        given = read()
    except exception.InvalidQuery as exc:
        return str(exc), exc.code
    return dict(given), {name: given.every(name) for name in given}, (
        given.groups())


@pytest.mark.parametrize('query_string', [
    'resources=VCPU:1&resources=VCPU:2&required=A&required=B',
    'resources1=VCPU:1&group_policy=none&group_policy=bad',
    'a+b=c+d', 'resources=%ff', 'resources=a%00b', 'limit=0',
    'max_misses=1&max_misses=2', 'resources=VCPU:1&root_required=A',
])
@pytest.mark.parametrize('version', ['1.0', '1.34', LATEST])
def test_a_typed_query_string_is_read_as_the_api_reads_it(query_string,
                                                          version):
    operation = next(operation for operation in operations.REPORTS
                     if operation.path == _EXPLAIN.path)
    assert operation.query == _EXPLAIN.query()
    assert _read(lambda: query_values.parse_query_string(
        _EXPLAIN.query(), microversion.parse(version), query_string)) == (
        _read(lambda: parse(operation, query_string, version)))


def test_the_core_refuses_with_the_code_of_the_parameter():
    with pytest.raises(exception.InvalidQuery) as info:
        query_values.parse_query_string(
            _EXPLAIN.query(), microversion.parse(LATEST), 'max_misses=x')
    assert info.value.status == 400
    assert info.value.code == errors.QUERYPARAM_BAD_VALUE
