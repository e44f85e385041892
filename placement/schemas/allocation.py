"""JSON schemas of allocation bodies, built for a microversion.

``version`` is the request's microversion:

- before 1.12 PUT takes a list of ``{resource_provider: {uuid},
  resources}``; from 1.12 a dict keyed by provider uuid;
- project_id and user_id are required from 1.8;
- consumer_generation is required from 1.28 (null: a new consumer), and
  from then PUT may send empty allocations to remove them;
- mappings are accepted (and ignored) from 1.34, not empty when given;
- consumer_type is required from 1.38.
"""

from placement import limits
from placement import microversion as mv

_UUID = {'type': 'string', 'format': 'uuid'}
# A project or user id of the identity service; no NUL: PostgreSQL
# cannot store it.
EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255,
                'pattern': '^[^\\u0000]*$'}
_CLASS_PATTERN = '^[A-Z0-9_]+$'
# OpenStack's "uuid-like" (as the ``uuid`` format of the bodies): 32
# hex digits, dashes anywhere, in braces or after ``urn:uuid:``.
UUID_PATTERN = r'^(urn:)?(uuid:)?\{?-*([0-9a-fA-F]-*){32}\}?$'

CONSUMER_TYPE = {'type': 'string', 'pattern': _CLASS_PATTERN,
                 'minLength': 1, 'maxLength': 255}
CONSUMER_GENERATION = {'type': ['integer', 'null'], 'minimum': 0,
                       'maximum': limits.MAX_INT}
MAPPINGS = {
    'type': 'object',
    # Present, it maps at least one request group (upstream's rule).
    'minProperties': 1,
    'patternProperties': {
        '^(|[a-zA-Z0-9_-]{1,64})$': {
            'type': 'array', 'items': _UUID, 'minItems': 1,
            'uniqueItems': True},
    },
    'additionalProperties': False,
}

RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        _CLASS_PATTERN: {'type': 'integer', 'minimum': 1,
                         'maximum': limits.MAX_INT},
    },
    'additionalProperties': False,
}


def uuid_keyed(values, **constraints):
    """An object keyed by uuids (:data:`UUID_PATTERN`) whose values are
    ``values``. Written as upstream's (``patternProperties``),
    so that a bad key is refused in upstream's words ("does not match
    any of the regexes"), which clients match."""
    return {'type': 'object', **constraints,
            'patternProperties': {UUID_PATTERN: values},
            'additionalProperties': False}


def _closed_object(properties, required):
    return {'type': 'object', 'properties': properties,
            'required': required, 'additionalProperties': False}


def _list_allocations():
    """1.0 - 1.11: a non-empty list of provider and resources."""
    return {
        'type': 'array',
        'minItems': 1,
        'items': _closed_object(
            {'resource_provider': _closed_object({'uuid': _UUID}, ['uuid']),
             'resources': RESOURCES},
            ['resource_provider', 'resources']),
    }


def _dict_allocations(min_providers):
    """From 1.12: ``{provider uuid: {resources, generation}}``."""
    return uuid_keyed(
        _closed_object(
            {'resources': RESOURCES,
             # Ignored: the symmetry with GET responses.
             'generation': {'type': ['integer', 'null']}},
            ['resources']),
        minProperties=min_providers)


def _owner(version, properties, required):
    """Add the consumer fields of microversion ``version``."""
    if version >= mv.OWNER_REQUIRED:
        properties.update(project_id=EXTERNAL_ID, user_id=EXTERNAL_ID)
        required.extend(['project_id', 'user_id'])
    if version >= mv.CONSUMER_GENERATIONS:
        properties['consumer_generation'] = CONSUMER_GENERATION
        required.append('consumer_generation')
    if version >= mv.MAPPINGS:
        properties['mappings'] = MAPPINGS
    if version >= mv.CONSUMER_TYPES:
        properties['consumer_type'] = CONSUMER_TYPE
        required.append('consumer_type')
    return _closed_object(properties, required)


def consumer_allocations(version):
    """One consumer of POST /allocations or POST /reshaper."""
    return _owner(version, {'allocations': _dict_allocations(0)},
                  ['allocations'])


def put_allocations(version):
    """PUT /allocations/{consumer_uuid}."""
    if version < mv.DICT_ALLOCATIONS:
        allocations = _list_allocations()
    else:
        allocations = _dict_allocations(
            0 if version >= mv.CONSUMER_GENERATIONS else 1)
    return _owner(version, {'allocations': allocations}, ['allocations'])


def post_allocations(version):
    """POST /allocations (from 1.13): ``{consumer uuid: allocations}``."""
    return uuid_keyed(consumer_allocations(version), minProperties=1)
