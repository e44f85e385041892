"""The allocation requests' JSON from layout templates is the JSON of
their dicts, byte for byte."""

import orjson

from placement.handlers import allocation_candidate as handler
from placement.objects import candidate_tree
from tests.unit import test_allocation_candidate as engine


def as_dict(candidate, mappings):
    data = {'allocations': {uuid: {'resources': resources} for uuid, resources
                            in candidate.allocations.items()}}
    if mappings:
        data['mappings'] = candidate.mappings
    return data


def test_templates_make_the_json_of_the_dicts():
    """Providers shared by slots and groups, a group mapped to several
    providers (listed sorted, whatever the slots' order), a resourceless
    group, and uuids that need escaping."""
    providers = engine.tree((2, 1), (3, 2), (4, 1), capacity=8)
    providers = {provider_id: provider._replace(uuid=uuid) for
                 (provider_id, provider), uuid in zip(
                     providers.items(), ['z1', 'a"2', 'm\\3', 'b%s4'],
                     strict=True)}
    ids = (1, 2, 3, 4)
    slots = [engine.slot('', {'VF': 1}, ids),
             engine.slot('', {'DISK': 1}, ids),
             engine.slot('1', {'VF': 1}, ids),
             engine.slot('2', {'VF': 1, 'DISK': 1}, ids),
             engine.slot('3', {}, ids)]
    for rules in (candidate_tree.Rules(), candidate_tree.Rules(isolate=True)):
        found = list(engine.candidates(1, slots, rules, providers))
        assert len({id(c.layout) for c in found}) > 3
        for mappings in (False, True):
            render = handler._RequestJson(mappings)
            assert [orjson.dumps(render(c)) for c in found] == [
                orjson.dumps(as_dict(c, mappings)) for c in found]
