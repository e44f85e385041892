"""What the query values of providers and candidates mean, at a
microversion: the validated query string
(:mod:`placement.query_values`) as what the object layer takes, a
:class:`ProviderFilter` for GET /resource_providers
(:func:`list_filter`), a :class:`CandidateRequest` for GET
/allocation_candidates (:func:`candidate_request`); the reports
and ``placement-manage report`` share the parsers of ``member_of``,
``required``, ``resources`` and uuids (at the newest microversion).

Below the handlers (upstream's ``lib.py``): it knows no HTTP, and a
value that means nothing raises :class:`exception.InvalidQuery` with
the message and code of its own.

The schema has checked the names and the form of the values (limit,
group_policy, uuids). Which value of a repeated parameter counts, and
which names carry a request group's suffix, is the operation table's
business (:meth:`placement.query_values.Params.groups`); ``member_of``
given more than once before 1.24 is refused here, in upstream's words.
Whitespace around list items and uuids is ignored.
"""

import contextlib
import sys

from placement import errors
from placement import exception
from placement import limits
from placement import microversion
from placement import uuid_form
from placement.objects import candidate_request as request_obj
from placement.objects import provider_filter

_REPEATED_MEMBER_OF = microversion.REPEATED_MEMBER_OF
_FORBIDDEN_TRAITS = microversion.FORBIDDEN_TRAITS
_FORBIDDEN_AGGREGATES = microversion.FORBIDDEN_AGGREGATES
_ANY_TRAITS = microversion.ANY_TRAITS
_NESTED = microversion.NESTED_CANDIDATES
_RESOURCELESS = microversion.SAME_SUBTREE
_GRANULAR = microversion.GRANULAR
_MAX_AMOUNT = limits.MAX_INT


def _bad(message, code=None):
    return exception.InvalidQuery(message, code)


def query_uuid(name, value):
    """The canonical form of uuid query parameter ``name``; else 400."""
    uuid = uuid_form.canonical(value.strip())
    if uuid is None:
        raise _bad(f"Invalid query string parameters: Expected '{name}' "
                   f"parameter to be a valid UUID. Got: {value}")
    return uuid


def split_list(value):
    """The comma-separated items of ``value``, whitespace stripped."""
    return [item.strip() for item in value.split(',')]


def _distinct(groups):
    """``groups`` without repeats, in order: each becomes one condition
    of the query, and a repeat (``required=A,A,...``) asks nothing more.
    """
    return tuple(dict.fromkeys(groups))


def parse_member_of(version, values, name='member_of'):
    """``(groups, forbidden)`` from the ``member_of`` values.

    ``groups`` is a tuple of frozensets of aggregate uuids (a provider is
    in one of each); ``forbidden`` the uuids a provider must not be in
    (``!uuid`` and ``!in:a,b``, from 1.32). ``!`` inside ``in:`` is 400.
    """
    if len(values) > 1 and version < _REPEATED_MEMBER_OF:
        raise _bad(f'Multiple {name} parameters are not supported')
    allow_forbidden = version >= _FORBIDDEN_AGGREGATES
    groups, forbidden = [], set()
    for value in values:
        if value.startswith('!') and not allow_forbidden:
            # Upstream's phrase.
            raise _bad(f'Forbidden {name} parameters are not supported in '
                       f'the specified microversion. Got: {value}')
        negated = value.startswith('!')
        listed = value[1:] if negated else value
        if listed.startswith('in:'):
            listed = listed[3:]
            uuids = listed.split(',')
        elif ',' in listed:
            raise _bad(f"Multiple values for '{name}' must be prefixed with "
                       f"the 'in:' or '!in:' keyword using the valid "
                       f"microversion. Got: {value}")
        else:
            uuids = [listed]
        canonical = {uuid_form.canonical(uuid)
                     for uuid in uuids}
        if None in canonical:
            raise _bad(f"Invalid query string parameters: Expected '{name}' "
                       f"parameter to contain valid UUID(s). Got: {value}")
        if negated:
            forbidden |= canonical
        else:
            groups.append(frozenset(canonical))
    return _distinct(groups), frozenset(forbidden)


