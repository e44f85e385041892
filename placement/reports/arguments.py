"""The arguments of the reports, for HTTP query strings and the CLI.

Reports are outside the microversioned API: ``member_of`` and ``required``
always take their latest syntax (``in:``, ``!``), whatever microversion a
request names. Each function takes ``{name: [values]}`` and raises
:class:`exception.InvalidQuery` (a 400, as the rest of the API answers)
for a malformed value.
"""

from placement import errors
from placement import exception
from placement import microversion
from placement import provider_query
from placement.reports import areas
from placement.reports import declaration
from placement.reports import headroom
from placement.reports import scope as scope_mod

_AREAS = ', '.join(areas.AREAS)
#: Which resources a report shows (:func:`selection`).
SELECTION = (
    declaration.Argument('service', f'Only this service ({_AREAS}).',
                         repeatable=True, metavar='SERVICE'),
    declaration.Argument('area', f'Only this area ({_AREAS}).',
                         repeatable=True, metavar='AREA'),
    declaration.Argument('resource', 'Only this resource class.',
                         repeatable=True, metavar='RESOURCE'),
)
#: Which providers a report counts (:func:`scope`).
SCOPE = (
    declaration.Argument(
        'member_of', 'Only providers (or their roots) in these '
        'aggregates: UUID, in:UUID1,UUID2 or !UUID.', repeatable=True,
        metavar='AGGREGATES'),
    declaration.Argument('in_tree', 'Only the tree of this provider.',
                         metavar='UUID'),
)
#: The shape of one workload (:func:`shape`).
SHAPE = (
    declaration.Argument(
        'resources', 'The size of one workload, e.g. '
        'VCPU:4,MEMORY_MB:8192.', metavar='CLASS:AMOUNT,...',
        required=True),
    declaration.Argument(
        'required', 'Traits the provider must have: T, in:T1,T2 or !T.',
        repeatable=True, metavar='TRAITS'),
)


def _one(params, name):
    values = params.get(name) or [None]
    return values[-1]


def selection(params):
    """The :class:`areas.ResourceSelection` of service, area, resource."""
    for name in ('service', 'area'):
        for value in params.get(name, ()):
            if value not in areas.AREAS:
                raise exception.InvalidQuery(
                    f"Invalid query string parameters: {name}={value!r} is "
                    f"not one of {', '.join(areas.AREAS)}",
                    errors.QUERYPARAM_BAD_VALUE)
    return areas.ResourceSelection(
        services=frozenset(params.get('service', ())),
        areas=frozenset(params.get('area', ())),
        resources=frozenset(params.get('resource', ())))


def scope(params):
    """The :class:`scope_mod.Scope` of ``member_of`` and ``in_tree``."""
    member_of, forbidden = provider_query.parse_member_of(
        microversion.MAX_VERSION, params.get('member_of', ()))
    in_tree = _one(params, 'in_tree')
    return scope_mod.Scope(
        member_of=member_of, forbidden_aggregates=forbidden,
        in_tree=None if in_tree is None else provider_query.query_uuid(
            'in_tree', in_tree))


def shape(params):
    """The :class:`headroom.Shape` of ``resources`` and ``required``."""
    resources = _one(params, 'resources')
    if resources is None:
        raise exception.InvalidQuery(
            "Invalid query string parameters: 'resources' is a required "
            "property", errors.QUERYPARAM_MISSING_VALUE)
    required, forbidden = provider_query.parse_required(
        microversion.MAX_VERSION, params.get('required', ()))
    return headroom.Shape(
        resources=provider_query.parse_resources(resources),
        required_traits=required, forbidden_traits=forbidden)
