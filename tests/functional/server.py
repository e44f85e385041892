"""A real placement-api server (gunicorn) in a subprocess, for client tests."""

import contextlib
import os
import subprocess
import sys

from placement.db import api as db_api
from tests import database
from tests import processes
from tests.functional import commands


def venv_command(name):
    """A console script installed next to this interpreter."""
    return os.path.join(os.path.dirname(sys.executable), name)


@contextlib.contextmanager
def running_server(tmp_path, workers=1, threads=4, url=None,
                   extra_conf='', env=None, started=None):
    """Serve a database over HTTP; yields the endpoint URL.

    By default the test database, emptied first; else the database of
    ``url`` as it is. ``extra_conf`` is added to the configuration file,
    ``env`` to the server's environment; ``started``, a list if given,
    receives the server's Popen.
    """
    if url is None:
        url = database.database_url()
        db = db_api.Database(database.make_conf(url).placement_database)
        database.empty(db.engine)
        db.dispose()
    conf_file = tmp_path / 'placement.conf'
    conf_file.write_text(
        '[api]\nauth_strategy = noauth2\n'
        f'[placement_database]\nconnection = {url}\n' + extra_conf)
    port = processes.free_port()
    log = open(tmp_path / 'server.log', 'wb')
    process = subprocess.Popen(
        [venv_command('placement-api'), '--config-file', str(conf_file),
         '--port', str(port), '--workers', str(workers),
         '--threads', str(threads)],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
        env=None if env is None else {**os.environ, **env})
    if started is not None:
        started.append(process)
    endpoint = f'http://127.0.0.1:{port}'
    try:
        processes.wait_until_up(endpoint + '/', process,
                                tmp_path / 'server.log')
        yield endpoint
    finally:
        # Longer than the server's own --graceful-timeout (30 s), after
        # which it kills its workers and still cleans up and exits 0.
        processes.stop(process, timeout=45)
        log.close()


def start_dev(workdir, *args, env=None):
    """``placement-api --dev`` in ``workdir`` (its SQLite file there) on
    a free port, with ``args``; (the Popen, its base URL) once it
    answers. Its output goes to ``workdir/placement-api.log``."""
    log_path = workdir / 'placement-api.log'
    port = processes.free_port()
    with open(log_path, 'ab') as log:
        process = subprocess.Popen(
            [venv_command('placement-api'), '--dev', '--port', str(port),
             *args],
            cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
            env={**commands.environ(workdir), **(env or {})})
    endpoint = f'http://127.0.0.1:{port}'
    try:
        processes.wait_until_up(endpoint + '/', process, log_path)
    except BaseException:
        processes.stop(process)
        raise
    return process, endpoint


def children(pid):
    """The pids of the direct children of ``pid`` (Linux /proc)."""
    try:
        with open(f'/proc/{pid}/task/{pid}/children') as f:
            return sorted(int(child) for child in f.read().split())
    except OSError:
        return []

