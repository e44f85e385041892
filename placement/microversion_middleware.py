"""Microversion negotiation middleware (parsing by microversion-parse)."""

import functools

import microversion_parse
import webob.exc

from placement import wsgi_wrapper
from placement.microversion import MICROVERSION_ENVIRON
from placement.microversion import SERVICE_TYPE
from placement.microversion import VERSIONS

#: The WSGI environ key of the ``OpenStack-API-Version`` header.
_HEADER_KEY = 'HTTP_' + microversion_parse.STANDARD_HEADER.upper().replace(
    '-', '_')


class MicroversionMiddleware:
    """Negotiate the microversion from ``OpenStack-API-Version``.

    No header means the minimum, ``latest`` the maximum; a malformed value
    is 400 and one outside the supported range is 406. Every response the
    application returns carries the version header and ``Vary``.
    """

    def __init__(self, application):
        self.application = application

    @wsgi_wrapper.passes_on
    def __call__(self, req):
        # The one header it reads: folding every header of the request
        # into a dict, as it does, costs more than the rest.
        header = req.environ.get(_HEADER_KEY)
        headers = {} if header is None else {
            microversion_parse.STANDARD_HEADER: header}
        try:
            version = microversion_parse.extract_version(
                headers, SERVICE_TYPE, VERSIONS)
        except ValueError as exc:
            raise webob.exc.HTTPNotAcceptable(
                f'Invalid microversion: {exc}')
        except TypeError as exc:
            raise webob.exc.HTTPBadRequest(f'Invalid microversion: {exc}')
        req.environ[MICROVERSION_ENVIRON] = version
        return functools.partial(self._versioned, f'{SERVICE_TYPE} {version}')

    def _versioned(self, value, environ, start_response):
        """The application's answer with the version header (replacing
        any it set) and ``Vary`` added last."""
        def start_versioned(status, headers, exc_info=None):
            headers = [
                *((name, header) for name, header in headers
                  if name.lower() != microversion_parse.STANDARD_HEADER),
                (microversion_parse.STANDARD_HEADER, value),
                ('Vary', microversion_parse.STANDARD_HEADER)]
            return start_response(status, headers, exc_info)
        return self.application(environ, start_versioned)
