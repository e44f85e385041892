"""The service against its OpenAPI document, with schemathesis.

A real ``placement-api`` on SQLite (noauth2, as admin) gets requests that
schemathesis generates from :func:`placement.openapi.document`, each at
the oldest and at the newest microversion of its operation. Every
response must be no server error, have a documented status code, a body
that matches the documented schema and the documented content type.
The provider, consumer, trait and resource class the document uses as
path examples exist, so success responses are checked too. Marked
``conformance``: ``.ci/run`` runs it as a phase of its own (``pytest -m
conformance tests/conformance``), the default run leaves it out.
"""

import json
import urllib.request

import hypothesis
import pytest
import schemathesis
from schemathesis import checks

from placement import contract
from placement import openapi
from placement import operations
from tests.functional import server

pytestmark = pytest.mark.conformance

SCHEMA = schemathesis.openapi.from_dict(
    openapi.document(operations.OPERATIONS, operations.REPORTS))
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.response_schema_conformance,
    checks.content_type_conformance,
]
#: Examples per operation and microversion: a bounded CI phase.
MAX_EXAMPLES = 15
_ADMIN = {'X-Auth-Token': 'admin'}


def _request(endpoint, method, path, body=None):
    request = urllib.request.Request(
        endpoint + path, method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={**_ADMIN, 'Content-Type': 'application/json',
                 'OpenStack-API-Version': 'placement latest'})
    with urllib.request.urlopen(request, timeout=30):
        pass


def _seed(endpoint):
    """What the path examples of the document name."""
    provider = contract.EXAMPLE_PROVIDER
    _request(endpoint, 'POST', '/resource_providers',
             {'name': 'example', 'uuid': provider})
    _request(endpoint, 'PUT', f'/resource_providers/{provider}/inventories',
             {'resource_provider_generation': 0,
              'inventories': {'VCPU': {'total': 64}}})
    _request(endpoint, 'PUT', f'/allocations/{contract.EXAMPLE_CONSUMER}',
             {'allocations': {provider: {'resources': {'VCPU': 2}}},
              'project_id': 'project', 'user_id': 'user',
              'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    _request(endpoint, 'PUT', f'/traits/{contract.EXAMPLE_NAME}')
    _request(endpoint, 'PUT', f'/resource_classes/{contract.EXAMPLE_NAME}')


@pytest.fixture(scope='module')
def endpoint(tmp_path_factory):
    with server.running_server(tmp_path_factory.mktemp('conformance')) as url:
        _seed(url)
        yield url


def _edges(case):
    """The oldest and the newest microversion of the case's operation."""
    versions = case.operation.definition.raw['x-openstack-microversion']
    return versions['min'], versions['max']


@SCHEMA.parametrize()
@hypothesis.settings(
    max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
    suppress_health_check=list(hypothesis.HealthCheck))
def test_service_conforms_to_its_document(case, endpoint):
    for version in _edges(case):
        case.call_and_validate(
            base_url=endpoint, checks=CHECKS,
            headers={**_ADMIN,
                     'OpenStack-API-Version': f'placement {version}'})
