"""The traits."""

from placement import microversion as mv
from placement.contract import BAD
from placement.contract import CREATED
from placement.contract import NOT_FOUND
from placement.contract import QUERY_ERRORS
from placement.contract import Operation
from placement.contract import QueryParam
from placement.contract import Response
from placement.contract import since
from placement.handlers import trait
from placement.policies import trait as policies
from placement.schemas import response

OPERATIONS = (
    Operation(
        'GET', '/traits', trait.list_traits, 'List traits.',
        policy=policies.LIST, versions=since(mv.TRAITS),
        query=(
            QueryParam('name', '``in:`` and comma-separated names, or '
                       '``startswith:`` and a prefix.'),
            QueryParam('associated', '``true``: only traits of some '
                       'provider; ``false``: only traits of none (in any '
                       'case).'),
        ),
        responses=(Response(200, response.TRAITS),),
        errors={400: QUERY_ERRORS}),
    Operation(
        'GET', '/traits/{name}', trait.get_trait,
        'Whether a trait exists (204).',
        policy=policies.SHOW, versions=since(mv.TRAITS), produces=(),
        responses=(Response(204),), errors=NOT_FOUND),
    Operation(
        'PUT', '/traits/{name}', trait.put_trait,
        'Make sure a custom trait exists (201 created, 204 already there).',
        policy=policies.UPDATE, versions=since(mv.TRAITS), produces=(),
        responses=(Response(201, headers=CREATED), Response(204)),
        errors={400: BAD}),
    Operation(
        'DELETE', '/traits/{name}', trait.delete_trait,
        'Delete a custom trait no provider has.',
        policy=policies.DELETE, versions=since(mv.TRAITS), produces=(),
        responses=(Response(204),),
        errors={400: BAD, **NOT_FOUND, 409: BAD}),
)
