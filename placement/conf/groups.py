"""Option groups owned by one ConfigOpts.

oslo.config keeps a shallow copy of a registered OptGroup, and the copy
shares the option table (overrides included) of the group object it came
from: a module-level group registered in two ConfigOpts would leak one's
``set_override`` into the other. Each ConfigOpts gets a group of its own.
"""

from oslo_config import cfg


def register(conf, group, opts):
    """Register ``opts`` in a fresh copy of ``group`` owned by ``conf``."""
    conf.register_group(cfg.OptGroup(group.name, title=group.title,
                                     help=group.help))
    conf.register_opts(opts, group=group.name)
