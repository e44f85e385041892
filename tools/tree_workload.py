"""Provider trees written from many clients at once, and what must hold.

Clients all at once create roots, branches and leaves under shared
providers, move branches and leaves between trees (1.37), delete
leaves, and set traits, aggregates and inventories on the shared
providers (:func:`run`); :func:`check` then compares the trees with
what the acknowledged writes made them. The changes of trees carry no
generation: they must all succeed. The writes that carry a generation
succeed or get the documented 409 ``placement.concurrent_update``.

Used by the tests against a placement-api server and by
``tools/galera_claims.py`` against a Galera cluster's nodes.
"""

import collections
import concurrent.futures
import random
import threading
import uuid

import requests

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement latest'}
TRAITS = ('HW_CPU_X86_AVX', 'HW_CPU_X86_AVX2', 'HW_CPU_X86_SSE42',
          'HW_NIC_SRIOV', 'STORAGE_DISK_SSD')
RESOURCE_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
# A generation given by the client went stale.
CONFLICT = 'placement.concurrent_update'


class Client:
    """One HTTP session per thread; every answer is counted."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.local = threading.local()
        self.lock = threading.Lock()
        self.statuses = collections.Counter()
        self.unexpected = []

    def __call__(self, method, path, body=None, expect=200,
                 generation=False):
        """``(status, body)``; an unexpected status is recorded.

        ``generation``: the body carries a provider generation, so a 409
        ``placement.concurrent_update`` is expected too.
        """
        session = getattr(self.local, 'session', None)
        if session is None:
            session = self.local.session = requests.Session()
        response = session.request(method, self.endpoint + path, json=body,
                                   headers=HEADERS, timeout=300)
        data = response.json() if response.content else None
        status = response.status_code
        kind = path.split('/')[3] if path.count('/') > 2 else 'provider'
        with self.lock:
            self.statuses[f'{method} {kind} {status}'] += 1
            conflict = (generation and status == 409
                        and data['errors'][0]['code'] == CONFLICT)
            if status != expect and not conflict:
                self.unexpected.append((method, path, status, data))
        return status, data


class Trees:
    """The providers as the acknowledged writes left them.

    Roots and branches (children of roots) are shared by every client
    and never deleted; a leaf or a branch is taken by one client at a
    time for the writes that need to know its parent.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.parents = {}     # uuid: parent uuid or None
        self.roots = []
        self.branches = []
        self.free = {'branch': [], 'leaf': []}
        self.writes = collections.Counter()  # generation bumps per uuid
        # (uuid, 'traits' ...): (generation, content) of the last PUT
        self.contents = {}
        self.refused = []     # uuids whose creation was refused

    def shared(self, rng):
        with self.lock:
            return rng.choice(self.roots + self.branches)

    def add(self, rp_uuid, parent, kind):
        with self.lock:
            self.parents[rp_uuid] = parent
            if kind == 'root':
                self.roots.append(rp_uuid)
            elif kind == 'branch':
                self.branches.append(rp_uuid)
                self.free['branch'].append(rp_uuid)
            else:
                self.free['leaf'].append(rp_uuid)

    def take(self, kind, rng):
        """A free branch or leaf, now ours; None if there is none."""
        with self.lock:
            pool = self.free[kind]
            if not pool:
                return None
            return pool.pop(rng.randrange(len(pool)))

    def give_back(self, kind, rp_uuid):
        with self.lock:
            self.free[kind].append(rp_uuid)

    def replaced(self, rp_uuid, kind, sent, generation, content):
        """A PUT of ``kind`` at ``sent`` made ``generation``; the latest
        one stays. The set of traits a provider has already keeps its
        generation."""
        with self.lock:
            self.writes[rp_uuid] += generation - sent
            key = (rp_uuid, kind)
            if generation > self.contents.get(key, (-1, None))[0]:
                self.contents[key] = (generation, content)

    def root_of(self, rp_uuid):
        while self.parents[rp_uuid] is not None:
            rp_uuid = self.parents[rp_uuid]
        return rp_uuid


def _create(client, trees, kind, parent):
    rp_uuid = str(uuid.uuid4())
    status, _ = client('POST', '/resource_providers', {
        'name': f'{kind}-{rp_uuid}', 'uuid': rp_uuid,
        'parent_provider_uuid': parent})
    if status == 200:
        trees.add(rp_uuid, parent, kind)
    else:
        with trees.lock:
            trees.refused.append(rp_uuid)


def create_root(client, trees, rng):
    """A lone root: a leaf of the workload, to be moved or deleted."""
    _create(client, trees, 'leaf', None)


def create_branch(client, trees, rng):
    with trees.lock:
        parent = rng.choice(trees.roots)
    _create(client, trees, 'branch', parent)


def create_leaf(client, trees, rng):
    _create(client, trees, 'leaf', trees.shared(rng))


def create_leaf_in_branch(client, trees, rng):
    with trees.lock:
        parent = rng.choice(trees.branches)
    _create(client, trees, 'leaf', parent)


