"""A real placement-api server (gunicorn) in a subprocess, for client tests."""

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request

from placement.db import api as db_api
from tests import database


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def venv_command(name):
    """A console script installed next to this interpreter."""
    return os.path.join(os.path.dirname(sys.executable), name)


@contextlib.contextmanager
def running_server(tmp_path, workers=1, threads=4, url=None,
                   extra_conf='', env=None, processes=None):
    """Serve a database over HTTP; yields the endpoint URL.

    By default the test database, emptied first; else the database of
    ``url`` as it is. ``extra_conf`` is added to the configuration file,
    ``env`` to the server's environment; ``processes``, a list if given,
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
    port = _free_port()
    log = open(tmp_path / 'server.log', 'wb')
    process = subprocess.Popen(
        [venv_command('placement-api'), '--config-file', str(conf_file),
         '--port', str(port), '--workers', str(workers),
         '--threads', str(threads)],
        stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
        env=None if env is None else {**os.environ, **env})
    if processes is not None:
        processes.append(process)
    endpoint = f'http://127.0.0.1:{port}'
    try:
        _wait_until_up(endpoint, process, tmp_path / 'server.log')
        yield endpoint
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _wait_until_up(endpoint, process, log_path, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f'placement-api exited: {log_path.read_text()}')
        try:
            with urllib.request.urlopen(endpoint + '/', timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f'placement-api did not answer: {log_path.read_text()}')
