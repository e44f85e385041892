"""Policy rule of GET /metrics (outside the microversioned API)."""

from placement.policies import base

METRICS = 'placement:metrics'

_RULES = [
    base.api_rule(
        METRICS, base.ADMIN_OR_SERVICE_API,
        'Read the Prometheus metrics: request and database counters, '
        'and capacity and usage per provider, class and availability '
        'zone.',
        [('GET', '/metrics')]),
]


def list_rules():
    return _RULES
