"""JSON schemas of response bodies, by microversion.

They document what the handlers render (the OpenAPI document and its
schemathesis run read them through :mod:`placement.operations`); the
handlers do not validate their own output against them. A field a later
microversion adds is a separate schema, so that each range's schema
says exactly which keys appear.
"""

import copy

_UUID = {'type': 'string', 'format': 'uuid'}
_NULLABLE_UUID = {'anyOf': [_UUID, {'type': 'null'}]}
_GENERATION = {'type': 'integer', 'minimum': 0}
_CLASS_NAME = {'type': 'string', 'pattern': '^[A-Z0-9_]+$'}
_AMOUNT = {'type': 'integer', 'minimum': 0}


def _closed(properties, required=None):
    """An object with exactly ``properties`` (all required by default)."""
    return {'type': 'object', 'properties': properties,
            'required': sorted(properties if required is None
                               else required),
            'additionalProperties': False}


def _with(schema, **properties):
    """``schema`` (a closed object) with more required ``properties``."""
    schema = copy.deepcopy(schema)
    schema['properties'].update(properties)
    schema['required'] = sorted(schema['properties'])
    return schema


def _by_class(value_schema):
    """An object keyed by resource class name."""
    return {'type': 'object', 'propertyNames': _CLASS_NAME,
            'additionalProperties': value_schema}


def _by_uuid(value_schema):
    """An object keyed by uuid."""
    return {'type': 'object', 'propertyNames': _UUID,
            'additionalProperties': value_schema}


_LINK = _closed({'rel': {'type': 'string'}, 'href': {'type': 'string'}})
_LINKS = {'type': 'array', 'items': _LINK}

ERROR = _closed({
    'errors': {
        'type': 'array', 'minItems': 1,
        'items': _closed({
            'status': {'type': 'integer'},
            'title': {'type': 'string'},
            'detail': {'type': 'string'},
            'request_id': {'type': 'string'},
            'code': {'type': 'string'},
        }, required=['status', 'title', 'detail', 'request_id']),
    },
})

VERSIONS = _closed({'versions': {'type': 'array', 'items': _closed({
    'id': {'type': 'string'},
    'min_version': {'type': 'string'},
    'max_version': {'type': 'string'},
    'status': {'type': 'string', 'enum': ['CURRENT']},
    'links': _LINKS,
})}})

PROVIDER = _closed({
    'uuid': _UUID,
    'name': {'type': 'string'},
    'generation': _GENERATION,
    'links': _LINKS,
})
PROVIDER_V1_14 = _with(PROVIDER, parent_provider_uuid=_NULLABLE_UUID,
                       root_provider_uuid=_UUID)


def _providers(provider):
    return _closed({'resource_providers': {'type': 'array',
                                           'items': provider}})


PROVIDERS = _providers(PROVIDER)
PROVIDERS_V1_14 = _providers(PROVIDER_V1_14)

_INVENTORY_FIELDS = {
    'total': _AMOUNT, 'reserved': _AMOUNT, 'min_unit': _AMOUNT,
    'max_unit': _AMOUNT, 'step_size': _AMOUNT,
    'allocation_ratio': {'type': 'number', 'minimum': 0},
}
INVENTORIES = _closed({
    'inventories': _by_class(_closed(_INVENTORY_FIELDS)),
    'resource_provider_generation': _GENERATION,
})
INVENTORY = _closed({**_INVENTORY_FIELDS,
                     'resource_provider_generation': _GENERATION})

AGGREGATES = _closed({'aggregates': {'type': 'array', 'items': _UUID}})
AGGREGATES_V1_19 = _with(AGGREGATES,
                         resource_provider_generation=_GENERATION)

PROVIDER_TRAITS = _closed({
    'traits': {'type': 'array', 'items': {'type': 'string'}},
    'resource_provider_generation': _GENERATION,
})
TRAITS = _closed({'traits': {'type': 'array', 'items': {'type': 'string'}}})

RESOURCE_CLASS = _closed({'name': _CLASS_NAME, 'links': _LINKS})
RESOURCE_CLASSES = _closed({'resource_classes': {'type': 'array',
                                                 'items': RESOURCE_CLASS}})

PROVIDER_USAGES = _closed({
    'usages': _by_class(_AMOUNT),
    'resource_provider_generation': _GENERATION,
})
TOTAL_USAGES = _closed({'usages': _by_class(_AMOUNT)})
# From 1.38: by consumer type, each group with its consumer count.
TOTAL_USAGES_V1_38 = _closed({'usages': {
    'type': 'object',
    'additionalProperties': {
        'type': 'object',
        'properties': {'consumer_count': _AMOUNT},
        'required': ['consumer_count'],
        'additionalProperties': _AMOUNT,
    },
}})

# The allocations of a consumer. A consumer without allocations is
# ``{"allocations": {}}`` at every microversion, hence the optional
# consumer fields.
_OWNER = {'project_id': {'type': 'string'}, 'user_id': {'type': 'string'}}


def _consumer_allocations(**consumer_fields):
    return _closed({
        'allocations': _by_uuid(_closed({
            'generation': _GENERATION,
            'resources': _by_class(_AMOUNT),
        })),
        **consumer_fields,
    }, required=['allocations'])


CONSUMER_ALLOCATIONS = _consumer_allocations()
CONSUMER_ALLOCATIONS_V1_12 = _consumer_allocations(**_OWNER)
CONSUMER_ALLOCATIONS_V1_28 = _consumer_allocations(
    **_OWNER, consumer_generation=_GENERATION)
