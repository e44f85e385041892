"""``[oslo_middleware] max_request_body_size``, with Placement's default.

oslo.middleware's own default (112 KiB) refuses legitimate bodies:
POST /allocations of 1,000 consumers on 3 providers each is 0.67 MB,
a reshape of a tree of 256 providers with 4 classes each and 1,024
consumers 0.69 MB, PUT .../aggregates of 10,000 uuids 0.40 MB
(``tests/functional/test_body_limit.py`` sends them). The default is
about six times the largest.
"""

import copy

from oslo_config import cfg
from oslo_middleware import sizelimit

DEFAULT_MAX_REQUEST_BODY_SIZE = 4 * 1024 * 1024


def register_opts(conf):
    conf.register_opts(sizelimit.OPTS, group='oslo_middleware')
    conf.set_default('max_request_body_size', DEFAULT_MAX_REQUEST_BODY_SIZE,
                     group='oslo_middleware')


def list_opts():
    """The option with this default, for the sample file and the docs
    (oslo.middleware's own namespace would show its default)."""
    opts = copy.deepcopy(sizelimit.OPTS)
    cfg.set_defaults(opts,
                     max_request_body_size=DEFAULT_MAX_REQUEST_BODY_SIZE)
    return {'oslo_middleware': opts}
