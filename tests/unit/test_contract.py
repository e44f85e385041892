"""The gabbits' response checker fails a response the table does not
declare: a wrong status, a body off its schema, a missing header, an
undeclared error code."""

import json

import pytest
import webob

from placement import contract as api
from placement import errors
from placement import microversion
from placement.reports import declared as declared_reports
from tests import contract

WIDGET = {'type': 'object', 'properties': {'name': {'type': 'string'}},
          'required': ['name'], 'additionalProperties': False}
TABLE = (
    api.Operation(
        'GET', '/widgets/{name}', None,
        responses=(api.Response(200, WIDGET),),
        errors={404: (errors.DEFAULT,)}),
    api.Operation(
        'PUT', '/widgets/{name}', None,
        versions=api.since(microversion.v1(5)),
        responses=(api.Response(201, headers=('Location',)),
                   api.Response(204))),
)


def _answering(status, body=None, headers=(), version='1.5'):
    """An app answering ``status`` with the JSON ``body``."""
    def application(environ, start_response):
        environ[microversion.MICROVERSION_ENVIRON] = microversion.parse(
            version)
        response = webob.Response(status=status, headerlist=list(headers))
        if body is not None:
            response.content_type = 'application/json'
            response.body = json.dumps(body).encode()
        return response(environ, start_response)
    return contract.ContractChecker(application, contract.Contract(TABLE))


def _send(application, method, path):
    return webob.Request.blank(path, method=method).get_response(application)


def test_declared_responses_pass():
    assert _send(_answering(200, {'name': 'w'}), 'GET',
                 '/widgets/w').json == {'name': 'w'}
    assert _send(_answering(204), 'PUT', '/widgets/w').status_int == 204
    assert _send(_answering(201, headers=[('Location', '/widgets/w')]),
                 'PUT', '/widgets/w').status_int == 201
    not_found = {'errors': [{'status': 404, 'code': errors.DEFAULT}]}
    assert _send(_answering(404, not_found), 'GET',
                 '/widgets/w').status_int == 404


def test_a_wrong_success_status_fails():
    with pytest.raises(contract.ContractViolation,
                       match='success status not declared'):
        _send(_answering(201, {'name': 'w'}), 'GET', '/widgets/w')


def test_a_body_off_the_schema_fails():
    with pytest.raises(contract.ContractViolation,
                       match='does not match the declared schema'):
        _send(_answering(200, {'name': 'w', 'size': 3}), 'GET', '/widgets/w')


def test_a_body_where_none_is_declared_fails():
    with pytest.raises(contract.ContractViolation, match='a body where'):
        _send(_answering(204, {'name': 'w'}), 'PUT', '/widgets/w')


def test_a_missing_declared_header_fails():
    with pytest.raises(contract.ContractViolation,
                       match=r"headers missing: \['Location'\]"):
        _send(_answering(201), 'PUT', '/widgets/w')


def test_an_undeclared_error_status_or_code_fails():
    conflict = {'errors': [{'status': 409, 'code': errors.DEFAULT}]}
    with pytest.raises(contract.ContractViolation,
                       match='error status not declared'):
        _send(_answering(409, conflict), 'GET', '/widgets/w')
    not_found = {'errors': [{'status': 404, 'code': errors.DUPLICATE_NAME}]}
    with pytest.raises(contract.ContractViolation,
                       match='error code placement.duplicate_name'):
        _send(_answering(404, not_found), 'GET', '/widgets/w')


def test_the_router_errors_are_declared():
    not_found = {'errors': [{'status': 404}]}
    assert _send(_answering(404, not_found), 'GET',
                 '/gadgets').status_int == 404
    not_allowed = {'errors': [{'status': 405}]}
    assert _send(_answering(405, not_allowed), 'POST',
                 '/widgets/w').status_int == 405
    # Before its microversion PUT does not exist: 404 (too_early_status).
    assert _send(_answering(404, not_found, version='1.4'), 'PUT',
                 '/widgets/w').status_int == 404
    with pytest.raises(contract.ContractViolation):
        _send(_answering(405, not_allowed, version='1.4'), 'PUT',
              '/widgets/w')


# The reports' declared schemas (placement/reports/declared/): the
# gabbits' answers are checked against them, so a broken body fails.

_PROVIDER = 'b8c3c3c4-8e26-4e1a-9b8a-2b6c9f1f4a11'
_VCPU = {'name': 'VCPU', 'capacity': 8, 'usage': 2,
         'per_availability_zone': [{'name': 'az1', 'capacity': 8,
                                    'usage': 2}]}
_PROJECT = {'id': 'p1', 'services': [{
    'type': 'compute', 'area': 'compute', 'scraped_at': 1,
    'resources': [{'name': 'VCPU', 'usage': 2}]}]}
_FINDING = {'description': 'd', 'counts': 'providers', 'count': 0,
            'examples': []}
