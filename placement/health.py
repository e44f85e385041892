"""GET /healthcheck: oslo.middleware's healthcheck application.

Served before authentication, as nova-api, keystone and cinder serve
it: 200 (204 to HEAD) when every backend of ``[healthcheck] backends``
is well, else 503. The service's own backend, ``placement_database``
(the default, an ``oslo.middleware.healthcheck`` entry point), asks the
database ``SELECT 1`` on a connection of its own; ``disable_by_file``
with ``disable_by_file_path`` lets an operator drain a node. Without
``[healthcheck] detailed`` the body names only the reasons, never the
error. A 503 carries ``Retry-After``, as the API's own 503s do
(:data:`placement.fault_wrap.RETRY_AFTER`).
"""

import logging

import sqlalchemy as sa
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from placement import fault_wrap
from placement.db import api as db_api
from placement.db import failures

LOG = logging.getLogger(__name__)

PATH = '/healthcheck'
OK = 'OK'
UNAVAILABLE = 'DATABASE UNAVAILABLE'


class DatabaseCheck(pluginbase.HealthcheckBaseExtension):
    """Whether the database answers ``SELECT 1`` now."""

    def __init__(self, oslo_conf, conf):
        super().__init__(oslo_conf, conf)
        self._engine = db_api.probe_engine(oslo_conf.placement_database)

    def healthcheck(self, server_port):
        try:
            with self._engine.connect() as conn:
                conn.exec_driver_sql('SELECT 1')
        except sa.exc.DBAPIError as exc:
            failure = failures.classify(exc) or failures.Failure.DISCONNECTED
            LOG.warning('Health check: the database does not answer (%s)',
                        failure.value)
            return pluginbase.HealthcheckResult(
                available=False, reason=UNAVAILABLE, details=failure.value)
        return pluginbase.HealthcheckResult(available=True, reason=OK)


def middleware(conf):
    """Serve ``/healthcheck`` with oslo.middleware's application; other
    paths (and requests its ``allowed_source_ranges`` ignore) pass on."""
    def wrap(application):
        check = healthcheck.Healthcheck(application, conf)

        def dispatch(environ, start_response):
            if environ.get('PATH_INFO') == PATH:
                return check(environ, _retry_after_503(start_response))
            return application(environ, start_response)
        return dispatch
    return wrap


def _retry_after_503(start_response):
    """``start_response`` that adds ``Retry-After`` to a 503 (oslo's
    answer has none), so that a client polling the check knows when to
    ask again."""
    def start(status, headers, exc_info=None):
        if status.startswith('503') and not any(
                name.lower() == 'retry-after' for name, _value in headers):
            headers = [*headers,
                       ('Retry-After', str(fault_wrap.RETRY_AFTER))]
        return start_response(status, headers, exc_info)
    return start
