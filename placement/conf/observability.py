"""The ``[metrics]`` and ``[request_log]`` groups, and the libraries'
``[healthcheck]`` (oslo.middleware) and ``[profiler]`` (osprofiler)."""

from oslo_config import cfg
from oslo_middleware.healthcheck import opts as healthcheck_opts
from osprofiler import opts as profiler_opts

from placement.conf import groups

PROFILER = 'profiler'
#: The healthcheck backend of the database (setup.cfg's entry point).
DATABASE_BACKEND = 'placement_database'

metrics_group = cfg.OptGroup(
    'metrics', title='Prometheus metrics',
    help='GET /metrics: request, database, allocation candidate and '
         'capacity metrics in the Prometheus text format.')

metrics_opts = [
    cfg.BoolOpt(
        'enabled',
        default=True,
        help='Serve GET /metrics on the API port (policy rule '
             '``placement:metrics``, by default admin and service '
             'tokens). False: 404, and nothing is measured.'),
    cfg.IntOpt(
        'capacity_cache_time',
        default=30,
        min=0,
        help='Seconds a worker reuses the capacity and usage gauges '
             '(per provider under openstack-exporter\'s names, per '
             'class and per availability zone) it read from the '
             'database for a scrape: scrapes within this period cost '
             'no query. 0: read them for every scrape.'),
    cfg.BoolOpt(
        'per_provider',
        default=True,
        help='Export the capacity gauges of every provider under '
             'openstack-exporter\'s names (four series per provider and '
             'class: 120,000 at 10,000 compute nodes). False: only the '
             'totals per class and availability zone.'),
    cfg.HostAddressOpt(
        'listen_host',
        default='127.0.0.1',
        help='Address of the management listener (see ``listen_port``).'),
    cfg.PortOpt(
        'listen_port',
        help='When set, ``placement-api`` also listens on '
             '``listen_host:listen_port`` and serves there GET /metrics '
             'and GET /healthcheck without a token, and nothing else: '
             'for a management network where Prometheus scrapes. Only '
             'requests the gunicorn workers of ``placement-api`` '
             'accepted on that socket are served so; under another '
             'WSGI server scrape the API port with a token. Unset: no '
             'such listener.'),
]

request_log_group = cfg.OptGroup(
    'request_log', title='Request log',
    help='The log line of each request.')

request_log_opts = [
    cfg.FloatOpt(
        'slow_threshold',
        default=10.0,
        min=0,
        help='A request that took more than this many seconds is '
             'logged once more as a warning, with its time split into '
             'SQL, JSON serialisation and the rest. 0: never.'),
]


def register_opts(conf):
    groups.register(conf, metrics_group, metrics_opts)
    groups.register(conf, request_log_group, request_log_opts)
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group='healthcheck')
    conf.register_opts(healthcheck_opts.DISABLE_BY_FILE_OPTS,
                       group='healthcheck')
    conf.set_default('backends', [DATABASE_BACKEND], group='healthcheck')
    # By group name, not osprofiler's module-level group (see groups).
    for group, opts in profiler_opts.list_opts():
        if group == PROFILER:
            conf.register_opts(opts, group=group)


def list_opts():
    return {metrics_group: metrics_opts,
            request_log_group: request_log_opts}
