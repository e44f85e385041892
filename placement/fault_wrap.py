"""Turn any unexpected exception into a JSON 500, and log it.

An unavailable database is not a bug of the service: it is a JSON 503
with ``Retry-After``, and it is logged as a one-line warning once per
kind every few seconds, not a traceback per request.
"""

import logging
import threading
import time

import webob
import webob.exc
from oslo_middleware import request_id

from placement import wsgi_wrapper
from placement.db import failures

LOG = logging.getLogger(__name__)

# Seconds a client is asked to wait before it tries again after a 503.
RETRY_AFTER = 2
# Seconds between two log lines about the same kind of database failure.
_LOG_INTERVAL = 5.0


class _OutageLog:
    """Logs each kind of database failure at most once per interval."""

    def __init__(self, interval):
        self._interval = interval
        self._lock = threading.Lock()
        self._last = {}
        self._unlogged = {}

    def warn(self, failure, exc):
        now = time.monotonic()
        with self._lock:
            last = self._last.get(failure)
            if last is not None and now - last < self._interval:
                self._unlogged[failure] = self._unlogged.get(failure, 0) + 1
                return
            self._last[failure] = now
            unlogged = self._unlogged.pop(failure, 0)
        LOG.warning('Database failure (%s), answered 503: %s (%d more in '
                    'the last %ss)', failure.value, _cause(exc), unlogged,
                    self._interval)


def _cause(exc):
    """The innermost message of ``exc``'s chain (the driver's words)."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _unavailable_failure(exc):
    """The Failure making ``exc`` a 503, or None for a real fault.

    A DatabaseUnavailable, or a database error met outside the
    transaction layer whose connection could not be made or broke.
    """
    if isinstance(exc, failures.DatabaseUnavailable):
        return exc.failure
    if failures.classify(exc) is failures.Failure.DISCONNECTED:
        return failures.Failure.DISCONNECTED
    return None


def _unavailable_detail(exc):
    """What the 503 of ``exc`` tells the client."""
    if isinstance(exc, failures.CommitOutcomeUnknown):
        # A write that may have been made: taken as refused, and sent
        # again as it was, a claim would meet its own consumer.
        return ('The connection to the placement database was lost while '
                'committing: the change may or may not have been made; '
                'read it back before retrying.')
    return 'The placement database is unavailable; retry later.'


class FaultWrapper:
    """Outermost safety net below the request-id middleware.

    The traceback goes to the log, with the request id; the client gets
    only the error document.
    """

    def __init__(self, application):
        self.application = application
        self._outage_log = _OutageLog(_LOG_INTERVAL)

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        try:
            # The answer is held until the application has given its
            # status (as a wsgify layer's get_response holds it): a fault
            # before then is answered instead.
            status, headers, body = req.call_application(self.application)
        except Exception as exc:
            return self._fault(req, exc)(environ, start_response)
        start_response(status, headers)
        return body

    def _fault(self, req, exc):
        """The error response of ``exc``, logged."""
        failure = _unavailable_failure(exc)
        if failure is not None:
            self._outage_log.warn(failure, exc)
            return wsgi_wrapper.error_response(
                req, webob.exc.HTTPServiceUnavailable(
                    _unavailable_detail(exc),
                    headers={'Retry-After': str(RETRY_AFTER)}))
        LOG.exception('Uncaught exception in request %s',
                      req.environ.get(request_id.ENV_REQUEST_ID))
        return wsgi_wrapper.error_response(
            req, webob.exc.HTTPInternalServerError(
                'An unexpected error occurred; it has been logged.'))
