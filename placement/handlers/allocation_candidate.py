"""Handler of GET /allocation_candidates: parse, ask, render.

The query string becomes a :class:`CandidateRequest` (every validation
rule of every microversion lives here); the object layer answers it with
:class:`Candidates`, which are rendered for the request's microversion.
"""

import re
import sys

import webob.exc

from placement import errors
from placement import microversion
from placement import util
from placement import wsgi_wrapper
from placement.handlers import provider_query
from placement.objects import allocation_candidate as candidate_obj
from placement.objects import candidate_request

# Group parameters (suffixable from 1.25) and the microversion adding each.
_GROUP_PARAMS = (
    ('resources', microversion.ALLOCATION_CANDIDATES),
    ('required', microversion.CANDIDATES_TRAITS),
    ('member_of', microversion.CANDIDATES_MEMBER_OF),
    ('in_tree', microversion.CANDIDATES_IN_TREE),
)
# Request-wide parameters and the microversion adding each.
_REQUEST_PARAMS = (
    ('limit', microversion.CANDIDATES_LIMIT),
    ('group_policy', microversion.GRANULAR),
    ('root_required', microversion.ROOT_REQUIRED),
    ('same_subtree', microversion.SAME_SUBTREE),
)
# The only parameter that may not be repeated (placement.query.
# duplicate_key); which value of the others counts: provider_query.
_ONCE = 'root_required'
_DICT_ALLOCATIONS = microversion.DICT_ALLOCATIONS
_TRAITS = microversion.CANDIDATES_TRAITS
_GRANULAR = microversion.GRANULAR
_ALL_INVENTORIES = microversion.ALL_INVENTORIES
_NESTED = microversion.NESTED_CANDIDATES
_STRING_SUFFIXES = microversion.STRING_SUFFIXES
_MAPPINGS = microversion.MAPPINGS
_RESOURCELESS = microversion.SAME_SUBTREE

_GROUP_KEY = re.compile(r'(resources|required|member_of|in_tree)(.*)', re.S)
_NUMERIC_SUFFIX = re.compile(r'[1-9][0-9]*')
_STRING_SUFFIX = re.compile(r'[a-zA-Z0-9_-]{1,64}')
_LIMIT = re.compile(r'[1-9][0-9]*')
_GROUP_POLICIES = ('none', 'isolate')


def _bad(message, code=None):
    return webob.exc.HTTPBadRequest(message, comment=code)


def _split_key(name):
    """``(prefix, suffix)`` of a group parameter name, else None.

    ``required_NET1`` is ``('required', '_NET1')``; ``required`` is
    ``('required', '')``.
    """
    match = _GROUP_KEY.fullmatch(name)
    return match and (match[1], match[2])


class _ParamNames:
    """Parameter names, for ``in``: some plain names and group prefixes.

    A group prefix matches its plain name and, with a suffix pattern
    (1.25), every name of the prefix followed by a valid suffix. Iterated,
    it lists the names a message can show.
    """

    def __init__(self, names, prefixes, suffix):
        self._names = frozenset(names)
        self._prefixes = frozenset(prefixes)
        self._suffix = suffix

    def __contains__(self, name):
        if name in self._names:
            return True
        key = _split_key(name)
        if key is None or key[0] not in self._prefixes:
            return False
        return key[1] == '' or bool(
            self._suffix and self._suffix.fullmatch(key[1]))

    def __iter__(self):
        yield from self._names
        yield from self._prefixes
        if self._suffix:
            yield from (f'{prefix}{{N}}' for prefix in self._prefixes)


def _names(req, pairs):
    return {name for name, version in pairs
            if microversion.at_least(req, version)}


def _suffix_pattern(req):
    if microversion.at_least(req, _STRING_SUFFIXES):
        return _STRING_SUFFIX
    if microversion.at_least(req, _GRANULAR):
        return _NUMERIC_SUFFIX
    return None


def _query(req):
    """The query string as ``{name: value or [values]}``; unknown names
    and a repeated root_required are 400."""
    suffix = _suffix_pattern(req)
    group_params = _names(req, _GROUP_PARAMS)
    allowed = _ParamNames(_names(req, _REQUEST_PARAMS), group_params, suffix)
    repeatable = _ParamNames(
        _names(req, _REQUEST_PARAMS) - {_ONCE}, group_params, suffix)
    return util.query_params(req, allowed, repeatable)


