"""The Prometheus metrics of the API port."""

from placement.contract import Operation
from placement.handlers import metrics
from placement.policies import metrics as policies

#: Outside the microversioned API, and not JSON.
OPERATIONS = (
    Operation('GET', '/metrics', metrics.scrape,
              'Prometheus metrics (text format, outside the microversioned '
              'API).', policy=policies.METRICS, produces=()),
)
