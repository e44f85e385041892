"""Turn any unexpected exception into a JSON 500, and log it."""

import logging

import webob.exc
from oslo_middleware import request_id

from placement import wsgi_wrapper

LOG = logging.getLogger(__name__)


class FaultWrapper:
    """Outermost safety net below the request-id middleware.

    The traceback goes to the log, with the request id; the client gets
    only the error document.
    """

    def __init__(self, application):
        self.application = application

    @wsgi_wrapper.PlacementWsgify
    def __call__(self, req):
        try:
            return req.get_response(self.application)
        except Exception:
            LOG.exception('Uncaught exception in request %s',
                          req.environ.get(request_id.ENV_REQUEST_ID))
            raise webob.exc.HTTPInternalServerError(
                'An unexpected error occurred; it has been logged.')
