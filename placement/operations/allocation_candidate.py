"""The allocation candidates."""

from placement import microversion as mv
from placement.contract import FIRST
from placement.contract import LAST
from placement.contract import QUERY_ERRORS
from placement.contract import Operation
from placement.contract import QueryParam
from placement.contract import Response
from placement.contract import between
from placement.contract import since
from placement.handlers import allocation_candidate
from placement.operations import params
from placement.policies import allocation_candidate as policies
from placement.schemas import response

_GRANULAR = (' From 1.25 the group parameters ``resources``, ``required``, '
             '``member_of`` and ``in_tree`` may carry a suffix (digits; '
             'from 1.33 up to 64 of ``[a-zA-Z0-9_-]``) that makes a '
             'request group of its own.')

#: The query; the explain report reads it as well.
QUERY = (
    QueryParam('resources', params.RESOURCES + ' Required before 1.36 '
               '(in one group at least).', repeated=LAST,
               suffixes=params.GROUP_SUFFIXES),
    QueryParam('required', params.REQUIRED,
               versions=since(mv.CANDIDATES_TRAITS),
               repeatable_since=mv.ANY_TRAITS, repeated=LAST,
               suffixes=params.GROUP_SUFFIXES),
    QueryParam('member_of', params.MEMBER_OF,
               versions=since(mv.CANDIDATES_MEMBER_OF),
               repeatable_since=mv.REPEATED_MEMBER_OF,
               suffixes=params.GROUP_SUFFIXES),
    # A uuid: checked by provider_query, in upstream's words.
    QueryParam('in_tree', 'The uuid of a provider: only '
               'candidates from its tree.',
               versions=since(mv.CANDIDATES_IN_TREE),
               repeated=LAST,
               suffixes=params.GROUP_SUFFIXES),
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

OPERATIONS = (
    Operation(
        'GET', '/allocation_candidates',
        allocation_candidate.list_allocation_candidates,
        'The allocations that could satisfy a request, and the providers '
        'involved.' + _GRANULAR,
        policy=policies.LIST, large_answer=True,
        versions=since(mv.ALLOCATION_CANDIDATES),
        query=QUERY,
        responses=(
            Response(200, response.CANDIDATES,
                     between(mv.ALLOCATION_CANDIDATES, mv.DICT_ALLOCATIONS)),
            Response(200, response.CANDIDATES_V1_12,
                     between(mv.DICT_ALLOCATIONS, mv.CANDIDATES_TRAITS)),
            Response(200, response.CANDIDATES_V1_17,
                     between(mv.CANDIDATES_TRAITS, mv.NESTED_CANDIDATES)),
            Response(200, response.CANDIDATES_V1_29,
                     between(mv.NESTED_CANDIDATES, mv.MAPPINGS)),
            Response(200, response.CANDIDATES_V1_34, since(mv.MAPPINGS)),
        ),
        errors={400: QUERY_ERRORS}),
)
