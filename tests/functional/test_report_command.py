"""placement-manage report: the same documents as the HTTP reports."""

import json

import pytest

from tests.functional import commands
from tests.functional import report_cloud
from tools import report_data


@pytest.fixture
def application(db_url):
    with report_data.serving(db_url) as application:
        yield application


@pytest.fixture
def config(tmp_path, db_url):
    return str(commands.write_config(
        tmp_path / 'manage.conf', placement_database={'connection': db_url},
        reports={'availability_zones': report_cloud.ZONES}))


def report(tmp_path, config, *args):
    return commands.run('placement-manage', '--config-file', config,
                        'report', *args, config_dir=tmp_path)


def report_json(tmp_path, config, *args):
    result = report(tmp_path, config, *args, '--format', 'json')
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize('path, args', [
    ('/reports/capacity?detail', ['capacity', '--detail']),
    ('/reports/capacity?area=compute&member_of=in:'
     'a1a1a1a1-0000-4000-8000-000000000001,'
     'a2a2a2a2-0000-4000-8000-000000000002',
     ['capacity', '--area', 'compute', '--member-of',
      'in:a1a1a1a1-0000-4000-8000-000000000001,'
      'a2a2a2a2-0000-4000-8000-000000000002']),
    ('/reports/usage?sort=VCPU', ['usage', '--sort', 'VCPU']),
    ('/reports/usage/p2?detail&resource=VCPU',
     ['usage', '--project', 'p2', '--detail', '--resource', 'VCPU']),
    ('/reports/headroom?resources=VCPU:4,MEMORY_MB:2048'
     '&required=!HW_CPU_X86_AVX2',
     ['headroom', '--resources', 'VCPU:4,MEMORY_MB:2048',
      '--required', '!HW_CPU_X86_AVX2']),
    # The page asks without a microversion: 1.0.
    ('/reports/explain?resources=VCPU:40&max_misses=2',
     ['explain', 'resources=VCPU:40&max_misses=2', '--microversion', '1.0']),
])
def test_json_is_the_http_document(tmp_path, application, config, path,
                                   args):
    expected = report_cloud.get_json(application, path)
    assert (report_cloud.without_times(report_json(tmp_path, config, *args))
            == report_cloud.without_times(expected))


def table_rows(stdout):
    """The cells of each row of the printed tables."""
    return [[cell.strip() for cell in line.strip('|').split('|')]
            for line in stdout.splitlines() if line.startswith('|')]


def test_explain_table(tmp_path, application, config):
    result = report(tmp_path, config, 'explain',
                    'resources=VCPU:4&resources1=VCPU:1,CUSTOM_LICENSE:1')
    assert result.returncode == 0, result.stderr
    assert table_rows(result.stdout) == [
        ['Group', 'Resources', 'Stage', 'Providers'],
        ['(unsuffixed)', 'VCPU:4', 'inventory', '3'],
        ['(unsuffixed)', 'VCPU:4', 'capacity', '3'],
        ['1', 'VCPU:1,CUSTOM_LICENSE:1', 'inventory', '1'],
        ['1', 'VCPU:1,CUSTOM_LICENSE:1', 'capacity', '1'],
        ['Stage', 'Trees'],
        ['groups', '1'],
        ['combined', '1'],
    ]
    assert 'Candidates: 1 (from 1 trees)' in result.stdout
    assert "  cn1: no inventory of CUSTOM_LICENSE (group '1')" in (
        result.stdout)


def test_explain_table_names_what_decided_the_request(tmp_path, application,
                                                      config):
    result = report(tmp_path, config, 'explain',
                    'resources=VCPU:1,PCI_DEVICE:1')
    assert result.returncode == 0, result.stderr
    assert ('Decided by:\n  no provider has inventory of PCI_DEVICE (the '
            'unsuffixed group)') in result.stdout
    assert table_rows(result.stdout)[:5] == [
        ['Group', 'Resources', 'Stage', 'Providers'],
        ['(unsuffixed)', 'VCPU:1', 'inventory', 'not counted'],
        ['(unsuffixed)', 'VCPU:1', 'capacity', 'not counted'],
        ['(unsuffixed)', 'PCI_DEVICE:1', 'inventory', '0'],
        ['(unsuffixed)', 'PCI_DEVICE:1', 'capacity', '0'],
    ]


def test_explain_reads_the_query_at_the_microversion(tmp_path, application,
                                                     config):
    result = report(tmp_path, config, 'explain',
                    'resources=VCPU:1&root_required=HW_CPU_X86_AVX2',
                    '--microversion', '1.34')
    assert result.returncode == 1
    assert "'root_required' does not match any of the regexes" in (
        result.stderr)
    result = report(tmp_path, config, 'explain',
                    'resources=VCPU:1&root_required=HW_CPU_X86_AVX2',
                    '--microversion', '1.35', '--format', 'json')
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)['explain']['candidates'] == 1


@pytest.mark.parametrize('version', ['1.40', '9.9', '0.5', 'garbage'])
def test_explain_takes_only_a_microversion_the_api_serves(
        tmp_path, config, version):
    """As the API (406, 400): 1.40 read the query as at 1.39."""
    result = report(tmp_path, config, 'explain', 'resources=VCPU:1',
                    '--microversion', version)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(
        f"argument --microversion: {version!r} is not a microversion "
        f"from 1.0 to 1.39")


