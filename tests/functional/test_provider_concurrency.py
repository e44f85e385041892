"""Provider trees written from many clients at once: no 500, nothing lost.

A real placement-api server (several worker processes, each with
threads) serves clients that all at once create roots, branches and
leaves under shared providers, move branches and leaves between trees
(1.37), delete leaves, and set traits, aggregates and inventories on
the shared providers.

The changes of trees carry no generation: they must all succeed, however
their locks interleave (on MySQL they once deadlocked until the server
gave up with a 409, or a 500 when the deadlock hit a savepoint). The
writes that carry a generation succeed or get the documented 409
``placement.concurrent_update``. In the end the trees must be exactly
what the acknowledged writes made them: every provider in place under
the right parent and root, and each generation the number of
acknowledged writes that moved it on.
"""

import pytest

from tests.functional import server
from tools import tree_workload as workload

pytestmark = pytest.mark.db


@pytest.fixture(scope='module')
def endpoint(tmp_path_factory):
    """One server for the module; db_url empties its database per test."""
    with server.running_server(tmp_path_factory.mktemp('placement-api'),
                               workers=2, threads=8) as url:
        yield url


@pytest.mark.usefixtures('db_url')
def test_tree_writes_from_many_clients(endpoint):
    client, trees = workload.run(endpoint, clients=16, operations=240,
                                 roots=4, seed=1)
    workload.check(client, trees)
    acknowledged = {key.rsplit(' ', 1)[0] for key in client.statuses
                    if key.endswith((' 200', ' 204'))}
    assert acknowledged >= {
        'POST provider', 'PUT provider', 'DELETE provider', 'PUT traits',
        'PUT aggregates', 'PUT inventories'}, client.statuses


@pytest.mark.usefixtures('db_url')
def test_children_follow_a_moving_branch(endpoint):
    """Leaves created and moved under a branch while it changes roots.

    Each move of the branch must see every leaf that committed under it
    before the move got its locks, and take them to its new root.
    """
    client, trees = workload.run(
        endpoint, clients=16, operations=160, roots=2, seed=2, branches=1,
        mix=(workload.move_branch, workload.create_leaf_in_branch,
             workload.move_leaf))
    workload.check(client, trees)
