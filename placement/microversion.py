"""The microversions this service speaks, and helpers to branch on them.

The microversion middleware (from microversion-parse) puts the negotiated
``Version`` into the WSGI environ under :data:`MICROVERSION_ENVIRON`.
"""

import microversion_parse

SERVICE_TYPE = 'placement'
MICROVERSION_ENVIRON = f'{SERVICE_TYPE}.microversion'

# One entry per microversion, in order; the comment is the feature.
VERSIONS = [
    '1.0',
    '1.1',   # aggregates of a resource provider
    '1.2',   # custom resource classes
    '1.3',   # member_of on GET /resource_providers
    '1.4',   # resources on GET /resource_providers
    '1.5',   # DELETE of all inventories of a provider
    '1.6',   # traits
    '1.7',   # idempotent PUT /resource_classes/{name}
    '1.8',   # project_id and user_id required in PUT /allocations
    '1.9',   # GET /usages
    '1.10',  # GET /allocation_candidates
    '1.11',  # allocations link on resource providers
    '1.12',  # dict format of PUT /allocations/{consumer_uuid}
    '1.13',  # POST /allocations
    '1.14',  # nested resource providers
    '1.15',  # Last-Modified and Cache-Control headers
    '1.16',  # limit on allocation candidates
    '1.17',  # required traits on allocation candidates
    '1.18',  # required traits on GET /resource_providers
    '1.19',  # generation in provider aggregates
    '1.20',  # POST /resource_providers returns the provider
    '1.21',  # member_of on allocation candidates
    '1.22',  # forbidden traits
    '1.23',  # code in error responses
    '1.24',  # repeated member_of
    '1.25',  # granular request groups
    '1.26',  # reserved may equal total
    '1.27',  # all inventories in provider summaries
    '1.28',  # consumer generations
    '1.29',  # nested providers in allocation candidates
    '1.30',  # POST /reshaper
    '1.31',  # in_tree on allocation candidates
    '1.32',  # forbidden aggregates
    '1.33',  # string request group suffixes
    '1.34',  # mappings in allocation candidates
    '1.35',  # root_required on allocation candidates
    '1.36',  # same_subtree on allocation candidates
    '1.37',  # re-parenting of resource providers
    '1.38',  # consumer types
    '1.39',  # any-traits with required=in:
]

MIN_VERSION_STRING = VERSIONS[0]
MAX_VERSION_STRING = VERSIONS[-1]


def parse(version_string: str) -> microversion_parse.Version:
    """Turn ``'1.14'`` into a comparable Version."""
    return microversion_parse.parse_version_string(version_string)


def of(req) -> microversion_parse.Version:
    """The microversion negotiated for a webob request."""
    return req.environ[MICROVERSION_ENVIRON]


def at_least(req, minor: int) -> bool:
    """Whether the request's microversion is 1.<minor> or later."""
    return of(req) >= (1, minor)

