"""The request body limit: oslo.middleware's, answered as the API answers.

``[oslo_middleware] max_request_body_size`` bounds every request body,
as in other OpenStack services. oslo.middleware refuses a body whose
Content-Length is larger before reading any of it, and gives a body of
unknown length (``Transfer-Encoding: chunked``) a reader that raises
once more than the limit has been read: the request check reading the
body (a handler's :class:`~placement.wsgi_wrapper.PlacementWsgify`)
answers that 413. Here the first 413 is the API's JSON error document
too, with the limit in its words. Under ``placement-api`` its workers
refuse such a body before reading it, with the same answer
(:mod:`placement.wsgi.server`).
"""

import webob.exc
from oslo_middleware import sizelimit

from placement import wsgi_wrapper

# oslo.middleware's own function, under its webob.dec.wsgify.
_LIMITED = sizelimit.RequestBodySizeLimiter.__call__.func


class BodySizeLimit(sizelimit.RequestBodySizeLimiter):
    """oslo.middleware's limit; its 413 rendered as the API's errors."""

    @wsgi_wrapper.PlacementWsgify
    def __call__(self, req):
        try:
            return _LIMITED(self, req)
        except webob.exc.HTTPRequestEntityTooLarge:
            # oslo.middleware's words leave "%s" where the limit goes.
            raise webob.exc.HTTPRequestEntityTooLarge(
                too_large(self._conf_get('max_request_body_size'))) from None


def too_large(limit):
    """The 413's detail for a body of more than ``limit`` bytes."""
    return (f'Request is too large. Larger than max_request_body_size '
            f'({limit}).')


def middleware(conf):
    def _limit(application):
        return BodySizeLimit(application, conf)
    return _limit
