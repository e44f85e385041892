"""JSON schema of PUT /resource_providers/{uuid}/traits (from 1.6)."""

from placement.schemas import resource_provider

PUT_PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {
            'type': 'array',
            'items': {'type': 'string', 'minLength': 1, 'maxLength': 255},
            'uniqueItems': True,
        },
        'resource_provider_generation': resource_provider.GENERATION,
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}
