"""The ``[reports]`` group: what the operators' reports need to know."""

from oslo_config import cfg

from placement.conf import groups

reports_group = cfg.OptGroup(
    'reports', title='Capacity reports',
    help='Options of the capacity, usage and headroom reports.')

reports_opts = [
    cfg.DictOpt(
        'availability_zones',
        default={},
        help="""
Availability zones of the reports, as ``name:aggregate_uuid`` pairs
separated by commas, e.g. ``az1:UUID1,az2:UUID2``. Nova mirrors each
availability zone's host aggregate into a placement aggregate of the same
uuid. A provider tree whose root is in none of these aggregates is in the
zone ``unknown``; a tree in two of them counts in both zones (and once in
the totals). A malformed map stops the service at start.
"""),
]


def register_opts(conf):
    groups.register(conf, reports_group, reports_opts)


def list_opts():
    return {reports_group: reports_opts}
