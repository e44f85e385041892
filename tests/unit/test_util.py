"""Object-layer and webob errors of handlers, through a real handler stack.

Each error is raised by a tiny handler wrapped like the service's
handlers (PlacementWsgify under the request id and microversion
middleware) so the tests see the rendered error documents.
"""

import pytest
import webob

from placement import exception
from placement import wsgi_wrapper
from tests.unit import stack

# object-layer errors


@wsgi_wrapper.PlacementWsgify
def _conflicting(req):
    raise exception.ConcurrentUpdate('generation mismatch')


def test_object_error_renders_its_status_and_code():
    response = stack.call(_conflicting, version='1.23')
    assert response.status_code == 409
    error = stack.error_of(response)
    assert error['title'] == 'Conflict'
    assert 'generation mismatch' in error['detail']
    assert error['code'] == 'placement.concurrent_update'


def test_object_error_has_no_code_before_1_23():
    response = stack.call(_conflicting, version='1.22')
    assert response.status_code == 409
    assert 'code' not in stack.error_of(response)


@pytest.mark.parametrize('error, status', [
    (exception.PlacementError, 400), (exception.BadRequest, 400),
    (exception.NotFound, 404), (exception.InventoryInUse, 409),
])
def test_object_error_status_by_class(error, status):
    @wsgi_wrapper.PlacementWsgify
    def failing(req):
        raise error('no')

    response = stack.call(failing)
    assert response.status_code == status
    assert stack.error_of(response)['code'] == error.code


def test_handlers_run_through_wsgi_wrapper_render_webob_errors():
    @wsgi_wrapper.PlacementWsgify
    def gone(req):
        raise webob.exc.HTTPGone('It left.')

    response = stack.call(gone, version='1.22')
    assert response.status_code == 410
    assert 'It left.' in stack.error_of(response)['detail']
