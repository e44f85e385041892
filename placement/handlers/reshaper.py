"""Handler of POST /reshaper (from 1.30; consumer types from 1.38)."""

from placement import request_checks
from placement import util
from placement.handlers import allocation
from placement.handlers import inventory
from placement.objects import reshaper as reshaper_obj


def _inventories(req, data):
    """``{provider uuid: ({class: Inventory}, generation)}``.

    Each inventory passes the checks of PUT .../inventories.
    """
    entries = allocation.unique_uuid_keys(data.items(), 'resource provider')
    return {
        uuid: ({name: inventory.inventory_from_body(req, uuid, name, fields)
                for name, fields in entry['inventories'].items()},
               entry['resource_provider_generation'])
        for uuid, entry in entries.items()}


def reshape(req):
    """Replace inventories and allocations in one transaction; 204."""
    context = req.environ['placement.context']
    data = request_checks.body(req)
    reshaper_obj.reshape(
        context.db, _inventories(req, data['inventories']),
        allocation.consumer_requests(req, data['allocations']),
        allocation.retries(req))
    return util.Result()
