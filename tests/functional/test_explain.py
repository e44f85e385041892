"""The explain report counts the candidates GET /allocation_candidates
returns, on random worlds built through the API, for random queries
(seeded: a failure names its seed and query, and replays).

A world is a few trees (roots with inventory, some with NUMA-like
children and a NIC child), sharing providers in aggregates, custom
traits on roots and children, and allocations; a query mixes the
parameters explain explains: resources, granular groups, required,
forbidden and ``in:`` traits, member_of (and ``!``), in_tree,
root_required, same_subtree with resourceless groups, group_policy.

``PLACEMENT_EXPLAIN_WORLDS=N`` makes N worlds (seeds 0 to N-1) instead
of the 6 of every run, to search longer for a mismatch.
"""

import os
import random
import urllib.parse
import uuid

import pytest

pytestmark = pytest.mark.db

WORLDS = int(os.environ.get('PLACEMENT_EXPLAIN_WORLDS', 6))
QUERIES = 30
TRAITS = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']
SHARES = 'MISC_SHARES_VIA_AGGREGATE'
CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF']
#: More than any inventory of a world holds.
IMPOSSIBLE = 100000


class _World:
    """A random world made through the API."""

    def __init__(self, api, rng):
        self.api = api
        self.rng = rng
        self.aggregates = [str(uuid.uuid4()) for _ in range(3)]
        for name in TRAITS:
            self._request('PUT', f'/traits/{name}')
        self.providers = []
        self.roots = []
        for index in range(rng.randint(3, 6)):
            root = self._provider(f'cn{index}', None, {
                'VCPU': rng.choice([0, 8, 16]),
                'MEMORY_MB': rng.choice([0, 4096, 8192]),
                'DISK_GB': rng.choice([0, 100, 200])})
            self.roots.append(root)
            for numa in range(rng.randint(0, 2)):
                self._provider(f'cn{index}-numa{numa}', root, {
                    'VCPU': rng.choice([2, 4]),
                    'MEMORY_MB': rng.choice([0, 1024])})
            if rng.random() < 0.5:
                self._provider(f'cn{index}-nic', root,
                               {'SRIOV_NET_VF': rng.choice([2, 8])})
        for index in range(rng.randint(0, 2)):
            self._provider(f'shared{index}', None,
                           {'DISK_GB': rng.choice([50, 500])},
                           sharing=True)

    def _request(self, method, path, body=None):
        response = self.api.request(method, path, body=body)
        assert response.status_int in (200, 201, 204), response.text
        return response

    def _provider(self, name, parent, inventories, sharing=False):
        rng = self.rng
        rp_uuid = str(uuid.uuid4())
        body = {'name': name, 'uuid': rp_uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        self._request('POST', '/resource_providers', body)
        inventories = {
            name: {'total': total,
                   'allocation_ratio': rng.choice([1.0, 1.0, 2.0]),
                   'max_unit': rng.choice([total, max(total // 2, 1)]),
                   'step_size': rng.choice([1, 1, 1, 2])}
            for name, total in inventories.items() if total}
        generation = self._request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories',
            {'inventories': inventories, 'resource_provider_generation': 0}
        ).json['resource_provider_generation']
        traits = rng.sample(TRAITS, rng.randint(0, 2))
        if sharing:
            traits.append(SHARES)
        generation = self._request(
            'PUT', f'/resource_providers/{rp_uuid}/traits',
            {'traits': traits, 'resource_provider_generation': generation}
        ).json['resource_provider_generation']
        aggregates = rng.sample(self.aggregates,
                                rng.randint(1 if sharing else 0, 2))
        self._request(
            'PUT', f'/resource_providers/{rp_uuid}/aggregates',
            {'aggregates': aggregates,
             'resource_provider_generation': generation})
        for name, inventory in inventories.items():
            if rng.random() < 0.3:
                self.api.allocate(rp_uuid, name,
                                  rng.randint(1, inventory['total']))
        self.providers.append(rp_uuid)
        return rp_uuid

    def _traits(self):
        """A ``required`` value: traits, forbidden ones, or ``in:``."""
        rng = self.rng
        if rng.random() < 0.3:
            return 'in:' + ','.join(rng.sample(TRAITS, 2))
        picked = rng.sample(TRAITS, rng.randint(1, 2))
        return ','.join(('!' if rng.random() < 0.4 else '') + name
                        for name in picked)

    def _aggregates(self):
        rng = self.rng
        if rng.random() < 0.3:
            return '!' + rng.choice(self.aggregates)
        return 'in:' + ','.join(rng.sample(self.aggregates,
                                           rng.randint(1, 2)))

    def _amounts(self, classes):
        """Amounts of ``classes``, now and then one that no inventory
        could hold (explain's funnels then stop at their inventory)."""
        rng = self.rng
        amounts = {'MEMORY_MB': [512, 1024]}

        def amount(name):
            if rng.random() < 0.05:
                return IMPOSSIBLE
            return rng.choice(amounts.get(name, [1, 1, 2, 3]))

        return ','.join(f'{name}:{amount(name)}' for name in classes)

    def query(self):
        """Random query parameters (a list of pairs)."""
        rng = self.rng
        params = [('resources', self._amounts(
            rng.sample(['VCPU', 'MEMORY_MB', 'DISK_GB'],
                       rng.randint(1, 2))))]
        if rng.random() < 0.25:
            params.append(('required', self._traits()))
        if rng.random() < 0.25:
            params.append(('member_of', self._aggregates()))
        if rng.random() < 0.1:
            params.append(('in_tree', rng.choice(self.providers)))
        if rng.random() < 0.2:
            params.append(('root_required', rng.choice(
                [*TRAITS, *(f'!{name}' for name in TRAITS)])))
        suffixes = []
        for suffix in ('1', '2')[:rng.choice([0, 0, 1, 2])]:
            suffixes.append(suffix)
            params.append((f'resources{suffix}', self._amounts(
                rng.sample(['VCPU', 'SRIOV_NET_VF'], 1))))
            if rng.random() < 0.25:
                params.append((f'required{suffix}', self._traits()))
        if suffixes and rng.random() < 0.3:
            params.append(('required_X', rng.choice(TRAITS)))
            params.append(('same_subtree', ','.join([*suffixes, '_X'])))
        if suffixes:
            params.append(('group_policy',
                           rng.choice(['none', 'isolate'])))
        return params


@pytest.mark.parametrize('seed', range(WORLDS))
def test_explain_counts_the_candidates(api, seed):
    rng = random.Random(seed)
    world = _World(api, rng)
    for _ in range(QUERIES):
        query = urllib.parse.urlencode(world.query())
        found = api.request('GET', f'/allocation_candidates?{query}')
        explained = api.request('GET', f'/reports/explain?{query}')
        assert explained.status_int == found.status_int, (
            seed, query, explained.text)
        if found.status_int != 200:
            assert ([(error['detail'], error['code'])
                     for error in explained.json['errors']]
                    == [(error['detail'], error['code'])
                        for error in found.json['errors']])
            continue
        document = explained.json['explain']
        if f':{IMPOSSIBLE}' in urllib.parse.unquote(query):
            assert document['impossible'], (seed, query, document)
        assert document['candidates'] == len(
            found.json['allocation_requests']), (seed, query, document)
        for funnel in [document['funnel'],
                       *(slot['funnel'] for slot in document['groups'])]:
            counts = [stage['count'] for stage in funnel]
            assert counts == sorted(counts, reverse=True), (query, funnel)
        assert document['funnel'][-1]['count'] == document['trees']