def parse_required(version, values, name='required', counted=None):
    """``(groups, forbidden)`` from the ``required`` values.

    ``groups`` is a tuple of frozensets of trait names (a provider has
    one of each: a plain trait is a group of one, ``in:A,B`` from 1.39 a
    group of several); ``forbidden`` the traits prefixed with ``!`` (from
    1.22), not allowed inside ``in:``. Every value given must mean
    something; ``counted`` are those that count (all by default: which
    do is the operation table's rule, as :mod:`placement.query_values`
    applies it).
    """
    parsed = {value: _required_value(version, value, name)
              for value in values}
    counted = values if counted is None else counted
    groups = [group for value in counted for group in parsed[value][0]]
    forbidden = frozenset().union(*(parsed[value][1] for value in counted))
    return _distinct(groups), forbidden


def _required_value(version, value, name):
    """``(groups, forbidden)`` of one ``required`` value."""
    if value.strip().startswith('in:') and version < _ANY_TRAITS:
        raise _bad(f"The format '{value.strip()}' only supported since "
                   f"microversion {_ANY_TRAITS}.")
    any_of = value.strip().startswith('in:')
    names = split_list(value.strip()[3:] if any_of else value)
    allow_forbidden = version >= _FORBIDDEN_TRAITS
    if (not all(names) or any(trait == '!' for trait in names)
            or not allow_forbidden and any(trait.startswith('!')
                                           for trait in names)):
        form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
                else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
        raise _bad(
            f"Invalid query string parameters: Expected '{name}' "
            f"parameter value of the form: {form}. Got: {value}")
    if any_of:
        if any(trait.startswith('!') for trait in names):
            raise _bad(
                f"Invalid query string parameters: Mixing forbidden "
                f"and any-of traits in '{name}' is not supported. "
                f"Got: {value}")
        return [frozenset(names)], set()
    groups, forbidden = [], set()
    for trait in names:
        if trait.startswith('!'):
            forbidden.add(trait[1:])
        else:
            groups.append(frozenset([trait]))
    return groups, forbidden


def conflicting_traits(required, forbidden):
    """The sorted traits both required and forbidden.

    Only a trait required alone conflicts: one of an ``in:`` list also
    forbidden is accepted and evaluated as written (upstream's rule;
    ``required=in:A,B&required=!A`` asks for B without A).
    """
    return sorted(frozenset().union(*(traits for traits in required
                                      if len(traits) == 1)) & forbidden)


def parse_resources(value, name='resources'):
    """``{resource class: amount}`` from ``VCPU:2,MEMORY_MB:1024``."""
    resources = {}
    for item in value.split(','):
        class_name, sep, amount = item.partition(':')
        if not (class_name and sep):
            # Upstream's phrase: the item, or "empty string".
            raise _bad(
                f"Badly formed {name} parameter. Expected {name} query "
                f"string parameter in form: ?{name}=VCPU:2,MEMORY_MB:1024. "
                f"Got: {item if value else 'empty string'}.")
        try:
            amount = int(amount)
        except ValueError:
            raise _bad(
                f'Requested resource {class_name} expected positive '
                f'integer amount. Got: {amount}.') from None
        if amount < 1:
            raise _bad(f'Requested resource {class_name} requires amount '
                       f'>= 1. Got: {amount}.')
        if amount > _MAX_AMOUNT:
            raise _bad(f'Requested resource {class_name} requires amount '
                       f'<= {_MAX_AMOUNT}. Got: {amount}.')
        if class_name in resources:
            raise _bad(f'Resource class {class_name} given more than once '
                       f'in {name}: {value}')
        resources[class_name] = amount
    return resources


@contextlib.contextmanager
def resources_named_known():
    """An unknown class of a ``resources`` parameter, found by the
    read run in this block, in upstream's words."""
    try:
        yield
    except exception.UnknownResourceClass as exc:
        raise exception.UnknownResourceClass(
            f'Invalid resource class in resources parameter: {exc}'
        ) from exc


