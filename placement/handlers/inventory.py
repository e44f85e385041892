"""Handlers of /resource_providers/{uuid}/inventories[/{resource_class}].

The request checks validate the body (400); the write is one
transaction, which finds the provider first (404); any error rolls it
all back. A missing provider is 404 also when the body is refused (the
operation's ``url_check``, :func:`placement.request_checks.url_checked_first`).
"""

import webob.exc

from placement import exception
from placement import microversion
from placement import request_checks
from placement import util
from placement.objects import capacity
from placement.objects import inventory as inventory_obj
from placement.schemas import inventory as schema


def _check_capacity(req, uuid, class_name, inventory, action):
    """400 unless the inventory's capacity is allowed at this version.

    Upstream's rule: the capacity (:func:`capacity.capacity`) must be
    positive before 1.26 (a ratio that rounds it down to 0 too, worded
    as reserved against total), and not negative from 1.26 (reserved
    may equal total); reserved may never exceed total. ``action`` words
    the error as upstream: ``update`` or ``create``.
    """
    limit = capacity.capacity(inventory.total, inventory.reserved,
                              inventory.allocation_ratio)
    problem = None
    if microversion.at_least(req, microversion.RESERVED_EQUALS_TOTAL):
        if inventory.reserved > inventory.total or limit < 0:
            problem = 'The reserved value is greater than total.'
    elif limit <= 0:
        problem = 'The reserved value is greater than or equal to total.'
    if problem:
        raise webob.exc.HTTPBadRequest(
            f"Unable to {action} inventory for resource provider {uuid}: "
            f"Invalid inventory for '{class_name}' on resource provider "
            f"'{uuid}'. {problem}")


def inventory_from_body(req, uuid, class_name, fields, action='update'):
    inventory = inventory_obj.Inventory.from_body(
        {name: value for name, value in fields.items()
         if name in schema.INVENTORY_FIELDS})
    _check_capacity(req, uuid, class_name, inventory, action)
    return inventory


def _generation(data):
    """The body's provider generation as an int (JSON may say 3.0)."""
    generation = data.get('resource_provider_generation')
    return None if generation is None else int(generation)


def _inventories_response(inventories, generation):
    body = {
        'inventories': {name: inventory.values()
                        for name, inventory in inventories.items()},
        'resource_provider_generation': generation,
    }
    if not inventories:
        # Nothing dated: no Last-Modified, as upstream.
        return util.Result(body, dated=True, undated=True)
    return _dated(body, max(inventory.last_modified
                            for inventory in inventories.values()))


def _inventory_response(inventory, generation, location=None):
    body = {**inventory.values(), 'resource_provider_generation': generation}
    return _dated(body, inventory.last_modified, location)


def _dated(body, last_modified, location=None):
    """From 1.15 PUT and POST bodies carry Last-Modified too, like GETs."""
    return util.Result(body, location=location, last_modified=last_modified,
                       dated=True)


def list_inventories(req):
    context = req.environ['placement.context']
    generation, inventories = context.db.read(
        inventory_obj.of_provider, util.path_arg(req, 'uuid'))
    return _inventories_response(inventories, generation)


def set_inventories(req):
    """Replace all inventories of the provider."""
    context = req.environ['placement.context']
    uuid = util.path_arg(req, 'uuid')
    data = request_checks.body(req)
    inventories = {
        name: inventory_from_body(req, uuid, name, fields)
        for name, fields in data['inventories'].items()}
    try:
        generation, stored = context.db.write(
            inventory_obj.replace_all_of, uuid, inventories,
            _generation(data))
    except exception.InventoryInUse as exc:
        # Upstream's wording, which clients match.
        raise exception.InventoryInUse(f'update conflict: {exc}') from exc
    except exception.UnknownResourceClass as exc:
        # Upstream's wording; osc-placement matches its start.
        raise exception.UnknownResourceClass(
            f'Unknown resource class in inventory for resource provider '
            f'{uuid}: {exc}') from exc
    return _inventories_response(stored, generation)


def create_inventory(req):
    """Add the inventory of one class the provider has none of."""
    context = req.environ['placement.context']
    uuid = util.path_arg(req, 'uuid')
    data = request_checks.body(req)
    class_name = data['resource_class']
    inventory = inventory_from_body(req, uuid, class_name, data, 'create')
    generation, stored = context.db.write(
        inventory_obj.add_to, uuid, class_name, inventory, _generation(data))
    return _inventory_response(
        stored, generation,
        location=(f'{req.script_name}/resource_providers/{uuid}'
                  f'/inventories/{class_name}'))


def delete_inventories(req):
    """Delete all inventories of the provider (from 1.5)."""
    context = req.environ['placement.context']
    context.db.write(inventory_obj.delete_all_of, util.path_arg(req, 'uuid'))
    return util.Result()


def get_inventory(req):
    context = req.environ['placement.context']
    provider, inventory = context.db.read(
        inventory_obj.one_of_provider, util.path_arg(req, 'uuid'),
        util.path_arg(req, 'resource_class'))
    return _inventory_response(inventory, provider.generation)


def update_inventory(req):
    """Replace the existing inventory of one class."""
    context = req.environ['placement.context']
    uuid = util.path_arg(req, 'uuid')
    class_name = util.path_arg(req, 'resource_class')
    data = request_checks.body(req)
    inventory = inventory_from_body(req, uuid, class_name, data)
    generation, stored = context.db.write(
        inventory_obj.update_of, uuid, class_name, inventory,
        _generation(data))
    return _inventory_response(stored, generation)


def delete_inventory(req):
    context = req.environ['placement.context']
    class_name = util.path_arg(req, 'resource_class')
    try:
        context.db.write(inventory_obj.delete_of, util.path_arg(req, 'uuid'),
                         class_name)
    except exception.InventoryInUse as exc:
        # Upstream's words and code (not placement.inventory.inuse) for
        # this one operation.
        raise exception.ConcurrentUpdate(
            f'Unable to delete inventory of class {class_name}: {exc}'
        ) from exc
    return util.Result()
