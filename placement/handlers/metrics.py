"""Handler of GET /metrics on the API port (policy ``placement:metrics``)."""

import webob.exc

from placement.metrics import exposition


def scrape(req):
    """Every metric in the Prometheus text format; 404 when
    ``[metrics] enabled`` is off."""
    if exposition.ENVIRON not in req.environ:
        raise webob.exc.HTTPNotFound(
            f'The resource could not be found: {req.path_info}')
    return exposition.response(req.environ)
