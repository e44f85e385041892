"""Parsing of the provider filters in query strings, by microversion.

``member_of`` and ``required`` have the same syntax wherever providers
are searched; their parsers take the request for its microversion.

A parameter given more than once is upstream's business: ``member_of``
is refused before 1.24 and ``required`` takes the last value before
1.39; from then both are ANDed. Other parameters take their last value
(:func:`last`), some their first (:func:`first`); every value given is
validated, also those that do not count. Whitespace around list items is
ignored.
"""

import webob.exc

from placement import microversion
from placement import util
from placement.objects import provider_filter
from placement.objects import resource_provider

# GET /resource_providers parameters and the microversion adding each.
_PARAMS = (
    ('name', microversion.BASE),
    ('uuid', microversion.BASE),
    ('member_of', microversion.MEMBER_OF),
    ('resources', microversion.RESOURCES_FILTER),
    ('in_tree', microversion.NESTED_PROVIDERS),
    ('required', microversion.PROVIDERS_TRAITS),
)
_REPEATED_MEMBER_OF = microversion.REPEATED_MEMBER_OF
_REPEATED_REQUIRED = microversion.ANY_TRAITS
_FORBIDDEN_TRAITS = microversion.FORBIDDEN_TRAITS
_FORBIDDEN_AGGREGATES = microversion.FORBIDDEN_AGGREGATES
_ANY_TRAITS = microversion.ANY_TRAITS
_MAX_AMOUNT = 2147483647


def _bad(message):
    return webob.exc.HTTPBadRequest(message)


def query_uuid(name, value):
    """The canonical form of uuid query parameter ``name``; else 400."""
    uuid = resource_provider.canonical_uuid(value)
    if uuid is None:
        raise _bad(f"Invalid query string parameters: Expected '{name}' "
                   f"parameter to be a valid UUID. Got: {value}")
    return uuid


def _pick(params, name, parse, index):
    parsed = [parse(value) for value in listed(params, name)]
    return parsed[index] if parsed else None


def last(params, name, parse=str):
    """``parse`` of the last value of parameter ``name``; None if absent.

    Every value is parsed, so that a bad one anywhere is 400.
    """
    return _pick(params, name, parse, -1)


def first(params, name, parse=str):
    """Like :func:`last`, the first value."""
    return _pick(params, name, parse, 0)


def split_list(value):
    """The comma-separated items of ``value``, whitespace stripped."""
    return [item.strip() for item in value.split(',')]


def _distinct(groups):
    """``groups`` without repeats, in order: each becomes one condition
    of the query, and a repeat (``required=A,A,...``) asks nothing more.
    """
    return tuple(dict.fromkeys(groups))


def parse_member_of(req, values, name='member_of'):
    """``(groups, forbidden)`` from the ``member_of`` values.

    ``groups`` is a tuple of frozensets of aggregate uuids (a provider is
    in one of each); ``forbidden`` the uuids a provider must not be in
    (``!uuid`` and ``!in:a,b``, from 1.32). ``!`` inside ``in:`` is 400.
    """
    if len(values) > 1 and not microversion.at_least(
            req, _REPEATED_MEMBER_OF):
        raise _bad(f'Multiple {name} parameters are not supported')
    allow_forbidden = microversion.at_least(req, _FORBIDDEN_AGGREGATES)
    groups, forbidden = [], set()
    for value in values:
        negated = allow_forbidden and value.startswith('!')
        listed = value[1:] if negated else value
        if listed.startswith('in:'):
            listed = listed[3:]
            uuids = listed.split(',')
        else:
            uuids = [listed]
        canonical = {resource_provider.canonical_uuid(uuid)
                     for uuid in uuids}
        if None in canonical:
            raise _bad(f"Invalid query string parameters: Expected '{name}' "
                       f"parameter to contain valid UUID(s). Got: {value}")
        if negated:
            forbidden |= canonical
        else:
            groups.append(frozenset(canonical))
    return _distinct(groups), frozenset(forbidden)