_AUDIT_FINDINGS = ('over_capacity', 'allocations_without_inventory',
                   'inventories_without_provider_or_class',
                   'consumers_in_several_trees',
                   'consumers_without_allocations',
                   'allocations_without_consumer',
                   'consumers_without_project', 'consumers_without_user',
                   'providers_without_root', 'providers_with_wrong_root',
                   'providers_with_parent_in_other_tree',
                   'providers_with_broken_parent_chain',
                   'aggregate_links_without_provider_or_aggregate')
#: ``(path, a well-formed document, the same broken)``.
_REPORT_BODIES = [
    ('/reports/capacity',
     {'cluster': {'id': 'c', 'min_scraped_at': 1, 'max_scraped_at': 1,
                  'services': [{'type': 'compute', 'area': 'compute',
                                'min_scraped_at': 1, 'max_scraped_at': 1,
                                'resources': [_VCPU]}]}},
     {'cluster': {'id': 'c', 'services': [{
         'type': 'compute', 'area': 'compute',
         'resources': [{**_VCPU, 'usage': '2'}]}]}}),
    ('/reports/usage', {'projects': [_PROJECT]},
     {'projects': [{**_PROJECT, 'services': [{'type': 'compute',
                                              'resources': [{}]}]}]}),
    ('/reports/usage/p1', {'project': _PROJECT},
     {'project': {'id': 'p1'}}),
    ('/reports/headroom',
     {'headroom': {'resources': {'VCPU': 4}, 'count': 3, 'providers': 2,
                   'per_availability_zone': [
                       {'name': 'az1', 'count': 3, 'providers': 2}],
                   'counted': 'a', 'not_counted': 'b'}},
     {'headroom': {'resources': {'VCPU': 0}, 'count': -1}}),
    ('/reports/audit',
     {'audit': {'clean': True, 'findings': {
         **dict.fromkeys(_AUDIT_FINDINGS, _FINDING),
         'orphaned_allocations': {**_FINDING,
                                  'by_consumer_type': {'unknown': 0}}}}},
     {'audit': {'clean': 'yes', 'findings': {}}}),
    ('/reports/explain',
     {'explain': {'candidates': 1, 'trees': 1, 'via_sharing': 0,
                  'funnel': [{'stage': 'groups', 'count': 1}],
                  'groups': [{'suffix': '', 'resources': {'VCPU': 4},
                              'considered': 2,
                              'funnel': [{'stage': 'inventory',
                                          'count': 2}],
                              'uncounted': []},
                             {'suffix': '', 'resources': {'DISK_GB': 9},
                              'considered': None, 'funnel': [],
                              'uncounted': ['inventory', 'capacity']}],
                  'impossible': [{'group': '', 'resource_class': 'VCPU',
                                  'amount': 4, 'providers': 2,
                                  'sentence': 's'}],
                  'misses': [{'provider': {'uuid': 'u', 'name': 'cn1'},
                              'group': '', 'kind': 'capacity',
                              'details': {
                                  'subject': 'VCPU', 'asked': 4,
                                  'capacity': 8, 'used': 6, 'free': 2,
                                  'over_capacity': 0, 'min_unit': 1,
                                  'max_unit': 8, 'step_size': 1},
                              'sentence': 's'},
                             {'provider': {'uuid': 'u', 'name': 'cn2'},
                              'group': None, 'kind': 'combined',
                              'details': {'subject': None,
                                          'own_providers': False},
                              'sentence': 's'}],
                  'counted': 'c'}},
     {'explain': {'candidates': -1, 'funnel': [{'stage': 1}]}}),
    # A miss's details are those of its kind.
    ('/reports/explain',
     {'explain': {'candidates': 0, 'trees': 0, 'via_sharing': 0,
                  'funnel': [], 'groups': [], 'impossible': [],
                  'misses': [], 'counted': 'c'}},
     {'explain': {'candidates': 0, 'trees': 0, 'via_sharing': 0,
                  'funnel': [], 'groups': [], 'impossible': [],
                  'misses': [{'provider': {'uuid': 'u', 'name': 'cn1'},
                              'group': '', 'kind': 'capacity',
                              'details': {'subject': 'VCPU'},
                              'sentence': 's'}],
                  'counted': 'c'}}),
]


def _check_report(path, document):
    contract.Contract().check(
        'GET', path, None, 200, {'content-type': 'application/json'},
        json.dumps(document).encode())


@pytest.mark.parametrize('path, good, broken', _REPORT_BODIES,
                         ids=[path for path, _good, _broken in
                              _REPORT_BODIES])
def test_a_report_body_is_checked_against_its_schema(path, good, broken):
    _check_report(path, good)
    with pytest.raises(contract.ContractViolation,
                       match='does not match the declared schema'):
        _check_report(path, broken)


def test_every_report_has_a_body_checked():
    declared = {report.path.replace('{project_id}', 'p1')
                for report in declared_reports.REPORTS}
    assert declared == {path for path, _good, _broken in _REPORT_BODIES}
