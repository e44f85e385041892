"""The ``[api]`` group."""

from oslo_config import cfg

from placement.conf import groups

#: ``stream_above_bytes``'s default: 1 MiB.
STREAM_ABOVE_BYTES = 1024 * 1024

api_group = cfg.OptGroup(
    'api', title='API options',
    help='Options under this group are used to define Placement API.')

api_opts = [
    cfg.StrOpt(
        'auth_strategy',
        default='keystone',
        choices=('keystone', 'noauth2'),
        deprecated_group='DEFAULT',
        help="""
This determines the strategy to use for authentication: keystone or noauth2.
'noauth2' is designed for testing only, as it does no actual credential
checking. 'noauth2' provides administrative credentials only if 'admin' is
specified as the username.
"""),
    cfg.IntOpt(
        'stream_above_bytes',
        default=STREAM_ABOVE_BYTES,
        min=0,
        help="""
A JSON answer larger than this many bytes (a large list of allocation
candidates, of resource providers, a report) is streamed: sent as it is
made, without Content-Length (chunked over HTTP/1.1, the connection kept
for the next request), so that a worker holds the providers the answer
is made from rather than the answer. A smaller answer is made whole
before it is sent, with its Content-Length. The client reads the same
JSON either way; a failure after the first byte of a streamed answer
drops the connection (the body is left incomplete) instead of answering
an error. 0 streams every JSON answer.
"""),
]


def register_opts(conf):
    groups.register(conf, api_group, api_opts)


def list_opts():
    return {api_group: api_opts}
