"""The service makes the media type checks the operation table declares
(:mod:`placement.request_checks`): 406 for an Accept without JSON exactly
where an operation declares ``produces``, 415 for a body that is not JSON
exactly where it declares ``consumes``."""

import pytest

from placement import contract
from placement import microversion
from placement import operations

pytestmark = pytest.mark.db

_OPERATIONS = operations.OPERATIONS
_IDS = [f'{op.method} {op.path}' for op in _OPERATIONS]


def _url(operation):
    url = operation.path
    for name, (_doc, _schema, example) in contract.PATH_PARAMETERS.items():
        url = url.replace(f'{{{name}}}', example)
    return url


def _version(operation):
    """A microversion at which the operation takes its body, if any."""
    if operation.bodies:
        return max(operation.bodies[0].versions.first,
                   operation.versions.first)
    return operation.versions.last or microversion.MAX_VERSION


def _send(api, operation, **headers):
    body = b'{}' if operation.consumes else None
    return api.send(operation.method, _url(operation), {
        'x-auth-token': 'admin',
        'openstack-api-version': f'placement {_version(operation)}',
        **({'content-type': 'application/json'} if body else {}),
        **headers}, body)


@pytest.mark.parametrize('operation', _OPERATIONS, ids=_IDS)
def test_accept_without_json_is_406_where_declared(api, operation):
    response = _send(api, operation, accept='text/html')
    assert (response.status_int == 406) == bool(operation.produces), (
        response.status_int)


@pytest.mark.parametrize(
    'operation', [op for op in _OPERATIONS if op.consumes],
    ids=[f'{op.method} {op.path}' for op in _OPERATIONS if op.consumes])
def test_body_not_json_is_415_where_declared(api, operation):
    response = _send(api, operation, **{'content-type': 'text/plain'})
    assert response.status_int == 415, response.status_int