def _group(req, params, suffix):
    """The :class:`RequestGroup` of ``suffix`` from the query ``params``."""
    resources = f'resources{suffix}'
    required, forbidden_traits = provider_query.parse_required(
        req, provider_query.listed(params, f'required{suffix}'),
        f'required{suffix}')
    conflicts = provider_query.conflicting_traits(required, forbidden_traits)
    if conflicts:
        raise _bad(
            f"Conflicting required and forbidden traits found in the "
            f"following traits keys: required{suffix}: "
            f"({', '.join(conflicts)})")
    member_of, forbidden_aggregates = provider_query.parse_member_of(
        req, provider_query.listed(params, f'member_of{suffix}'),
        f'member_of{suffix}')
    return candidate_request.RequestGroup(
        suffix=suffix,
        resources=provider_query.last(
            params, resources,
            lambda value: provider_query.parse_resources(value, resources))
        or {},
        required_traits=required,
        forbidden_traits=forbidden_traits,
        member_of=member_of,
        forbidden_aggregates=forbidden_aggregates,
        in_tree=provider_query.optional_uuid(params, f'in_tree{suffix}'),
    )


def _groups(req, params):
    """The request groups: the unsuffixed one (if given) first."""
    suffixes = {key[1] for key in map(_split_key, params) if key}
    return tuple(_group(req, params, suffix) for suffix in sorted(suffixes))


def _limit(params):
    """A positive integer; one beyond ``sys.maxsize`` limits nothing more
    than ``sys.maxsize`` does (and Python slices stop there)."""
    return provider_query.first(params, 'limit', _parse_limit)


def _parse_limit(value):
    if not _LIMIT.fullmatch(value):
        raise _bad(f"Invalid query string parameters: Expected 'limit' to "
                   f"be a positive integer. Got: {value}")
    return min(int(value), sys.maxsize)


def _group_policy(params, groups):
    """``group_policy`` (the first one given): required with more than
    one suffixed group."""
    policy = provider_query.first(params, 'group_policy', _parse_policy)
    if policy is None and sum(1 for group in groups if group.suffix) > 1:
        raise _bad('The "group_policy" parameter is required when '
                   'specifying more than one "resources{N}" parameter.')
    return policy


def _parse_policy(value):
    if value not in _GROUP_POLICIES:
        raise _bad(f"Invalid query string parameters: Expected "
                   f"'group_policy' to be one of {', '.join(_GROUP_POLICIES)}"
                   f". Got: {value}")
    return value


def _root_required(req, params):
    """``(required, forbidden)`` root traits; no ``in:`` (yet) there."""
    value = params.get('root_required')
    if value is None:
        return (), frozenset()
    if value.strip().startswith('in:'):
        raise _bad(f"Invalid query string parameters: 'in:' is not "
                   f"supported in 'root_required'. Got: {value}",
                   errors.QUERYPARAM_BAD_VALUE)
    required, forbidden = provider_query.parse_required(
        req, [value], 'root_required')
    conflicts = provider_query.conflicting_traits(required, forbidden)
    if conflicts:
        raise _bad(f"Conflicting required and forbidden traits found in "
                   f"root_required: {', '.join(conflicts)}",
                   errors.QUERYPARAM_BAD_VALUE)
    return required, forbidden


def _same_subtree(params, groups):
    """Sets of suffixes; each must name a suffixed group of the request."""
    suffixes = {group.suffix for group in groups if group.suffix}
    subtrees = []
    for value in provider_query.listed(params, 'same_subtree'):
        subtree = frozenset(provider_query.split_list(value))
        unknown = sorted(subtree - suffixes)
        if unknown:
            raise _bad(
                f"Request group suffixes in 'same_subtree' must be present "
                f"in the request. Unknown suffixes: {', '.join(unknown)}. "
                f"Got: {value}", errors.QUERYPARAM_BAD_VALUE)
        subtrees.append(subtree)
    return tuple(subtrees)


