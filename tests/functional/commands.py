"""Running the console scripts of the service as an operator would.

The scripts are those installed next to the test interpreter. Each runs in
an environment of its own: ``OS_*`` variables of the caller are dropped so
that no ambient option leaks in, and ``OS_PLACEMENT_CONFIG_DIR`` points at
a directory the test controls.
"""

import os
import socket
import subprocess
import sys

from placement.conf import loading

BIN_DIR = os.path.dirname(sys.executable)
REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TIMEOUT = 120


def script(name):
    """The path of console script ``name``."""
    return os.path.join(BIN_DIR, name)


def environ(config_dir):
    """The caller's environment without ``OS_*``, reading ``config_dir``."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith('OS_')}
    env[loading.CONFIG_DIR_ENV] = str(config_dir)
    return env


def run(name, *args, config_dir, cwd=None):
    """Run console script ``name``; the CompletedProcess, text output."""
    return subprocess.run(
        [script(name), *args], env=environ(config_dir),
        cwd=cwd or config_dir, capture_output=True, text=True,
        timeout=TIMEOUT)


def start_python(code, *args, config_dir, cwd=None):
    """Start ``python -c code *args`` (a Popen) reading ``config_dir``."""
    return subprocess.Popen(
        [sys.executable, '-c', code, *args], env=environ(config_dir),
        cwd=cwd or config_dir, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def finish(process):
    """Wait for ``process``; a CompletedProcess of it."""
    stdout, stderr = process.communicate(timeout=TIMEOUT)
    return subprocess.CompletedProcess(
        process.args, process.returncode, stdout, stderr)


def write_config(path, **sections):
    """Write an ini file: ``sections`` maps group names to option dicts."""
    with open(path, 'w') as handle:
        for group, options in sections.items():
            handle.write(f'[{group}]\n')
            for name, value in options.items():
                handle.write(f'{name} = {value}\n')
    return path


def only_line(result):
    """The one line a command printed; it says nothing else."""
    output = result.stdout + result.stderr
    assert 'Traceback' not in output, output
    lines = output.splitlines()
    assert len(lines) == 1, output
    return lines[0]


def placement_api(config_dir, *args, cwd=None):
    """Run placement-api on a free port; for starts that must fail."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    return run('placement-api', '--port', str(port), *args,
               config_dir=config_dir, cwd=cwd)


def placement_manage(config_dir, *args):
    """Run ``placement-manage *args``; the CompletedProcess."""
    return run('placement-manage', *args, config_dir=config_dir)


def manage_config(tmp_path, url, **sections):
    """The path of a configuration file for database ``url``."""
    return str(write_config(
        tmp_path / 'manage.conf',
        placement_database={'connection': url}, **sections))


def db_command(config_dir, conf, *args):
    """``placement-manage --config-file conf db *args``, which must work."""
    result = placement_manage(config_dir, '--config-file', conf, 'db', *args)
    assert result.returncode == 0, result.stderr
    return result


def online_migrations(config_dir, conf, *args):
    return placement_manage(config_dir, '--config-file', conf, 'db',
                            'online_data_migrations', *args)


def db_version(config_dir, conf):
    """What ``placement-manage db version`` prints."""
    return db_command(config_dir, conf, 'version').stdout.strip()
