"""JSON schemas of resource provider bodies, by microversion."""

import copy

from placement import limits

_UUID = {'type': 'string', 'format': 'uuid'}

# A provider generation as sent back by clients: any integer up to the
# database's; a negative one never matches (409, as upstream), the lower
# bound only keeps it within what database drivers compare.
GENERATION = {'type': 'integer', 'minimum': -(2 ** 63),
              'maximum': limits.MAX_INT}

POST_RESOURCE_PROVIDER = {
    'type': 'object',
    'properties': {
        # No NUL: PostgreSQL cannot store it.
        'name': {'type': 'string', 'minLength': 1, 'maxLength': 200,
                 'pattern': '^[^\\u0000]*$'},
        'uuid': _UUID,
    },
    'required': ['name'],
    'additionalProperties': False,
}

# 1.14: the parent may be given (null for a root provider).
POST_RESOURCE_PROVIDER_V1_14 = copy.deepcopy(POST_RESOURCE_PROVIDER)
POST_RESOURCE_PROVIDER_V1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [_UUID, {'type': 'null'}],
}


def _without_uuid(schema):
    """The PUT schema: the uuid of a provider cannot change."""
    schema = copy.deepcopy(schema)
    del schema['properties']['uuid']
    return schema


PUT_RESOURCE_PROVIDER = _without_uuid(POST_RESOURCE_PROVIDER)
PUT_RESOURCE_PROVIDER_V1_14 = _without_uuid(POST_RESOURCE_PROVIDER_V1_14)
