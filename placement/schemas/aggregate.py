"""JSON schemas of PUT /resource_providers/{uuid}/aggregates."""

from placement.schemas import resource_provider

_AGGREGATES = {
    'type': 'array',
    'items': {'type': 'string', 'format': 'uuid'},
    'uniqueItems': True,
}

# 1.1 - 1.18: the body is the bare list of aggregate uuids.
PUT_AGGREGATES_V1_1 = _AGGREGATES

# 1.19: an object carrying the provider generation.
PUT_AGGREGATES_V1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': _AGGREGATES,
        'resource_provider_generation': resource_provider.GENERATION,
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