def _optional_uuid(params, name):
    """The canonical uuid of parameter ``name`` (valid), or None."""
    value = params.get(name)
    return value and uuid_form.canonical(value.strip())


def _candidate_in_tree(params, name):
    """The canonical uuid of ``in_tree{suffix}``, or None; 400 in
    upstream's words when it is not a uuid."""
    value = params.get(name)
    if value is None:
        return None
    uuid = uuid_form.canonical(value.strip())
    if uuid is None:
        raise _bad(f"Invalid query string parameters: Expected '{name}' "
                   f"parameter to be a format of uuid. Got: {value}")
    return uuid


def _optional_resources(params, name):
    """The resources of the last parameter ``name``; every one given is
    parsed, so that a bad one anywhere is 400."""
    parsed = [parse_resources(value, name) for value in params.every(name)]
    return parsed[-1] if parsed else {}


def list_filter(version, params):
    """The :class:`ProviderFilter` of GET /resource_providers."""
    member_of, forbidden_aggregates = parse_member_of(
        version, params.get('member_of', []))
    # A trait both required and forbidden simply matches nothing here.
    required, forbidden_traits = parse_required(
        version, params.every('required'),
        counted=params.get('required', []))
    return provider_filter.ProviderFilter(
        name=params.get('name'),
        uuid=_optional_uuid(params, 'uuid'),
        in_tree=_optional_uuid(params, 'in_tree'),
        resources=_optional_resources(params, 'resources'),
        member_of=member_of,
        forbidden_aggregates=forbidden_aggregates,
        required_traits=required,
        forbidden_traits=forbidden_traits,
    )


# GET /allocation_candidates.

def _group(version, params, suffix):
    """The :class:`RequestGroup` of ``suffix`` from the query ``params``."""
    required, forbidden_traits = parse_required(
        version, params.every(f'required{suffix}'), f'required{suffix}',
        counted=params.get(f'required{suffix}', []))
    conflicts = conflicting_traits(required, forbidden_traits)
    if conflicts:
        raise _bad(
            f"Conflicting required and forbidden traits found in the "
            f"following traits keys: required{suffix}: "
            f"({', '.join(conflicts)})")
    member_of, forbidden_aggregates = parse_member_of(
        version, params.get(f'member_of{suffix}', []), f'member_of{suffix}')
    return request_obj.RequestGroup(
        suffix=suffix,
        resources=_optional_resources(params, f'resources{suffix}'),
        required_traits=required,
        forbidden_traits=forbidden_traits,
        member_of=member_of,
        forbidden_aggregates=forbidden_aggregates,
        in_tree=_candidate_in_tree(params, f'in_tree{suffix}'),
    )


def _groups(version, params):
    """The request groups: the unsuffixed one (if given) first."""
    return tuple(_group(version, params, suffix)
                 for suffix in sorted(params.groups()))


def _limit(params):
    """A positive integer (the schema says so: digits, no leading zero);
    one beyond ``sys.maxsize`` limits nothing more than ``sys.maxsize``
    does (and Python slices stop there). One with more digits than
    ``sys.maxsize`` is beyond it, and is not converted: ``int()``
    refuses more than 4,300 digits."""
    value = params.get('limit')
    if value is None:
        return None
    if len(value) > len(str(sys.maxsize)):
        return sys.maxsize
    return min(int(value), sys.maxsize)


def _group_policy(params, groups):
    """``group_policy``: required with more than one suffixed group."""
    policy = params.get('group_policy')
    if policy is None and sum(1 for group in groups if group.suffix) > 1:
        raise _bad('The "group_policy" parameter is required when '
                   'specifying more than one "resources{N}" parameter.')
    return policy


