"""The query parameters GET /resource_providers, GET
/allocation_candidates and the reports share, and the whole query of
the candidates (:data:`CANDIDATES`), which the explain report reads as
well: declarations below the handlers, so that the reports and
``placement-manage report`` read them without the operation table.
"""

from placement import microversion as mv
from placement.contract import FIRST
from placement.contract import LAST
from placement.contract import QueryParam
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

#: The query of GET /allocation_candidates.
CANDIDATES = (
    QueryParam('resources', RESOURCES + ' Required before 1.36 '
               '(in one group at least).', repeated=LAST,
               suffixes=GROUP_SUFFIXES),
    QueryParam('required', REQUIRED,
               versions=since(mv.CANDIDATES_TRAITS),
               repeatable_since=mv.ANY_TRAITS, repeated=LAST,
               suffixes=GROUP_SUFFIXES),
    QueryParam('member_of', MEMBER_OF,
               versions=since(mv.CANDIDATES_MEMBER_OF),
               repeatable_since=mv.REPEATED_MEMBER_OF,
               suffixes=GROUP_SUFFIXES),
    # A uuid: checked by provider_query, in upstream's words.
    QueryParam('in_tree', 'The uuid of a provider: only '
               'candidates from its tree.',
               versions=since(mv.CANDIDATES_IN_TREE),
               repeated=LAST,
               suffixes=GROUP_SUFFIXES),
    QueryParam('limit', 'At most this many allocation requests.',
               {'type': 'string', 'pattern': '^[1-9]([0-9]+)?$'},
               versions=since(mv.CANDIDATES_LIMIT),
               repeated=FIRST),
    QueryParam('group_policy', 'How suffixed groups share '
               'providers; required with two or more of them.',
               {'type': 'string', 'enum': ['none', 'isolate']},
               versions=since(mv.GRANULAR), repeated=FIRST),
    QueryParam('root_required', 'Comma-separated traits the root '
               'provider must have (``!`` forbids).',
               versions=since(mv.ROOT_REQUIRED)),
    QueryParam('same_subtree', 'Comma-separated group suffixes '
               'to be satisfied from one subtree.',
               versions=since(mv.SAME_SUBTREE),
               repeatable_since=mv.SAME_SUBTREE),
)