def _move(client, trees, kind, new_parents, rng):
    rp_uuid = trees.take(kind, rng)
    if rp_uuid is None:
        return
    parent = rng.choice(new_parents)
    status, _ = client('PUT', f'/resource_providers/{rp_uuid}', {
        'name': f'{kind}-{rp_uuid}', 'parent_provider_uuid': parent})
    if status == 200:
        # A move keeps the generation, as upstream's does.
        with trees.lock:
            trees.parents[rp_uuid] = parent
    trees.give_back(kind, rp_uuid)


def move_branch(client, trees, rng):
    """Another root for a branch and the leaves under it."""
    with trees.lock:
        roots = list(trees.roots)
    _move(client, trees, 'branch', roots, rng)


def move_leaf(client, trees, rng):
    """Under another shared provider, or out of any tree."""
    with trees.lock:
        parents = trees.roots + trees.branches + [None]
    _move(client, trees, 'leaf', parents, rng)


def delete_leaf(client, trees, rng):
    rp_uuid = trees.take('leaf', rng)
    if rp_uuid is None:
        return
    status, _ = client('DELETE', f'/resource_providers/{rp_uuid}',
                       expect=204)
    if status == 204:
        with trees.lock:
            del trees.parents[rp_uuid]
    else:
        trees.give_back('leaf', rp_uuid)


def _shown(kind, body):
    """The content of a traits, aggregates or inventories body."""
    if kind == 'inventories':
        return {name: inventory['total']
                for name, inventory in body[kind].items()}
    return sorted(body[kind])


def _replace(client, trees, kind, body, rng):
    """PUT ``body`` as the ``kind`` of a shared provider, at the
    generation a GET just gave."""
    rp_uuid = trees.shared(rng)
    status, provider = client('GET', f'/resource_providers/{rp_uuid}')
    body['resource_provider_generation'] = provider['generation']
    status, answer = client('PUT', f'/resource_providers/{rp_uuid}/{kind}',
                            body, generation=True)
    if status == 200:
        trees.replaced(rp_uuid, kind, body['resource_provider_generation'],
                       answer['resource_provider_generation'],
                       _shown(kind, body))


def set_traits(client, trees, rng):
    _replace(client, trees, 'traits', {
        'traits': rng.sample(TRAITS, rng.randrange(len(TRAITS)))}, rng)


def set_aggregates(client, trees, rng):
    """Aggregates from a small set that changes as providers are added:
    clients race to create the same new aggregates."""
    with trees.lock:
        first = len(trees.parents) // 8 * 8
    aggregates = {str(uuid.UUID(int=first + rng.randrange(1, 12)))
                  for _ in range(rng.randrange(4))}
    _replace(client, trees, 'aggregates',
             {'aggregates': sorted(aggregates)}, rng)


def set_inventories(client, trees, rng):
    classes = rng.sample(RESOURCE_CLASSES,
                         rng.randrange(1, len(RESOURCE_CLASSES) + 1))
    _replace(client, trees, 'inventories', {
        'inventories': {name: {'total': rng.randrange(1, 1000)}
                        for name in classes}}, rng)


OPERATIONS = (create_root, create_branch, create_leaf, create_leaf,
              move_branch, move_leaf, move_leaf, delete_leaf, delete_leaf,
              set_traits, set_aggregates, set_inventories)


def run(endpoint, clients, operations, roots, seed, branches=0,
        mix=OPERATIONS):
    """``operations`` random writes of ``mix`` from ``clients`` threads
    at once, on ``roots`` roots and ``branches`` branches made first.

    Returns the Client (its statuses) and the Trees they made.
    """
    client, trees = Client(endpoint), Trees()
    for _ in range(roots):
        _create(client, trees, 'root', None)
    for _ in range(branches):
        create_branch(client, trees, random.Random(seed))

    def work(number):
        rng = random.Random(seed * 1_000_003 + number)
        for _ in range(operations // clients):
            rng.choice(mix)(client, trees, rng)

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(work, range(clients)))
    return client, trees


def check(client, trees):
    """Only expected answers, and the trees the acknowledged writes made.
    """
    assert client.unexpected == [], client.unexpected
    status, body = client('GET', '/resource_providers')
    assert status == 200, body
    found = {rp['uuid']: rp for rp in body['resource_providers']}
    assert found.keys() == trees.parents.keys()
    assert not found.keys() & set(trees.refused)
    for rp_uuid, rp in found.items():
        assert rp['parent_provider_uuid'] == trees.parents[rp_uuid], rp
        assert rp['root_provider_uuid'] == trees.root_of(rp_uuid), rp
        assert rp['generation'] == trees.writes[rp_uuid], rp
    for (rp_uuid, kind), (_, content) in trees.contents.items():
        status, body = client('GET', f'/resource_providers/{rp_uuid}/{kind}')
        assert _shown(kind, body) == content, (rp_uuid, kind)
