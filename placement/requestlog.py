"""Log one line per request, in the style of the upstream service."""

import logging

from placement import microversion

LOG = logging.getLogger(__name__)


class RequestLog:
    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        LOG.debug('Starting request: %s "%s %s"',
                  environ.get('REMOTE_ADDR'), environ['REQUEST_METHOD'],
                  _url(environ))

        def _logging_start_response(status, headers, exc_info=None):
            length = next((value for name, value in headers
                           if name.lower() == 'content-length'), '-')
            _log_response(environ, status.split(None, 1)[0], length)
            return start_response(status, headers, exc_info)

        try:
            return self.application(environ, _logging_start_response)
        except Exception:
            # The fault wrapper further out turns this into a 500.
            _log_response(environ, '500', '-')
            raise


def _log_response(environ, status_code, length):
    LOG.info('%s "%s %s" status: %s len: %s microversion: %s',
             environ.get('REMOTE_ADDR'), environ['REQUEST_METHOD'],
             _url(environ), status_code, length,
             environ.get(microversion.MICROVERSION_ENVIRON, '-'))


def _url(environ):
    path = environ.get('SCRIPT_NAME', '') + environ.get('PATH_INFO', '')
    query = environ.get('QUERY_STRING')
    return f'{path}?{query}' if query else path
