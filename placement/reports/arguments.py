"""The arguments of the reports, for HTTP query strings and the CLI.

Reports are outside the microversioned API: ``member_of`` and ``required``
always take their latest syntax (``in:``, ``!``), whatever microversion a
request names. Each function takes ``{name: [values]}`` and raises
webob's 400 for a malformed value, as the rest of the API does.
"""

import types

import webob.exc

from placement import errors
from placement import microversion
from placement.handlers import provider_query
from placement.reports import areas
from placement.reports import headroom
from placement.reports import scope as scope_mod

#: What the shared query parsers need of a request at the latest version.
_LATEST = types.SimpleNamespace(environ={
    microversion.MICROVERSION_ENVIRON:
        microversion.parse(microversion.MAX_VERSION_STRING)})

SELECTION = ('service', 'area', 'resource')
SCOPE = ('member_of', 'in_tree')


def _one(params, name):
    values = params.get(name) or [None]
    return values[-1]


def selection(params):
    """The :class:`areas.ResourceSelection` of service, area, resource."""
    for name in ('service', 'area'):
        for value in params.get(name, ()):
            if value not in areas.AREAS:
                raise webob.exc.HTTPBadRequest(
                    f"Invalid query string parameters: {name}={value!r} is "
                    f"not one of {', '.join(areas.AREAS)}",
                    comment=errors.QUERYPARAM_BAD_VALUE)
    return areas.ResourceSelection(
        services=frozenset(params.get('service', ())),
        areas=frozenset(params.get('area', ())),
        resources=frozenset(params.get('resource', ())))


def scope(params):
    """The :class:`scope_mod.Scope` of ``member_of`` and ``in_tree``."""
    member_of, forbidden = provider_query.parse_member_of(
        _LATEST, params.get('member_of', ()))
    in_tree = _one(params, 'in_tree')
    return scope_mod.Scope(
        member_of=member_of, forbidden_aggregates=forbidden,
        in_tree=None if in_tree is None else provider_query.query_uuid(
            'in_tree', in_tree))


def shape(params):
    """The :class:`headroom.Shape` of ``resources`` and ``required``."""
    resources = _one(params, 'resources')
    if resources is None:
        raise webob.exc.HTTPBadRequest(
            "Invalid query string parameters: 'resources' is a required "
            "property", comment=errors.QUERYPARAM_MISSING_VALUE)
    required, forbidden = provider_query.parse_required(
        _LATEST, params.get('required', ()))
    return headroom.Shape(
        resources=provider_query.parse_resources(resources),
        required_traits=required, forbidden_traits=forbidden)
