"""Servers the tests start as processes: a free port, waiting until up,
stopping, requests on one kept-alive connection."""

import http.client
import socket
import subprocess
import time
import urllib.request


def free_port():
    """A port on 127.0.0.1 nothing listens on (just now)."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def wait_until_up(url, process, log_path, timeout=60):
    """Wait until ``url`` answers; fail with the log if ``process`` exits
    or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f'{process.args[0]} exited: {_read(log_path)}')
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f'{process.args[0]} did not answer: {_read(log_path)}')


def stop(process, timeout=30):
    """SIGTERM, then SIGKILL after ``timeout`` seconds; the exit status
    (None when it had to be killed)."""
    process.terminate()
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


def _read(path):
    with open(path, errors='replace') as log:
        return log.read()


def answers_on_one_connection(host, port, path, headers=None, count=2):
    """``[(response, body)]`` of ``count`` GETs of ``path`` sent one after
    the other on one HTTP/1.1 connection; fails if an answer closes it."""
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        answers = []
        for _ in range(count):
            connection.request('GET', path, headers=headers or {})
            response = connection.getresponse()
            answers.append((response, response.read()))
            # http.client drops a connection the answer closes.
            assert connection.sock is not None
    finally:
        connection.close()
    return answers
