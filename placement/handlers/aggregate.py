"""Handlers of /resource_providers/{uuid}/aggregates (from 1.1).

From 1.19 the bodies carry the provider generation and a PUT is refused
when it is stale; before, the PUT body is the bare list of uuids.
"""

import webob.exc

from placement import microversion
from placement import util
from placement import wsgi_wrapper
from placement.objects import aggregate
from placement.objects import resource_provider
from placement.policies import aggregate as policies
from placement.schemas import aggregate as schema

_WITH_GENERATION = 19


def _response(req, uuids, generation):
    """The aggregates body; Last-Modified is now (links are not dated)."""
    data = {'aggregates': uuids}
    if microversion.at_least(req, _WITH_GENERATION):
        data['resource_provider_generation'] = generation
    response = util.json_response(req, data)
    util.add_last_modified(req, response)
    return response


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.object_errors
def get_aggregates(req):
    context = req.environ['placement.context']
    context.can(policies.LIST)
    provider, uuids = context.db.read(
        aggregate.of_provider, util.path_arg(req, 'uuid'))
    return _response(req, uuids, provider.generation)


def _requested(req):
    """``(aggregate uuids, generation or None)`` from the PUT body."""
    if not microversion.at_least(req, _WITH_GENERATION):
        uuids = util.extract_json(req.body, schema.PUT_AGGREGATES_V1_1)
        generation = None
    else:
        data = util.extract_json(req.body, schema.PUT_AGGREGATES_V1_19)
        uuids = data['aggregates']
        generation = data['resource_provider_generation']
    canonical = sorted({resource_provider.canonical_uuid(uuid)
                        for uuid in uuids})
    if len(canonical) != len(uuids):
        raise webob.exc.HTTPBadRequest(
            'Invalid aggregates: the same aggregate is given more than '
            'once.')
    return canonical, generation


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.require_content(util.JSON)
@util.object_errors
def set_aggregates(req):
    context = req.environ['placement.context']
    context.can(policies.UPDATE)
    uuid = util.path_arg(req, 'uuid')
    context.db.read(resource_provider.get_by_uuid, uuid, primary=True)
    uuids, generation = _requested(req)
    new_generation = context.db.write(
        aggregate.replace_of, uuid, generation, uuids)
    return _response(req, uuids, new_generation)
