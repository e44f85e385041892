"""placement-api's worker tells gunicorn's master it is alive once per
check interval, not at every turn of its loop."""

import logging
import os

from placement.wsgi import server


class _Worker(server.Worker):
    """The worker's loop state alone (gunicorn's worker needs sockets)."""

    def __init__(self, ppid):
        self.ppid = ppid
        self.told = []
        self.log = logging.getLogger(__name__)

    def notify(self):
        self.told.append(True)


def test_the_master_is_told_once_per_interval():
    worker = _Worker(os.getppid())
    interval = server.CHECK_INTERVAL
    turns = [0, 0.01, interval / 2, interval, interval * 1.5,
             interval * 2.5, interval * 2.6]
    assert all(worker._still_wanted(now) for now in turns)
    assert len(worker.told) == 3


def test_a_worker_whose_master_is_gone_stops():
    worker = _Worker(os.getppid() + 1)
    assert not worker._still_wanted(0)
