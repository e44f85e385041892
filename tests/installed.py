"""The installed package under test: its commands, run as an operator would.

``PLACEMENT_TEST_INSTALLED`` names the ``bin`` directory of a virtualenv
into which the built wheel was installed (``tools/check_installed_package.sh``
sets it). Then the gabbits run over HTTP against that install's
``placement-api``, and the test database is created by its
``placement-manage db sync``. The commands run from a temporary directory
with ``PYTHONPATH`` removed, so nothing of the checkout is on their
``sys.path``: a file missing from the wheel fails them.
"""

import contextlib
import os
import subprocess
import tempfile

from tests import processes

ENV_BIN = 'PLACEMENT_TEST_INSTALLED'


def bin_dir():
    """The install's ``bin`` directory, or '' when testing the checkout."""
    return os.environ.get(ENV_BIN, '')


def command(name):
    return os.path.join(bin_dir(), name)


def environment(**extra):
    """The environment of an installed command: no checkout on its path."""
    env = {key: value for key, value in os.environ.items()
           if key not in ('PYTHONPATH', 'PYTHONHOME', 'VIRTUAL_ENV')}
    env.update(extra)
    return env


def config_text(settings):
    """An ini file of ``{(group, option): value}``; lists and dicts in
    oslo.config's own syntax (``a,b``; ``key:value,key:value``)."""
    groups = {}
    for (group, option), value in settings.items():
        if isinstance(value, dict):
            value = ','.join(f'{key}:{item}' for key, item in value.items())
        elif isinstance(value, (list, tuple)):
            value = ','.join(str(item) for item in value)
        groups.setdefault(group, []).append(f'{option} = {value}')
    return ''.join(f'[{group}]\n' + ''.join(f'{line}\n' for line in lines)
                   for group, lines in groups.items())


def run(args, config_dir, **kwargs):
    """Run an installed command with ``config_dir/placement.conf``."""
    return subprocess.run(
        [command(args[0]), *args[1:]], cwd=config_dir, capture_output=True,
        text=True, env=environment(OS_PLACEMENT_CONFIG_DIR=config_dir),
        timeout=300, **kwargs)


def sync_database(url):
    """Create the schema of ``url`` with the installed ``db sync``."""
    with tempfile.TemporaryDirectory() as config_dir:
        _write_config(config_dir, {('placement_database', 'connection'): url})
        result = run(['placement-manage', 'db', 'sync'], config_dir)
    if result.returncode != 0:
        raise RuntimeError(f'placement-manage db sync failed: '
                           f'{result.stdout}{result.stderr}')


def _write_config(config_dir, settings):
    with open(os.path.join(config_dir, 'placement.conf'), 'w') as conf:
        conf.write(config_text(settings))


@contextlib.contextmanager
def serving(settings, script_name=None):
    """The installed service on a free port, configured with ``settings``.

    ``placement-api``; with ``script_name``, gunicorn loading
    ``placement.wsgi.api:application`` mounted under that prefix, as the
    README's deployment steps show. Yields the port.
    """
    port = processes.free_port()
    with tempfile.TemporaryDirectory() as config_dir:
        _write_config(config_dir, settings)
        if script_name is None:
            args = [command('placement-api'), '--port', str(port),
                    '--workers', '1', '--threads', '4']
            env = environment(OS_PLACEMENT_CONFIG_DIR=config_dir)
        else:
            args = [command('gunicorn'), '--bind', f'127.0.0.1:{port}',
                    '--limit-request-line', '0',
                    'placement.wsgi.api:application']
            env = environment(OS_PLACEMENT_CONFIG_DIR=config_dir,
                              SCRIPT_NAME=script_name)
        log_path = os.path.join(config_dir, 'server.log')
        with open(log_path, 'wb') as log:
            process = subprocess.Popen(args, cwd=config_dir, env=env,
                                       stdout=log, stderr=subprocess.STDOUT)
            try:
                processes.wait_until_up(
                    f'http://127.0.0.1:{port}{script_name or ""}/',
                    process, log_path)
                yield port
            finally:
                processes.stop(process)
