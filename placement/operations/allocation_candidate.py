"""The allocation candidates."""

from placement import microversion as mv
from placement import query_params
from placement.contract import QUERY_ERRORS
from placement.contract import Operation
from placement.contract import Response
from placement.contract import between
from placement.contract import since
from placement.handlers import allocation_candidate
from placement.policies import allocation_candidate as policies
from placement.schemas import response

_GRANULAR = (' From 1.25 the group parameters ``resources``, ``required``, '
             '``member_of`` and ``in_tree`` may carry a suffix (digits; '
             'from 1.33 up to 64 of ``[a-zA-Z0-9_-]``) that makes a '
             'request group of its own.')

OPERATIONS = (
    Operation(
        'GET', '/allocation_candidates',
        allocation_candidate.list_allocation_candidates,
        'The allocations that could satisfy a request, and the providers '
        'involved.' + _GRANULAR,
        policy=policies.LIST, large_answer=True,
        versions=since(mv.ALLOCATION_CANDIDATES),
        query=query_params.CANDIDATES,
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
