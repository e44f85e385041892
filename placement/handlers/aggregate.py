"""Handlers of /resource_providers/{uuid}/aggregates (from 1.1).

From 1.19 the bodies carry the provider generation and a PUT is refused
when it is stale; before, the PUT body is the bare list of uuids.
"""

import webob.exc

from placement import microversion
from placement import request_checks
from placement import util
from placement import uuid_form
from placement.objects import aggregate


def _response(req, uuids, generation):
    """The aggregates body; Last-Modified is now (links are not dated),
    also on a PUT."""
    data = {'aggregates': uuids}
    if microversion.at_least(req, microversion.AGGREGATES_GENERATION):
        data['resource_provider_generation'] = generation
    return util.Result(data, dated=True)


def get_aggregates(req):
    context = req.environ['placement.context']
    generation, uuids = context.db.read(
        aggregate.of_provider, util.path_arg(req, 'uuid'))
    return _response(req, uuids, generation)


def _requested(req):
    """``(aggregate uuids as given, generation or None)`` from the body."""
    data = request_checks.body(req)
    if not microversion.at_least(req, microversion.AGGREGATES_GENERATION):
        return data, None
    return data['aggregates'], data['resource_provider_generation']


def _canonical_set(uuids):
    """The canonical forms of ``uuids``, sorted; 400 on a repeated one."""
    canonical = sorted({uuid_form.canonical(uuid)
                        for uuid in uuids})
    if len(canonical) != len(uuids):
        raise webob.exc.HTTPBadRequest(
            'Invalid aggregates: the same aggregate is given more than '
            'once.')
    return canonical


def set_aggregates(req):
    context = req.environ['placement.context']
    uuid = util.path_arg(req, 'uuid')
    given, generation = _requested(req)
    new_generation = aggregate.replace(
        context.db, uuid, generation, _canonical_set(given))
    # Upstream echoes the list as sent, in its order and case.
    return _response(req, given, new_generation)
