"""JSON schema of POST /reshaper (from 1.30), built for a microversion.

Each provider's entry is the body of PUT .../inventories; each consumer's
entry is that of POST /allocations at the same microversion.
"""

from placement.schemas import allocation
from placement.schemas import inventory


def reshaper(version):
    """The body of POST /reshaper at microversion ``version``."""
    return {
        'type': 'object',
        'properties': {
            # Upstream's rule: a reshape moves some inventory.
            'inventories': allocation.uuid_keyed(inventory.PUT_INVENTORIES,
                                                 minProperties=1),
            'allocations': allocation.uuid_keyed(
                allocation.consumer_allocations(version)),
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }
