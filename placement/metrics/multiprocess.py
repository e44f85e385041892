"""``prometheus_client``'s multiprocess mode for ``placement-api``.

Each worker of a WSGI server is a process of its own; in multiprocess
mode each writes its metrics to files in ``$PROMETHEUS_MULTIPROC_DIR``
and a scrape, whichever worker answers it, sums them. The variable must
be set before ``prometheus_client`` is first imported, and the
directory emptied when the server starts, or the counts of a previous
run would be added in. ``placement-api`` does both (:func:`prepare`,
before it imports the application); under another WSGI server the
operator does (see the docs). This module imports ``prometheus_client``
only in :func:`worker_exited`, after :func:`prepare`.
"""

import glob
import os
import shutil
import tempfile

ENV = 'PROMETHEUS_MULTIPROC_DIR'


def prepare():
    """Set up an empty directory for the workers' files.

    ``$PROMETHEUS_MULTIPROC_DIR`` if set (its ``*.db`` files removed),
    else a new temporary one, named in the variable for the workers.
    Returns a function that removes what was made here, in this process
    only (a forked worker leaving the server's ``main`` calls it too).
    """
    path = os.environ.get(ENV)
    if path:
        os.makedirs(path, exist_ok=True)
        for stale in glob.glob(os.path.join(path, '*.db')):
            os.remove(stale)
        return lambda: None
    path = tempfile.mkdtemp(prefix='placement-metrics-')
    os.environ[ENV] = path
    owner = os.getpid()

    def clean_up():
        if os.getpid() == owner:
            shutil.rmtree(path, ignore_errors=True)
    return clean_up


def forget_this_process():
    """Remove this process's files: the metrics of the server's own
    start-up (its database check), which no worker made."""
    for path in glob.glob(os.path.join(os.environ[ENV],
                                       f'*_{os.getpid()}.db')):
        os.remove(path)


def worker_exited(pid):
    """Drop the live gauges (requests in flight, pool) of a dead worker;
    its counters stay, as counts of what it did."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)
