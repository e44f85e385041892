"""Handler of GET /allocation_candidates: ask, render.

The validated query string becomes a :class:`CandidateRequest`
(:func:`placement.provider_query.candidate_request`); the
object layer answers it with :class:`Candidates`, which are rendered for
the request's microversion.
"""

from placement import microversion
from placement import provider_query
from placement import query
from placement import util
from placement.metrics import candidates as candidate_metrics
from placement.objects import allocation_candidate as candidate_obj

_DICT_ALLOCATIONS = microversion.DICT_ALLOCATIONS
_TRAITS = microversion.CANDIDATES_TRAITS
_ALL_INVENTORIES = microversion.ALL_INVENTORIES
_NESTED = microversion.NESTED_CANDIDATES
_MAPPINGS = microversion.MAPPINGS


def _allocation_requests(req, candidates):
    """The allocation requests, one at a time: a list each before 1.12,
    a dict from then on, with the group mappings from 1.34 (versions
    checked once)."""
    if not microversion.at_least(req, _DICT_ALLOCATIONS):
        return ({'allocations': [
            {'resource_provider': {'uuid': uuid}, 'resources': resources}
            for uuid, resources in candidate.allocations.items()]}
            for candidate in candidates)
    if microversion.at_least(req, _MAPPINGS):
        return ({'allocations': {
            uuid: {'resources': resources}
            for uuid, resources in candidate.allocations.items()},
            'mappings': candidate.mappings}
            for candidate in candidates)
    return ({'allocations': {
        uuid: {'resources': resources}
        for uuid, resources in candidate.allocations.items()}}
        for candidate in candidates)


def _summary(provider, classes, traits, nested):
    """The summary of a :class:`~placement.objects.candidate_tree.Provider`;
    ``classes`` narrows its resources (pre-1.27), ``traits`` (1.17) and
    ``nested`` (1.29) add fields."""
    data = {'resources': {
        name: {'capacity': inventory[0], 'used': inventory[1]}
        for name, inventory in provider.inventories.items()
        if classes is None or name in classes}}
    if traits:
        data['traits'] = list(provider.traits)
    if nested:
        data['parent_provider_uuid'] = provider.parent_uuid
        data['root_provider_uuid'] = provider.root_uuid
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
    return ((uuid, _summary(summary, classes, traits, nested))
            for uuid, summary in summaries.items())


def render(req, request, found):
    """The response body for :class:`Candidates` ``found``, its parts
    made as they are serialised (a part is as large as the answer)."""
    candidates = found.candidates
    return {
        'allocation_requests': util.JsonArray(
            _allocation_requests(req, candidates)),
        'provider_summaries': util.JsonObject(
            _summaries(req, request, found, candidates)),
    }


def list_allocation_candidates(req):
    context = req.environ['placement.context']
    request = provider_query.candidate_request(microversion.of(req),
                                               query.of(req))
    with provider_query.resources_named_known():
        found = context.db.read(candidate_obj.get_candidates, request,
                                context.config)
    candidate_metrics.answered(len(request.groups), found)
    return util.Result(render(req, request, found))
