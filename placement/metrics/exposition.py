"""The answer to a scrape: every metric in the Prometheus text format."""

import os

import prometheus_client
import webob
from prometheus_client import multiprocess as prom_multiprocess

from placement.metrics import capacity

CONTENT_TYPE = prometheus_client.CONTENT_TYPE_LATEST
#: Where the middleware leaves the :class:`Exposition` for the handler.
ENVIRON = 'placement.metrics'


def _registry():
    """The metrics of every worker in multiprocess mode, else this
    process's."""
    if os.environ.get('PROMETHEUS_MULTIPROC_DIR'):
        registry = prometheus_client.CollectorRegistry()
        prom_multiprocess.MultiProcessCollector(registry)
        return registry
    return prometheus_client.REGISTRY


class Exposition:
    """The metrics of a service: its own, and its database's capacity."""

    def __init__(self, conf, db):
        self.capacity = capacity.CapacityGauges(conf, db)

    def body(self):
        return (prometheus_client.generate_latest(_registry())
                + self.capacity.text())


def response(environ):
    """The answer to a scrape: every metric, as text."""
    return webob.Response(body=environ[ENVIRON].body(),
                          content_type=CONTENT_TYPE, charset=None)
