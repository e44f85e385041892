"""JSON schemas of the inventory request bodies.

Integers are capped at what the database columns hold; the allocation
ratio at the largest single-precision float (MySQL ``FLOAT``). Relations
between fields that depend on the microversion (reserved against total)
are checked by the handler, not here.
"""

from placement import limits
from placement.schemas import resource_provider

MAX_FLOAT = 3.40282e38
RESOURCE_CLASS_PATTERN = '^[A-Z0-9_]+$'


def _integer(minimum):
    return {'type': 'integer', 'minimum': minimum, 'maximum': limits.MAX_INT}


def _closed_object(properties, required):
    return {
        'type': 'object',
        'properties': properties,
        'required': required,
        'additionalProperties': False,
    }


GENERATION = resource_provider.GENERATION

INVENTORY_FIELDS = {
    'total': _integer(1),
    'reserved': _integer(0),
    'min_unit': _integer(1),
    'max_unit': _integer(1),
    'step_size': _integer(1),
    'allocation_ratio': {
        'type': 'number', 'minimum': 0, 'maximum': MAX_FLOAT},
}

# PUT /resource_providers/{uuid}/inventories
PUT_INVENTORIES = _closed_object(
    {
        'resource_provider_generation': GENERATION,
        'inventories': {
            'type': 'object',
            'patternProperties': {
                RESOURCE_CLASS_PATTERN: _closed_object(
                    INVENTORY_FIELDS, ['total']),
            },
            'additionalProperties': False,
        },
    },
    ['resource_provider_generation', 'inventories'])

# PUT /resource_providers/{uuid}/inventories/{resource_class}
PUT_INVENTORY = _closed_object(
    {**INVENTORY_FIELDS, 'resource_provider_generation': GENERATION},
    ['resource_provider_generation', 'total'])

# POST /resource_providers/{uuid}/inventories: the generation is optional.
POST_INVENTORY = _closed_object(
    {
        **INVENTORY_FIELDS,
        'resource_class': {
            'type': 'string', 'pattern': RESOURCE_CLASS_PATTERN,
            'maxLength': 255},
        'resource_provider_generation': GENERATION,
    },
    ['resource_class', 'total'])
