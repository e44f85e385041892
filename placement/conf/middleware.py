"""``[oslo_middleware] max_request_body_size``, with Placement's default.

oslo.middleware's own default (112 KiB) refuses legitimate bodies:
POST /allocations of 1,000 consumers on 3 providers each is 0.67 MB,
a reshape of a tree of 256 providers with 4 classes each and 1,024
consumers 0.69 MB, PUT .../aggregates of 10,000 uuids 0.40 MB
(``tests/functional/test_body_limit.py`` sends them). The default is
about six times the largest.
"""

from oslo_config import cfg
from oslo_middleware import sizelimit

DEFAULT_MAX_REQUEST_BODY_SIZE = 4 * 1024 * 1024


def register_opts(conf):
    conf.register_opts(sizelimit.OPTS, group='oslo_middleware')
    conf.set_default('max_request_body_size', DEFAULT_MAX_REQUEST_BODY_SIZE,
                     group='oslo_middleware')


def set_defaults():
    """For oslo-config-generator (``oslo.config.opts.defaults``)."""
    cfg.set_defaults(sizelimit.OPTS,
                     max_request_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE)
