"""The sample configuration and policy files come out of the oslo tools."""

import configparser
import os

import yaml

from placement import policies
from tests.functional import commands

ETC = os.path.join(commands.REPO_DIR, 'etc', 'placement')
_RP = 'placement:resource_providers'
# The rules of the policy reference.
RULES = {
    'placement:allocation_candidates:list',
    *(f'placement:allocations:{action}'
      for action in ('delete', 'list', 'manage', 'update')),
    'placement:reshaper:reshape',
    *(f'placement:resource_classes:{action}'
      for action in ('create', 'delete', 'list', 'show', 'update')),
    *(f'{_RP}:{action}'
      for action in ('create', 'delete', 'list', 'show', 'update',
                     'usages', 'allocations:list', 'aggregates:list',
                     'aggregates:update', 'traits:delete', 'traits:list',
                     'traits:update')),
    *(f'{_RP}:inventories:{action}'
      for action in ('create', 'delete', 'list', 'show', 'update')),
    *(f'placement:traits:{action}'
      for action in ('delete', 'list', 'show', 'update')),
    'placement:usages',
    *(f'placement:reports:{report}'
      for report in ('audit', 'capacity', 'explain', 'headroom', 'usage')),
    'placement:metrics',
}


def generate(tmp_path, config_dir, tool, generator_conf):
    output = tmp_path / 'sample'
    result = commands.run(
        tool, '--config-file', os.path.join(ETC, generator_conf),
        '--output-file', str(output), config_dir=config_dir,
        cwd=commands.REPO_DIR)
    assert result.returncode == 0, result.stderr
    return output.read_text()


def commented_options(sample):
    """{group: {option names}} of a sample where every option is
    commented out (``#name = default``)."""
    groups, group = {}, None
    for line in sample.splitlines():
        if line.startswith('[') and line.endswith(']'):
            group = groups.setdefault(line[1:-1], set())
        elif group is not None and line.startswith('#') and ' = ' in line:
            group.add(line[1:].split(' = ', 1)[0])
    return groups


def test_config_sample(tmp_path, config_dir):
    sample = generate(tmp_path, config_dir, 'oslo-config-generator',
                      'config-generator.conf')
    # Everything is commented out: a valid, empty configuration file.
    assert configparser.ConfigParser().read_string(sample) is None
    options = commented_options(sample)
    assert 'auth_strategy' in options['api']
    assert {'allocation_conflict_retry_count',
            'incomplete_consumer_project_id',
            'randomize_allocation_candidates'} <= options['placement']
    assert {'connection', 'sync_on_startup'} <= (
        options['placement_database'])
    assert 'www_authenticate_uri' in options['keystone_authtoken']
    assert 'allowed_origin' in options['cors']
    assert 'policy_file' in options['oslo_policy']
    assert 'debug' in options['DEFAULT']


def test_policy_sample(tmp_path, config_dir):
    sample = generate(tmp_path, config_dir, 'oslopolicy-sample-generator',
                      'policy-generator.conf')
    # Rules are commented out: uncommented, the sample is valid YAML.
    rules = yaml.safe_load('\n'.join(
        line[1:] for line in sample.splitlines()
        if line.startswith('#"')))
    assert len(RULES) == 39
    assert {name for name in rules if name.startswith('placement:')} == (
        RULES)
    assert set(rules) == {rule.name for rule in policies.list_rules()}
