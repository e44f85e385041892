"""The installed package, as the README's deployment steps use it.

Run by ``tools/check_installed_package.sh`` (CI) on a wheel installed
into a fresh virtualenv, with ``PLACEMENT_TEST_INSTALLED`` naming its
``bin`` directory; the gabbits then run against the same install over
HTTP. Every command runs outside the checkout, without ``PYTHONPATH``.
"""

import json
import os
import re
import subprocess
import urllib.request

import pytest

from placement.db import migration
from tests import database
from tests import installed

pytestmark = pytest.mark.installed

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# What an operator's oslo-config-generator and oslopolicy-sample-generator
# are given without a checkout (etc/placement/*-generator.conf name the
# same namespaces).
CONFIG_NAMESPACES = ('placement.conf', 'keystonemiddleware.auth_token',
                     'oslo.log', 'oslo.middleware.cors',
                     'oslo.middleware.healthcheck',
                     'oslo.middleware.http_proxy_to_wsgi', 'oslo.policy',
                     'osprofiler')


@pytest.fixture(scope='module', autouse=True)
def _installed():
    if not installed.bin_dir():
        pytest.fail(f'{installed.ENV_BIN} must name the bin directory of '
                    'the install under test (see '
                    'tools/check_installed_package.sh)')


@pytest.fixture
def config_dir(tmp_path):
    """A configuration directory with a new, empty database."""
    url = database.new_empty_database_url()
    (tmp_path / 'placement.conf').write_text(installed.config_text({
        ('placement_database', 'connection'): url,
        ('api', 'auth_strategy'): 'noauth2'}))
    return str(tmp_path)


def _package_files(root):
    return {os.path.relpath(os.path.join(path, name), root)
            for path, dirs, names in os.walk(root)
            if '__pycache__' not in path
            for name in names if not name.endswith('.pyc')}


def test_the_install_carries_every_file_of_the_package(tmp_path):
    result = subprocess.run(
        [installed.command('python'), '-c',
         'import os, placement; print(os.path.dirname(placement.__file__))'],
        cwd=tmp_path, env=installed.environment(), capture_output=True,
        text=True, check=True)
    package_dir = result.stdout.strip()
    checkout_package = os.path.join(CHECKOUT, 'placement')
    assert package_dir != checkout_package, 'an editable install'
    tracked = subprocess.run(
        ['git', 'ls-files', 'placement'], cwd=CHECKOUT, capture_output=True,
        text=True, check=True).stdout.split()
    expected = {os.path.relpath(path, 'placement') for path in tracked}
    assert expected, 'no tracked file under placement/'
    assert expected - _package_files(package_dir) == set()


def test_db_sync_then_version_and_upgrade_check(config_dir):
    sync = installed.run(['placement-manage', 'db', 'sync'], config_dir)
    assert sync.returncode == 0, sync.stderr
    version = installed.run(['placement-manage', 'db', 'version'], config_dir)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == migration.head_version()
    check = installed.run(['placement-status', 'upgrade', 'check'],
                          config_dir)
    assert check.returncode == 0, check.stdout + check.stderr
    assert 'Success' in check.stdout


def _get(port, path, **headers):
    request = urllib.request.Request(f'http://127.0.0.1:{port}{path}',
                                     headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.headers, response.read()


def test_the_server_serves_the_api_the_page_and_the_document():
    url = database.database_url()
    with installed.serving({('placement_database', 'connection'): url,
                            ('api', 'auth_strategy'): 'noauth2'}) as port:
        status, _, body = _get(port, '/resource_providers',
                               **{'X-Auth-Token': 'admin'})
        assert status == 200
        assert 'resource_providers' in json.loads(body)

        status, headers, page = _get(port, '/reports/')
        assert status == 200
        assert headers['Content-Type'].startswith('text/html')
        assets = re.findall(r'(?:src|href)="(?:\./|/reports/)?static/'
                            r'([^"]+)"', page.decode())
        static = os.path.join(CHECKOUT, 'placement', 'reports', 'static')
        assert sorted(assets) == sorted(
            set(os.listdir(static)) - {'index.html'})
        for asset in assets:
            status, _, content = _get(port, f'/reports/static/{asset}')
            assert status == 200 and content

        status, _, document = _get(port, '/openapi.json')
        assert status == 200
        with open(os.path.join(CHECKOUT, 'api-ref', 'openapi.json')) as ref:
            assert json.loads(document) == json.load(ref)


def test_the_gunicorn_command_of_the_readme_serves_the_wsgi_module():
    url = database.database_url()
    with installed.serving({('placement_database', 'connection'): url,
                            ('api', 'auth_strategy'): 'noauth2'},
                           script_name='/placement') as port:
        status, _, body = _get(port, '/placement/')
        assert status == 200
        assert json.loads(body)['versions'][0]['id'] == 'v1.0'


def test_the_sample_config_and_policy_generate_from_namespaces(tmp_path):
    sample = tmp_path / 'placement.conf.sample'
    args = ['oslo-config-generator', '--output-file', str(sample)]
    for namespace in CONFIG_NAMESPACES:
        args += ['--namespace', namespace]
    result = installed.run(args, str(tmp_path))
    assert result.returncode == 0, result.stderr
    text = sample.read_text()
    for group in ('[placement_database]', '[api]', '[keystone_authtoken]',
                  '[placement]', '[reports]', '[cors]', '[oslo_policy]',
                  '[healthcheck]', '[profiler]'):
        assert group in text

    policy = tmp_path / 'policy.yaml.sample'
    result = installed.run(['oslopolicy-sample-generator', '--namespace',
                            'placement', '--output-file', str(policy)],
                           str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert '"placement:resource_providers:list"' in policy.read_text()


def test_the_namespaces_are_those_of_the_generator_config():
    with open(os.path.join(CHECKOUT, 'etc', 'placement',
                           'config-generator.conf')) as conf:
        named = re.findall(r'^namespace = (\S+)$', conf.read(), re.M)
    assert tuple(named) == CONFIG_NAMESPACES