def _check_resources(req, groups, same_subtree):
    """Some group asks for resources, and those that do not may not.

    Before 1.36 every group has resources. From 1.36 a suffixed group
    without resources is a placeholder for ``same_subtree`` and must
    appear in one (an unsuffixed one may be any provider of the tree);
    the errors have their specific codes from then on.
    """
    resourceless = microversion.at_least(req, _RESOURCELESS)
    if not any(group.resources for group in groups):
        raise _bad('At least one request group (`resources` or '
                   '`resources{$S}`) is required.',
                   errors.QUERYPARAM_MISSING_VALUE if resourceless else None)
    if not resourceless:
        orphans = [group.suffix or '(unsuffixed)' for group in groups
                   if not group.resources]
        if orphans:
            raise _bad(f'All request groups must specify resources. Groups '
                       f'without resources: {", ".join(orphans)}.')
        return
    in_subtree = set().union(*same_subtree)
    orphans = [group.suffix for group in groups
               if group.suffix and not group.resources
               and group.suffix not in in_subtree]
    if orphans:
        raise _bad(
            f'All resourceless suffixed request groups must be specified '
            f'in a `same_subtree` query param: invalid resourceless '
            f'request groups: {", ".join(orphans)}.',
            errors.QUERYPARAM_BAD_VALUE)


def parse_request(req):
    """The :class:`CandidateRequest` of the query string; else 400."""
    params = _query(req)
    groups = _groups(req, params)
    same_subtree = _same_subtree(params, groups)
    _check_resources(req, groups, same_subtree)
    root_required, root_forbidden = _root_required(req, params)
    return candidate_request.CandidateRequest(
        groups=groups,
        group_policy=_group_policy(params, groups),
        limit=_limit(params),
        root_required=root_required,
        root_forbidden=root_forbidden,
        same_subtree=same_subtree,
        nested=microversion.at_least(req, _NESTED),
        mappings=microversion.at_least(req, _MAPPINGS),
    )


def _allocation_requests(req, candidates):
    """The allocation requests: a list each before 1.12, a dict from then
    on, with the group mappings from 1.34 (versions checked once)."""
    if not microversion.at_least(req, _DICT_ALLOCATIONS):
        return [{'allocations': [
            {'resource_provider': {'uuid': uuid}, 'resources': resources}
            for uuid, resources in candidate.allocations.items()]}
            for candidate in candidates]
    requests = [{'allocations': {
        uuid: {'resources': resources}
        for uuid, resources in candidate.allocations.items()}}
        for candidate in candidates]
    if microversion.at_least(req, _MAPPINGS):
        for data, candidate in zip(requests, candidates, strict=True):
            data['mappings'] = candidate.mappings
    return requests


def _summary(summary, classes, traits, nested):
    """A provider summary; ``classes`` narrows its resources (pre-1.27),
    ``traits`` (1.17) and ``nested`` (1.29) add fields."""
    data = {'resources': {
        name: {'capacity': capacity, 'used': used}
        for name, (capacity, used) in summary.resources.items()
        if classes is None or name in classes}}
    if traits:
        data['traits'] = list(summary.traits)
    if nested:
        data['parent_provider_uuid'] = summary.parent_provider_uuid
        data['root_provider_uuid'] = summary.root_provider_uuid
    return data


def _summaries(req, request, found, candidates):
    """Summaries of the providers to show at the request's microversion.

    From 1.29 every provider of the involved trees; before, only those
    allocated from. Before 1.27 only the requested classes are shown.
    """
    summaries = found.summaries
    nested = microversion.at_least(req, _NESTED)
    if not nested:
        used = {uuid for candidate in candidates
                for uuid in candidate.allocations}
        summaries = {uuid: summary for uuid, summary in summaries.items()
                     if uuid in used}
    classes = None
    if not microversion.at_least(req, _ALL_INVENTORIES):
        classes = {name for group in request.groups
                   for name in group.resources}
    traits = microversion.at_least(req, _TRAITS)
    return {uuid: _summary(summary, classes, traits, nested)
            for uuid, summary in summaries.items()}


def render(req, request, found):
    """The response body for :class:`Candidates` ``found``."""
    candidates = found.candidates
    return {
        'allocation_requests': _allocation_requests(req, candidates),
        'provider_summaries': _summaries(req, request, found, candidates),
    }


@wsgi_wrapper.PlacementWsgify
def list_allocation_candidates(req):
    context = req.environ['placement.context']
    request = parse_request(req)
    found = context.db.read(candidate_obj.get_candidates, request,
                            context.config)
    # Rendering makes as many small objects as the search: as fast
    # without the cycle collector.
    with candidate_obj.no_cycle_collection():
        body = render(req, request, found)
    return util.json_response(req, body)
