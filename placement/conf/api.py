"""The ``[api]`` group."""

from oslo_config import cfg

from placement.conf import groups

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
]


def register_opts(conf):
    groups.register(conf, api_group, api_opts)


def list_opts():
    return {api_group: api_opts}