def test_explain_options_are_checked_with_the_query(tmp_path, application,
                                                    config):
    result = report(tmp_path, config, 'explain', 'resources=VCPU:40',
                    '--max-misses', '1', '--format', 'json')
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)['explain']['misses']) == 1


@pytest.mark.parametrize('value', ['-5', '1000', 'many', ''])
def test_explain_max_misses_out_of_range_is_a_usage_error(tmp_path, config,
                                                          value):
    """In one line, as --microversion (it printed jsonschema's text of
    the API's 400, and exited 1)."""
    result = report(tmp_path, config, 'explain', 'resources=VCPU:1',
                    '--max-misses', value)
    assert result.returncode == 2
    assert result.stdout == ''
    assert result.stderr.startswith('usage: placement-manage report explain')
    assert result.stderr.splitlines()[-1] == (
        f'placement-manage report explain: error: argument --max-misses: '
        f'{value!r} is not an integer from 0 to 999')


@pytest.mark.parametrize('query, message', [
    ('resources=VCPU:1&limit=-5',
     "Invalid query string parameters: '-5' does not match "
     "'^[1-9]([0-9]+)?$'"),
    ('resources=VCPU:1&max_misses=1000',
     "Invalid query string parameters: '1000' does not match "
     "'^(0|[1-9][0-9]{0,2})$'"),
])
def test_explain_query_refused_in_one_line(tmp_path, config, query,
                                           message):
    """The API's words without what its 400 adds after them (where in
    the schema the value failed, over four more lines)."""
    result = report(tmp_path, config, 'explain', query)
    assert result.returncode == 1
    assert commands.only_line(result) == message


def test_capacity_table(tmp_path, application, config):
    result = report(tmp_path, config, 'capacity', '--resource', 'VCPU')
    assert result.returncode == 0, result.stderr
    assert table_rows(result.stdout) == [
        ['Service', 'Resource', 'Unit', 'Zone', 'Capacity', 'Raw capacity',
         'Usage', 'Free'],
        ['compute', 'VCPU', '', '(all)', '76', '28', '22', '54'],
        ['compute', 'VCPU', '', 'az1', '64', '16', '22', '42'],
        ['compute', 'VCPU', '', 'az2', '8', '8', '0', '8'],
        ['compute', 'VCPU', '', 'unknown', '4', '4', '0', '4'],
    ]


def test_capacity_table_of_a_class_in_two_services(tmp_path, application,
                                                   config):
    result = report(tmp_path, config, 'capacity', '--resource',
                    'CUSTOM_LICENSE', '--detail')
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stdout)
    assert rows[:4] == [
        ['Service', 'Resource', 'Unit', 'Zone', 'Capacity', 'Raw capacity',
         'Usage', 'Free'],
        ['compute', 'CUSTOM_LICENSE', '', '(all)', '4', '', '0', '4'],
        ['compute', 'CUSTOM_LICENSE', '', 'az2', '4', '', '0', '4'],
        ['storage', 'CUSTOM_LICENSE', '', '(all)', '10', '', '1', '9'],
    ]
    assert ['cn2', 'compute', 'CUSTOM_LICENSE', 'az2', '4', '', '0',
            ''] in rows
    assert ['shared-disk', 'storage', 'CUSTOM_LICENSE', 'az1,az2', '10',
            '', '1', 'MISC_SHARES_VIA_AGGREGATE'] in rows


def test_usage_table(tmp_path, application, config):
    result = report(tmp_path, config, 'usage', '--sort', 'VCPU')
    assert result.returncode == 0, result.stderr
    assert table_rows(result.stdout) == [
        ['Project', 'CUSTOM_LICENSE', 'DISK_GB', 'MEMORY_MB', 'SRIOV_NET_VF',
         'VCPU'],
        ['p2', '0', '0', '0', '1', '20'],
        ['p1', '1', '20', '1024', '0', '2'],
    ]


def test_headroom_table(tmp_path, application, config):
    result = report(tmp_path, config, 'headroom',
                    '--resources', 'VCPU:4,MEMORY_MB:2048')
    assert result.returncode == 0, result.stderr
    assert table_rows(result.stdout) == [
        ['Zone', 'Fit', 'Providers'],
        ['az1', '3', '1'],
        ['az2', '2', '1'],
        ['(all)', '5', '2'],
    ]
    assert 'Not counted: ' in result.stdout


@pytest.mark.parametrize('args, message', [
    (['headroom', '--resources', 'VCPU:0'], 'requires amount >= 1'),
    (['headroom', '--resources', 'VCPU:1', '--required', 'CUSTOM_NOPE'],
     'No such trait(s): CUSTOM_NOPE'),
    (['capacity', '--resource', 'CUSTOM_NOPE'],
     'No such resource class CUSTOM_NOPE'),
    (['capacity', '--member-of', 'f0f0f0f0-0000-4000-8000-000000000000'],
     'No such aggregate(s)'),
    (['usage', '--service', 'dns'], "service='dns' is not one of"),
])
def test_bad_input(tmp_path, application, config, args, message):
    result = report(tmp_path, config, *args)
    assert result.returncode == 1
    assert message in result.stderr
    assert result.stdout == ''


def test_malformed_zone_map(tmp_path, db_url):
    config = str(commands.write_config(
        tmp_path / 'bad.conf', placement_database={'connection': db_url},
        reports={'availability_zones': 'az1:not-a-uuid'}))
    result = report(tmp_path, config, 'capacity')
    assert result.returncode == 1
    assert '[reports] availability_zones' in result.stderr
