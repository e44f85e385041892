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
def get_aggregates(req):
    context = req.environ['placement.context']
    context.can(policies.LIST)
    provider, uuids = context.db.read(
        aggregate.of_provider, util.path_arg(req, 'uuid'))
    return _response(req, uuids, provider.generation)


def _requested(req):
    """``(aggregate uuids as given, generation or None)`` from the body."""
    if not microversion.at_least(req, _WITH_GENERATION):
        return util.extract_json(req.body, schema.PUT_AGGREGATES_V1_1), None
    data = util.extract_json(req.body, schema.PUT_AGGREGATES_V1_19)
    return data['aggregates'], data['resource_provider_generation']


def _canonical_set(uuids):
    """The canonical forms of ``uuids``, sorted; 400 on a repeated one."""
    canonical = sorted({resource_provider.canonical_uuid(uuid)
                        for uuid in uuids})
    if len(canonical) != len(uuids):
        raise webob.exc.HTTPBadRequest(
            'Invalid aggregates: the same aggregate is given more than '
            'once.')
    return canonical


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.require_content(util.JSON)
def set_aggregates(req):
    context = req.environ['placement.context']
    context.can(policies.UPDATE)
    uuid = util.path_arg(req, 'uuid')
    context.db.read(resource_provider.get_by_uuid, uuid, primary=True)
    given, generation = _requested(req)
    new_generation = context.db.write(
        aggregate.replace_of, uuid, generation, _canonical_set(given))
    # Upstream echoes the list as sent, in its order and case.
    return _response(req, given, new_generation)
