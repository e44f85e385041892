"""Error codes sent in the ``code`` field of error responses (from 1.23).

An object-layer exception carries its own (:mod:`placement.exception`); a
webob HTTP exception selects one with ``comment=<code>``. An error without
a code gets :data:`DEFAULT`.
"""

DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
ILLEGAL_DUPLICATE_QUERYPARAM = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'

ALL_CODES = frozenset({
    DEFAULT, INVENTORY_INUSE, CONCURRENT_UPDATE, DUPLICATE_NAME,
    PROVIDER_IN_USE, PROVIDER_CANNOT_DELETE_PARENT,
    RESOURCE_PROVIDER_NOT_FOUND, ILLEGAL_DUPLICATE_QUERYPARAM,
    QUERYPARAM_BAD_VALUE, QUERYPARAM_MISSING_VALUE,
})
