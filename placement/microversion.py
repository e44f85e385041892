"""The microversions this service speaks, and helpers to branch on them.

The microversion middleware (from microversion-parse) puts the negotiated
``Version`` into the WSGI environ under :data:`MICROVERSION_ENVIRON`.
Each microversion has a name below, the feature it added: the operation
table (:mod:`placement.operations`) and the code compare with those
names, not with literals.
"""

import microversion_parse

SERVICE_TYPE = 'placement'
MICROVERSION_ENVIRON = f'{SERVICE_TYPE}.microversion'


def v1(minor):
    """Microversion 1.<minor>."""
    return microversion_parse.Version(1, minor)


BASE = v1(0)
AGGREGATES = v1(1)                 # aggregates of a resource provider
RESOURCE_CLASSES = v1(2)           # custom resource classes
MEMBER_OF = v1(3)                  # member_of on GET /resource_providers
RESOURCES_FILTER = v1(4)           # resources on GET /resource_providers
DELETE_ALL_INVENTORIES = v1(5)     # DELETE of all inventories of a provider
TRAITS = v1(6)                     # traits
IDEMPOTENT_RESOURCE_CLASS = v1(7)  # idempotent PUT /resource_classes/{name}
OWNER_REQUIRED = v1(8)             # project_id, user_id required in PUT
TOTAL_USAGES = v1(9)               # GET /usages
ALLOCATION_CANDIDATES = v1(10)     # GET /allocation_candidates
ALLOCATIONS_LINK = v1(11)          # allocations link on resource providers
DICT_ALLOCATIONS = v1(12)          # dict format of PUT /allocations/{uuid}
POST_ALLOCATIONS = v1(13)          # POST /allocations
NESTED_PROVIDERS = v1(14)          # nested resource providers
LAST_MODIFIED = v1(15)             # Last-Modified and Cache-Control
CANDIDATES_LIMIT = v1(16)          # limit on allocation candidates
CANDIDATES_TRAITS = v1(17)         # required traits on candidates
PROVIDERS_TRAITS = v1(18)          # required traits on GET /resource_providers
AGGREGATES_GENERATION = v1(19)     # generation in provider aggregates
POST_PROVIDER_RETURNS_BODY = v1(20)  # POST /resource_providers returns it
CANDIDATES_MEMBER_OF = v1(21)      # member_of on allocation candidates
FORBIDDEN_TRAITS = v1(22)          # forbidden traits
ERROR_CODES = v1(23)               # code in error responses
REPEATED_MEMBER_OF = v1(24)        # repeated member_of
GRANULAR = v1(25)                  # granular request groups
RESERVED_EQUALS_TOTAL = v1(26)     # reserved may equal total
ALL_INVENTORIES = v1(27)           # all inventories in provider summaries
CONSUMER_GENERATIONS = v1(28)      # consumer generations
NESTED_CANDIDATES = v1(29)         # nested providers in candidates
RESHAPER = v1(30)                  # POST /reshaper
CANDIDATES_IN_TREE = v1(31)        # in_tree on allocation candidates
FORBIDDEN_AGGREGATES = v1(32)      # forbidden aggregates
STRING_SUFFIXES = v1(33)           # string request group suffixes
MAPPINGS = v1(34)                  # mappings in allocation candidates
ROOT_REQUIRED = v1(35)             # root_required on allocation candidates
SAME_SUBTREE = v1(36)              # same_subtree on allocation candidates
REPARENTING = v1(37)               # re-parenting of resource providers
CONSUMER_TYPES = v1(38)            # consumer types
ANY_TRAITS = v1(39)                # any-traits with required=in:

MIN_VERSION = BASE
MAX_VERSION = ANY_TRAITS
# Every microversion, oldest first.
VERSIONS = [str(v1(minor)) for minor in range(MAX_VERSION.minor + 1)]
MIN_VERSION_STRING = str(MIN_VERSION)
MAX_VERSION_STRING = str(MAX_VERSION)


def parse(version_string: str) -> microversion_parse.Version:
    """Turn ``'1.14'`` into a comparable Version."""
    return microversion_parse.parse_version_string(version_string)


def of(req) -> microversion_parse.Version:
    """The microversion negotiated for a webob request."""
    return req.environ[MICROVERSION_ENVIRON]


def at_least(req, version: microversion_parse.Version) -> bool:
    """Whether the request's microversion is ``version`` (one of the
    names above) or later."""
    return of(req) >= version

