"""Handlers of allocations.

GET/PUT/DELETE /allocations/{consumer_uuid}, POST /allocations (1.13)
and GET /resource_providers/{uuid}/allocations. The bodies change with
the microversion (see :mod:`placement.schemas.allocation`); every write
is one transaction of :func:`placement.objects.allocation.replace`.
"""

import webob.exc

from placement import microversion
from placement import request_checks
from placement import util
from placement import uuid_form
from placement.objects import allocation as allocation_obj
from placement.objects import consumer as consumer_obj
from placement.objects import name_table


def _canonical(uuid, what):
    """``uuid`` in canonical form; 400 when it is not a uuid."""
    canonical = uuid_form.canonical(uuid)
    if canonical is None:
        raise webob.exc.HTTPBadRequest(f'Malformed {what}: {uuid!r}')
    return canonical


def check_consumer_uuid(req):
    """The canonical consumer uuid of the URL; 400 when it is none.
    Also the ``url_check`` of PUT (see
    :func:`placement.request_checks.url_checked_first`)."""
    return _canonical(util.path_arg(req, 'consumer_uuid'), 'consumer_uuid')


def unique_uuid_keys(pairs, what):
    """``dict(pairs)`` keyed by canonical uuid; 400 on a repeated one."""
    result = {}
    for uuid, value in pairs:
        canonical = _canonical(uuid, what)
        if canonical in result:
            raise webob.exc.HTTPBadRequest(
                f'{what} {canonical} is given more than once.')
        result[canonical] = value
    return result


def _provider_allocations(allocations):
    """``{provider uuid: resources}`` from the list or the dict form."""
    if isinstance(allocations, list):
        pairs = [(item['resource_provider']['uuid'], item['resources'])
                 for item in allocations]
    else:
        pairs = [(uuid, item['resources'])
                 for uuid, item in allocations.items()]
    return unique_uuid_keys(pairs, 'resource provider')


def _owner(req, data):
    """Who the consumer belongs to; before 1.8 the configured nobody."""
    if microversion.at_least(req, microversion.OWNER_REQUIRED):
        return consumer_obj.Owner(data['project_id'], data['user_id'],
                                  data.get('consumer_type'))
    conf = req.environ['placement.context'].config.placement
    return consumer_obj.Owner(conf.incomplete_consumer_project_id,
                              conf.incomplete_consumer_user_id)


def consumer_request(req, uuid, data):
    """The ConsumerAllocations one consumer's body ``data`` asks for."""
    return allocation_obj.ConsumerAllocations(
        uuid=uuid, owner=_owner(req, data),
        allocations=_provider_allocations(data['allocations']),
        generation=data.get('consumer_generation'),
        check_generation=microversion.at_least(
            req, microversion.CONSUMER_GENERATIONS))


def consumer_requests(req, data):
    """ConsumerAllocations of a ``{consumer uuid: body}`` mapping."""
    bodies = unique_uuid_keys(data.items(), 'consumer')
    return [consumer_request(req, uuid, body)
            for uuid, body in sorted(bodies.items())]


def retries(req):
    """How often a write is tried again after a generation conflict."""
    conf = req.environ['placement.context'].config.placement
    return conf.allocation_conflict_retry_count


def _consumer_body(req, rows):
    allocations = {}
    for row in rows:
        entry = allocations.setdefault(row.resource_provider_uuid, {
            'generation': row.resource_provider_generation,
            'resources': {}})
        entry['resources'][row.resource_class] = row.used
    body = {'allocations': allocations}
    consumer = rows[0] if rows else None
    if consumer is None or consumer.consumer_generation is None:
        return body
    if microversion.at_least(req, microversion.DICT_ALLOCATIONS):
        body.update(project_id=consumer.project_id,
                    user_id=consumer.user_id)
    if microversion.at_least(req, microversion.CONSUMER_GENERATIONS):
        body['consumer_generation'] = consumer.consumer_generation
    if microversion.at_least(req, microversion.CONSUMER_TYPES):
        body['consumer_type'] = consumer.consumer_type
    return body


def list_for_consumer(req):
    """The consumer's allocations; ``{"allocations": {}}`` if none."""
    context = req.environ['placement.context']
    uuid = uuid_form.canonical(
        util.path_arg(req, 'consumer_uuid'))
    rows = []
    if uuid is not None:
        rows = context.db.read(allocation_obj.of_consumer, uuid)
    return util.Result(_consumer_body(req, rows),
                       last_modified=name_table.latest(
                           row.changed for row in rows))


def set_allocations(req):
    """Replace the consumer's allocations (empty from 1.28: remove)."""
    context = req.environ['placement.context']
    allocation_obj.replace(
        context.db,
        [consumer_request(req, check_consumer_uuid(req),
                          request_checks.body(req))],
        retries(req))
    return util.Result()


def set_allocations_for_consumers(req):
    """POST /allocations: several consumers' allocations atomically."""
    context = req.environ['placement.context']
    allocation_obj.replace(
        context.db, consumer_requests(req, request_checks.body(req)),
        retries(req))
    return util.Result()


def delete_allocations(req):
    """Delete the consumer's allocations; 404 when it has none."""
    context = req.environ['placement.context']
    given = util.path_arg(req, 'consumer_uuid')
    uuid = uuid_form.canonical(given)
    if uuid is None:
        raise webob.exc.HTTPNotFound(
            f"No allocations for consumer '{given}'")
    allocation_obj.delete_consumer(context.db, uuid, retries(req))
    return util.Result()


def list_for_provider(req):
    """The provider's allocations by consumer; 404 for no provider."""
    context = req.environ['placement.context']
    generation, rows = context.db.read(
        allocation_obj.of_provider, util.path_arg(req, 'uuid'))
    show_generation = microversion.at_least(
        req, microversion.CONSUMER_GENERATIONS)
    allocations = {}
    for row in rows:
        entry = allocations.setdefault(row.consumer_id, {'resources': {}})
        entry['resources'][row.resource_class] = row.used
        if show_generation:
            entry['consumer_generation'] = row.consumer_generation
    body = {'allocations': allocations,
            'resource_provider_generation': generation}
    return util.Result(body, last_modified=name_table.latest(
        row.changed for row in rows))
