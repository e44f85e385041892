"""Options and sections of the configuration files that nothing reads.

What ``oslo-config-validator`` reports, found at every start so that a
typo (``conection``, ``[placement_databse]``) is not silently ignored.
Known are: the options of the ``oslo.config.opts`` namespaces of the
libraries the service uses (also those they register only when they
start: keystonemiddleware, oslo.middleware, osprofiler), the plugin
options of ``[keystone_authtoken] auth_type`` (keystoneauth), the
options registered on the process's ConfigOpts (a command's own), and
the upstream options that have no effect here (README, "Configuration
compatibility").
"""

import collections
import glob
import importlib.metadata
import os

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

# The config generator's namespaces (etc/placement/config-generator.conf)
# and those of the libraries that may be wired in besides.
NAMESPACES = ('placement.conf', 'keystonemiddleware.auth_token', 'oslo.log',
              'oslo.middleware', 'oslo.policy', 'osprofiler')

# Options of upstream's configuration reference that the installed
# libraries dropped or renamed, or that configure what this service does
# not do: accepted, without effect.
NO_EFFECT = {
    'DEFAULT': {'pybasedir', 'state_path', 'tempdir', 'use_eventlog',
                'watch_log_file', 'fatal_deprecations'},
    'keystone_authtoken': {'auth_uri'},
    'oslo_policy': {'enforce_scope', 'remote_ssl_verify_server_cert',
                    'remote_ssl_ca_cert_file', 'remote_ssl_client_cert_file'},
}

_AUTH_GROUP = 'keystone_authtoken'


def options(conf):
    """One warning per unknown section and option of the parsed files."""
    known = _known(conf)
    warnings = []
    for path in _parsed_files(conf):
        sections = {}
        cfg.ConfigParser(path, sections).parse()
        for section, values in sections.items():
            if section not in known:
                warnings.append(
                    f'Unknown section [{section}] in {path}: ignored')
                continue
            warnings.extend(
                f'Unknown option {name} in section [{section}] of {path}: '
                f'ignored' for name in values if name not in known[section])
    return warnings


def _parsed_files(conf):
    """The files oslo.config read: config_file, then each config_dir's."""
    paths = [path for path in conf.config_file or ()
             if os.path.isfile(path)]
    config_dirs = conf.config_dir or ()
    for directory in ([config_dirs] if isinstance(config_dirs, str)
                      else config_dirs):
        paths.extend(sorted(glob.glob(os.path.join(directory, '*.conf'))))
    return paths


def _known(conf):
    """``{section: {option names}}`` of everything something reads."""
    known = collections.defaultdict(set)
    for group, names in NO_EFFECT.items():
        known[group] |= names
    for group, opts in _listed_opts():
        _add(known, group, opts)
    for key in conf:
        value = conf[key]
        if isinstance(value, cfg.ConfigOpts.GroupAttr):
            known[key] |= set(value)
        else:
            known['DEFAULT'].add(key)
    _add(known, _AUTH_GROUP, _auth_plugin_opts(conf))
    auth_section = conf[_AUTH_GROUP].auth_section
    if auth_section:
        _add(known, auth_section, _auth_plugin_opts(conf))
    return known


def _listed_opts():
    """``(group name, opts)`` of the libraries' namespaces."""
    for entry_point in importlib.metadata.entry_points(
            group='oslo.config.opts'):
        if entry_point.name in NAMESPACES:
            for group, opts in entry_point.load()():
                yield str(group or 'DEFAULT'), opts


def _add(known, group, opts):
    """Record ``opts`` of ``group`` under their names and former names."""
    for opt in opts:
        known[group] |= {opt.dest, opt.name}
        for old in opt.deprecated_opts:
            known[old.group or group].add(
                (old.name or opt.dest).replace('-', '_'))


def _auth_plugin_opts(conf):
    """The options of the keystoneauth plugin ``auth_type`` names."""
    auth_type = conf[_AUTH_GROUP].auth_type
    if not auth_type:
        return []
    try:
        return ks_loading.get_plugin_loader(auth_type).get_options()
    except ks_exceptions.NoMatchingPlugin:
        return []