def _root_required(version, params):
    """``(required, forbidden)`` root traits; no ``in:`` (yet) there."""
    value = params.get('root_required')
    if value is None:
        return (), frozenset()
    if value.strip().startswith('in:'):
        raise _bad(f"Invalid query string parameters: 'in:' is not "
                   f"supported in 'root_required'. Got: {value}",
                   errors.QUERYPARAM_BAD_VALUE)
    required, forbidden = parse_required(version, [value], 'root_required')
    conflicts = conflicting_traits(required, forbidden)
    if conflicts:
        raise _bad(f"Conflicting required and forbidden traits found in "
                   f"root_required: {', '.join(conflicts)}",
                   errors.QUERYPARAM_BAD_VALUE)
    return required, forbidden


def _same_subtree(params, groups):
    """Sets of suffixes; each must name a suffixed group of the request."""
    suffixes = {group.suffix for group in groups if group.suffix}
    subtrees = []
    for value in params.get('same_subtree', []):
        subtree = frozenset(split_list(value))
        if '' in subtree:
            raise _bad(
                f"Empty string (unsuffixed group) can not be specified in "
                f"`same_subtree`. Got: {value}", errors.QUERYPARAM_BAD_VALUE)
        unknown = sorted(subtree - suffixes)
        if unknown:
            raise _bad(
                f"Real suffixes should be specified in `same_subtree`: "
                f"{', '.join(unknown)} not found in the request's groups. "
                f"Got: {value}", errors.QUERYPARAM_BAD_VALUE)
        subtrees.append(subtree)
    return tuple(subtrees)


def _check_resources(version, groups, same_subtree):
    """Some group asks for resources, and those that do not may not.

    Before 1.36 every group has resources. From 1.36 a suffixed group
    without resources is a placeholder for ``same_subtree`` and must
    appear in one (an unsuffixed one may be any provider of the tree);
    the errors have their specific codes from then on.
    """
    resourceless = version >= _RESOURCELESS
    if not any(group.resources for group in groups):
        if version < _GRANULAR:
            # Upstream's schema requires it then: jsonschema's words.
            raise _bad("Invalid query string parameters: 'resources' is a "
                       "required property")
        raise _bad('There must be at least one resources or resources[$S] '
                   'parameter.',
                   errors.QUERYPARAM_MISSING_VALUE if resourceless else None)
    if not resourceless:
        _check_orphans(groups)
        return
    in_subtree = set().union(*same_subtree)
    orphans = [group.suffix for group in groups
               if group.suffix and not group.resources
               and group.suffix not in in_subtree]
    if orphans:
        raise _bad(
            f'Resourceless suffixed group request should be specified in '
            f'`same_subtree` query param: bad group(s) - '
            f'{", ".join(orphans)}.', errors.QUERYPARAM_BAD_VALUE)


def _check_orphans(groups):
    """Before 1.36 no group goes without resources: upstream names the
    parameters left orphaned, traits first, then aggregates, then
    trees."""
    orphaned = [group for group in groups if not group.resources]
    for prefix, what, given in (
            ('required', 'traits',
             lambda group: group.required_traits or group.forbidden_traits),
            ('member_of', 'member_of', lambda group: (
                group.member_of or group.forbidden_aggregates)),
            ('in_tree', 'in_tree', lambda group: group.in_tree)):
        keys = sorted(prefix + group.suffix for group in orphaned
                      if given(group))
        if keys:
            raise _bad(f'All {what} parameters must be associated with '
                       f'resources. Found the following orphaned {what} '
                       f'keys: {", ".join(keys)}')


def candidate_request(version, params):
    """The :class:`CandidateRequest` of GET /allocation_candidates."""
    groups = _groups(version, params)
    same_subtree = _same_subtree(params, groups)
    _check_resources(version, groups, same_subtree)
    root_required, root_forbidden = _root_required(version, params)
    return request_obj.CandidateRequest(
        groups=groups,
        group_policy=_group_policy(params, groups),
        limit=_limit(params),
        root_required=root_required,
        root_forbidden=root_forbidden,
        same_subtree=same_subtree,
        nested=version >= _NESTED,
    )
