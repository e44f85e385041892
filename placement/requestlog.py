"""Log one line per request, in the style of the upstream service.

The line starts as upstream's (address, method and URL, status, length,
microversion) and adds the route template, the time the request took
and its part in SQL (:mod:`placement.timing`), and the request id. A
request slower than ``[request_log] slow_threshold`` is logged once
more as a warning with its whole time split.

The path is logged percent-decoded, as WSGI gives it; its control
characters, and those the server took raw in the request line, are
logged percent-encoded (``%0A``): a client's newline started a forged
log line, its ESC drove the terminal showing the log.
"""

import logging

from oslo_middleware import request_id

from placement import client_text
from placement import microversion
from placement import router
from placement import timing

LOG = logging.getLogger(__name__)


class RequestLog:
    def __init__(self, application, slow_threshold=0):
        self.application = application
        self.slow_threshold = slow_threshold

    def __call__(self, environ, start_response):
        url = client_text.loggable_url(environ)
        LOG.debug('Starting request: %s "%s %s"',
                  environ.get('REMOTE_ADDR'), environ['REQUEST_METHOD'], url)

        def _logging_start_response(status, headers, exc_info=None):
            length = next((value for name, value in headers
                           if name.lower() == 'content-length'), '-')
            self._log_response(environ, url, status.split(None, 1)[0],
                               length)
            return start_response(status, headers, exc_info)

        try:
            return self.application(environ, _logging_start_response)
        except Exception:
            # The fault wrapper further out turns this into a 500.
            self._log_response(environ, url, '500', '-')
            raise

    def _log_response(self, environ, url, status_code, length):
        spent = timing.of(environ)
        split = spent.split() if spent is not None else None
        route = environ.get(router.ROUTE_ENVIRON, '-')
        req_id = environ.get(request_id.ENV_REQUEST_ID, '-')
        LOG.info('%s "%s %s" status: %s len: %s microversion: %s '
                 'route: %s time: %s sql: %s request_id: %s',
                 environ.get('REMOTE_ADDR'), environ['REQUEST_METHOD'],
                 url, status_code, length,
                 environ.get(microversion.MICROVERSION_ENVIRON, '-'),
                 route, _seconds(split, 'total'), _seconds(split, 'sql'),
                 req_id)
        if (split is not None and self.slow_threshold
                and split['total'] > self.slow_threshold):
            LOG.warning('Slow request: "%s %s" route: %s status: %s took '
                        '%.3fs (sql %.3fs, serialise %.3fs, app %.3fs) '
                        'request_id: %s',
                        environ['REQUEST_METHOD'], url, route, status_code,
                        split['total'], split['sql'], split['serialise'],
                        split['app'], req_id)


def _seconds(split, part):
    return '-' if split is None else f'{split[part]:.3f}'


def middleware(conf):
    """The request log, with the threshold of ``[request_log]``."""
    def wrap(application):
        return RequestLog(application, conf.request_log.slow_threshold)
    return wrap