CONSUMER_ALLOCATIONS_V1_38 = _consumer_allocations(
    **_OWNER, consumer_generation=_GENERATION,
    consumer_type={'type': 'string'})


def _provider_allocations(**consumer_fields):
    return _closed({
        'allocations': _by_uuid(_closed({
            'resources': _by_class(_AMOUNT), **consumer_fields})),
        'resource_provider_generation': _GENERATION,
    })


PROVIDER_ALLOCATIONS = _provider_allocations()
PROVIDER_ALLOCATIONS_V1_28 = _provider_allocations(
    consumer_generation=_GENERATION)


def _candidates(allocation_request, summary):
    return _closed({
        'allocation_requests': {'type': 'array',
                                'items': allocation_request},
        'provider_summaries': _by_uuid(summary),
    })


_LIST_REQUEST = _closed({'allocations': {'type': 'array', 'items': _closed({
    'resource_provider': _closed({'uuid': _UUID}),
    'resources': _by_class(_AMOUNT),
})}})
_DICT_REQUEST = _closed({'allocations': _by_uuid(_closed({
    'resources': _by_class(_AMOUNT)}))})
_MAPPINGS = {'type': 'object',
             'additionalProperties': {'type': 'array', 'items': _UUID}}
_SUMMARY = _closed({'resources': _by_class(_closed({
    'capacity': _AMOUNT, 'used': _AMOUNT}))})
_SUMMARY_V1_17 = _with(_SUMMARY, traits={'type': 'array',
                                         'items': {'type': 'string'}})
_SUMMARY_V1_29 = _with(_SUMMARY_V1_17, parent_provider_uuid=_NULLABLE_UUID,
                       root_provider_uuid=_UUID)

CANDIDATES = _candidates(_LIST_REQUEST, _SUMMARY)
CANDIDATES_V1_12 = _candidates(_DICT_REQUEST, _SUMMARY)
CANDIDATES_V1_17 = _candidates(_DICT_REQUEST, _SUMMARY_V1_17)
CANDIDATES_V1_29 = _candidates(_DICT_REQUEST, _SUMMARY_V1_29)
CANDIDATES_V1_34 = _candidates(_with(_DICT_REQUEST, mappings=_MAPPINGS),
                               _SUMMARY_V1_29)


# The reports (outside the microversioned API): Limes' documents.
_COUNT = {'type': 'integer', 'minimum': 0}
_TIMESTAMP = {'type': 'integer'}
_NAMES = {'type': 'array', 'items': {'type': 'string'}}
#: ``capacity``, ``raw_capacity`` (where some ratio is not 1) and
#: ``usage`` of a resource, in total, per zone or per provider tree.
_NUMBERS = {'capacity': {'type': 'integer'},
            'raw_capacity': {'type': 'integer'}, 'usage': _COUNT}
_OPTIONAL_NUMBERS = ('raw_capacity',)


def _numbered(properties, optional=()):
    """A closed object with the numbers of a resource and ``properties``."""
    fields = {**properties, **_NUMBERS}
    return _closed(fields, sorted(set(fields) - set(_OPTIONAL_NUMBERS)
                                  - set(optional)))


_CAPACITY_RESOURCE = _numbered({
    'name': _CLASS_NAME,
    'unit': {'type': 'string'},
    'per_availability_zone': {'type': 'array', 'items': _numbered(
        {'name': {'type': 'string'}})},
    'subcapacities': {'type': 'array', 'items': _numbered({
        'name': {'type': 'string'}, 'uuid': _UUID, 'traits': _NAMES,
        'aggregates': {'type': 'array', 'items': _UUID},
        'zone': {'type': 'string'}})},
}, optional=('unit', 'subcapacities'))
REPORT_CAPACITY = _closed({'cluster': _closed({
    'id': {'type': 'string'},
    'services': {'type': 'array', 'items': _closed({
        'type': {'type': 'string'}, 'area': {'type': 'string'},
        'resources': {'type': 'array', 'items': _CAPACITY_RESOURCE},
        'min_scraped_at': _TIMESTAMP, 'max_scraped_at': _TIMESTAMP})},
    'min_scraped_at': _TIMESTAMP, 'max_scraped_at': _TIMESTAMP})})

_PROJECT = _closed({
    'id': {'type': 'string'},
    'services': {'type': 'array', 'items': _closed({
        'type': {'type': 'string'}, 'area': {'type': 'string'},
        'resources': {'type': 'array', 'items': _closed(
            {'name': _CLASS_NAME, 'unit': {'type': 'string'},
             'usage': _COUNT}, ['name', 'usage'])},
        'scraped_at': _TIMESTAMP})},
    # With ``detail`` (one project): its consumers by type.
    'consumer_types': {'type': 'array', 'items': _closed({
        'type': {'type': 'string'}, 'consumer_count': _COUNT,
        'consumers': {'type': 'array', 'items': _closed({
            'uuid': _UUID, 'usage': _by_class(_COUNT)})}})},
}, ['id', 'services'])
REPORT_USAGE = _closed({'projects': {'type': 'array', 'items': _PROJECT}})
REPORT_PROJECT_USAGE = _closed({'project': _PROJECT})

REPORT_HEADROOM = _closed({'headroom': _closed({
    'resources': _by_class({'type': 'integer', 'minimum': 1}),
    'count': _COUNT, 'providers': _COUNT,
    'per_availability_zone': {'type': 'array', 'items': _closed({
        'name': {'type': 'string'}, 'count': _COUNT,
        'providers': _COUNT})},
    'counted': {'type': 'string'}, 'not_counted': {'type': 'string'}})})