def parse_required(req, values, name='required'):
    """``(groups, forbidden)`` from the ``required`` values.

    ``groups`` is a tuple of frozensets of trait names (a provider has
    one of each: a plain trait is a group of one, ``in:A,B`` from 1.39 a
    group of several); ``forbidden`` the traits prefixed with ``!`` (from
    1.22), not allowed inside ``in:``. Before 1.39 only the last value
    counts.
    """
    parsed = [_required_value(req, value, name) for value in values]
    if not microversion.at_least(req, _REPEATED_REQUIRED):
        parsed = parsed[-1:]
    groups = [group for value_groups, _ in parsed for group in value_groups]
    forbidden = frozenset().union(*(value_forbidden
                                    for _, value_forbidden in parsed))
    return _distinct(groups), forbidden


def _required_value(req, value, name):
    """``(groups, forbidden)`` of one ``required`` value."""
    any_of = (microversion.at_least(req, _ANY_TRAITS)
              and value.strip().startswith('in:'))
    names = split_list(value.strip()[3:] if any_of else value)
    if not all(names) or any(trait == '!' for trait in names):
        raise _bad(
            f"Invalid query string parameters: Expected '{name}' "
            f"parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
            f"Got: {value}")
    if any_of:
        if any(trait.startswith('!') for trait in names):
            raise _bad(
                f"Invalid query string parameters: Mixing forbidden "
                f"and any-of traits in '{name}' is not supported. "
                f"Got: {value}")
        return [frozenset(names)], set()
    groups, forbidden = [], set()
    for trait in names:
        if (microversion.at_least(req, _FORBIDDEN_TRAITS)
                and trait.startswith('!')):
            forbidden.add(trait[1:])
        else:
            groups.append(frozenset([trait]))
    return groups, forbidden


def conflicting_traits(required, forbidden):
    """The sorted traits both required (in any group) and forbidden."""
    return sorted(frozenset().union(*required) & forbidden)


def parse_resources(value, name='resources'):
    """``{resource class: amount}`` from ``VCPU:2,MEMORY_MB:1024``."""
    resources = {}
    for item in value.split(','):
        class_name, sep, amount = item.partition(':')
        if not (class_name and sep):
            raise _bad(
                f"Badly formed {name} parameter. Expected {name} query "
                f"string parameter in form: ?{name}=VCPU:2,MEMORY_MB:1024. "
                f"Got: {value}")
        try:
            amount = int(amount)
        except ValueError:
            raise _bad(
                f'Requested resource {class_name} expected positive '
                f'integer amount. Got: {amount}.') from None
        if not 1 <= amount <= _MAX_AMOUNT:
            raise _bad(
                f'Requested resource {class_name} requires amount >= 1 and '
                f'<= {_MAX_AMOUNT}. Got: {amount}.')
        if class_name in resources:
            raise _bad(f'Resource class {class_name} given more than once '
                       f'in {name}: {value}')
        resources[class_name] = amount
    return resources


def optional_uuid(params, name):
    """The canonical uuid of the last parameter ``name``, or None."""
    return last(params, name, lambda value: query_uuid(name, value.strip()))


def listed(params, name):
    """The values of parameter ``name`` in ``params`` as a list.

    :func:`placement.util.query_params` gives a repeatable parameter as a
    list and another one as its single value.
    """
    value = params.get(name, [])
    return value if isinstance(value, list) else [value]


def list_filter(req):
    """The :class:`ProviderFilter` of a GET /resource_providers request."""
    allowed = {name for name, version in _PARAMS
               if microversion.at_least(req, version)}
    # Any may be repeated (see the module's docstring).
    params = util.query_params(req, allowed, repeatable=allowed)
    member_of, forbidden_aggregates = parse_member_of(
        req, listed(params, 'member_of'))
    # A trait both required and forbidden simply matches nothing here.
    required, forbidden_traits = parse_required(
        req, listed(params, 'required'))
    return provider_filter.ProviderFilter(
        name=last(params, 'name'),
        uuid=optional_uuid(params, 'uuid'),
        in_tree=optional_uuid(params, 'in_tree'),
        resources=last(params, 'resources', parse_resources) or {},
        member_of=member_of,
        forbidden_aggregates=forbidden_aggregates,
        required_traits=required,
        forbidden_traits=forbidden_traits,
    )
