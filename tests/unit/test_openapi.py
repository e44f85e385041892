"""The OpenAPI document: valid OpenAPI 3.1, complete, and committed."""

import pathlib

import pytest
from openapi_spec_validator import validate

from placement import errors
from placement import microversion
from placement import openapi
from placement import operations

#: The newest microversion.
LATEST = microversion.MAX_VERSION_STRING

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCUMENT = openapi.document(operations.OPERATIONS, operations.REPORTS)


def test_document_is_valid_openapi_3_1():
    validate(DOCUMENT)


def test_committed_copy_is_current():
    committed = (ROOT / 'api-ref' / 'openapi.json').read_text()
    current = openapi.dumps(operations.OPERATIONS, operations.REPORTS)
    assert committed == current, (
        'api-ref/openapi.json is stale: run python tools/gen_openapi.py')


def test_every_operation_is_documented():
    documented = {(method.upper(), path)
                  for path, methods in DOCUMENT['paths'].items()
                  for method in methods}
    assert documented == {(op.method, op.path)
                          for op in operations.OPERATIONS} | {
        ('GET', '/reports/capacity'), ('GET', '/reports/usage'),
        ('GET', '/reports/usage/{project_id}'), ('GET', '/reports/headroom'),
        ('GET', '/reports/audit'), ('GET', '/reports/explain')}


def test_lints_clean():
    """A server to try it against, and no ``anyOf`` of one branch."""
    assert DOCUMENT['servers'] and all(
        server['url'] for server in DOCUMENT['servers'])

    def one_member_any_of(node):
        if isinstance(node, dict):
            return (len(node.get('anyOf', [None, None])) == 1
                    or any(map(one_member_any_of, node.values())))
        return isinstance(node, list) and any(map(one_member_any_of, node))
    assert not one_member_any_of(DOCUMENT)


def test_the_reports_have_their_response_schemas():
    for path in ('/reports/capacity', '/reports/usage',
                 '/reports/usage/{project_id}', '/reports/headroom'):
        schema = DOCUMENT['paths'][path]['get']['responses']['200'][
            'content']['application/json']['schema']
        assert schema['additionalProperties'] is False
        assert len(schema['required']) == 1


def test_the_audit_report_has_a_real_schema():
    schema = DOCUMENT['paths']['/reports/audit']['get']['responses']['200'][
        'content']['application/json']['schema']
    findings = schema['properties']['audit']['properties']['findings']
    assert 'over_capacity' in findings['required']
    example = findings['properties']['over_capacity']['properties'][
        'examples']['items']
    assert example['properties']['capacity'] == {'type': 'integer'}


def test_the_explain_report_has_a_real_schema():
    path = DOCUMENT['paths']['/reports/explain']['get']
    schema = path['responses']['200']['content']['application/json'][
        'schema']
    miss = schema['properties']['explain']['properties']['misses']['items']
    assert {'provider', 'group', 'kind', 'details', 'sentence'} == set(
        miss['required'])
    # The query of GET /allocation_candidates, and max_misses.
    assert {'resources', 'required', 'member_of', 'in_tree',
            'group_policy', 'root_required', 'same_subtree', 'limit',
            'max_misses'} <= {param.get('name')
                              for param in path['parameters']}


def test_every_error_code_is_documented():
    listed = {code
              for methods in DOCUMENT['paths'].values()
              for operation in methods.values()
              for response in operation['responses'].values()
              for code in response.get('x-openstack-error-codes', ())}
    assert listed == errors.ALL_CODES


@pytest.mark.parametrize('path, method, status', [
    ('/resource_providers/{uuid}', 'delete', '409'),
    ('/allocation_candidates', 'get', '400'),
])
def test_error_responses_carry_their_codes(path, method, status):
    codes = DOCUMENT['paths'][path][method]['responses'][status][
        'x-openstack-error-codes']
    assert errors.DEFAULT in codes
    assert len(codes) > 1


def test_body_variants_carry_their_microversions():
    schema = DOCUMENT['paths']['/resource_providers']['post']['requestBody'][
        'content']['application/json']['schema']
    ranges = [branch['x-openstack-microversion'] for branch in schema['anyOf']]
    assert ranges == [{'min': '1.0', 'max': '1.13'},
                      {'min': '1.14', 'max': LATEST}]


def test_public_operations_need_no_token():
    assert DOCUMENT['paths']['/']['get']['security'] == []
    assert DOCUMENT['paths']['/openapi.json']['get']['security'] == []
    assert 'security' not in DOCUMENT['paths']['/traits']['get']
    assert DOCUMENT['security'] == [{'keystone': []}]


def _ranges(node):
    """Every ``x-openstack-microversion`` range under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == 'x-openstack-microversion':
                yield from value if isinstance(value, list) else [value]
            else:
                yield from _ranges(value)
    elif isinstance(node, list):
        for item in node:
            yield from _ranges(item)


def _minor(version):
    return int(version.split('.')[1])


def test_ranges_lie_within_their_operation():
    """A parameter, body or response exists only where its operation
    does (GET /allocation_candidates starts at 1.10, so do its
    parameters)."""
    for methods in DOCUMENT['paths'].values():
        for operation in methods.values():
            own = operation['x-openstack-microversion']
            parts = {key: value for key, value in operation.items()
                     if key != 'x-openstack-microversion'}
            for inner in _ranges(parts):
                assert _minor(own['min']) <= _minor(inner['min'])
                assert _minor(inner['max']) <= _minor(own['max'])
    parameters = DOCUMENT['paths']['/allocation_candidates']['get'][
        'parameters']
    limit, = [param for param in parameters if param.get('name') == 'limit']
    assert limit['x-openstack-microversion']['min'] == '1.16'
    resources, = [param for param in parameters
                  if param.get('name') == 'resources']
    assert resources['x-openstack-microversion']['min'] == '1.10'
