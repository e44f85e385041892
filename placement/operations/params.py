"""The query parameters GET /resource_providers, GET
/allocation_candidates and the reports share."""

from placement import microversion as mv
from placement.contract import between
from placement.contract import since

MEMBER_OF = ('An aggregate uuid, or ``in:`` and a comma-separated list '
              'of them (member of any); ``!`` in front forbids (from 1.32).')
REQUIRED = ('Comma-separated trait names a provider must have; ``!`` in '
             'front forbids (from 1.22), ``in:`` lists alternatives '
             '(from 1.39).')
RESOURCES = ('Comma-separated ``CLASS:AMOUNT`` pairs, e.g. '
              '``VCPU:4,MEMORY_MB:2048``.')
UUID = {'type': 'string', 'format': 'uuid'}
#: The suffixes of granular request groups: digits from 1.25, up to 64
#: of ``[a-zA-Z0-9_-]`` from 1.33 (written as upstream's, optional:
#: clients match the pattern in the error).
GROUP_SUFFIXES = (
    (between(mv.GRANULAR, mv.STRING_SUFFIXES), '[1-9][0-9]*'),
    (since(mv.STRING_SUFFIXES), '([a-zA-Z0-9_-]{1,64})?'),
)
