"""Handler of GET /allocation_candidates: ask, render.

The validated query string becomes a :class:`CandidateRequest`
(:func:`placement.provider_query.candidate_request`); the
object layer answers it with a :class:`~candidate_obj.Found`, rendered
for the request's microversion as it is sent: the allocation requests
as the candidates are made, then the summaries of the providers they
involve.
"""

import orjson

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
    a dict from then on (as :class:`_RequestJson`), with the group
    mappings from 1.34 (versions checked once)."""
    if not microversion.at_least(req, _DICT_ALLOCATIONS):
        return ({'allocations': [
            {'resource_provider': {'uuid': uuid}, 'resources': resources}
            for uuid, resources in candidate.allocations.items()]}
            for candidate in candidates)
    return map(_RequestJson(microversion.at_least(req, _MAPPINGS)),
               candidates)


class _RequestJson:
    """The JSON of a candidate's allocation request (from 1.12), an
    ``orjson.Fragment``: the same bytes as orjson makes of the dict
    (``{"allocations": {uuid: {"resources": {...}}}, "mappings": {...}}``)
    at about half the CPU (a tenth of that of 1,000 candidates).

    The candidates of a search share their layouts
    (:attr:`candidate_request.Candidate.layout`: which slots' providers
    get which amounts, map which groups): a layout's JSON is a template
    made once, the uuids put in. JSON escapes each character alone, so
    an escaped uuid is put in as it is; ``mappings`` lists a group's
    providers sorted, as :attr:`Candidate.mappings` does.
    """

    def __init__(self, mappings):
        self.mappings = mappings
        #: ``{id(layout): (layout, template)}``; the layout is kept, so
        #: that its id is not another's.
        self._templates = {}
        #: ``{uuid: its JSON string's content}``: a provider is in many
        #: candidates.
        self._escaped = {}

    def __call__(self, candidate):
        layout = candidate.layout
        found = self._templates.get(id(layout))
        if found is None:
            found = self._templates[id(layout)] = (
                layout, self._template(layout))
        uuids = candidate.uuids
        escaped = [self._escaped.get(uuid) or self._escape(uuid)
                   for uuid in uuids]
        values = [escaped[slot] for slot, _amounts in layout[0]]
        if self.mappings:
            values += [b'","'.join([escaped[slot] for slot in sorted(
                slots, key=uuids.__getitem__)])
                for _suffix, slots in layout[1]]
        return orjson.Fragment(found[1] % tuple(values))

    def _escape(self, uuid):
        escaped = self._escaped[uuid] = orjson.dumps(uuid)[1:-1]
        return escaped

    def _template(self, layout):
        allocations = b','.join(
            b'"%%s":{"resources":%s}' % _literal(amounts)
            for _slot, amounts in layout[0])
        template = b'{"allocations":{%s}' % allocations
        if self.mappings:
            template += b',"mappings":{%s}' % b','.join(
                b'%s:["%%s"]' % _literal(suffix)
                for suffix, _slots in layout[1])
        return template + b'}'


def _literal(value):
    """The JSON of ``value``, to be a literal part of a template."""
    return orjson.dumps(value).replace(b'%', b'%%')


def _summary(provider, classes, traits, nested, resources):
    """The summary of a :class:`~placement.objects.candidate_tree.Provider`;
    ``classes`` narrows its resources (pre-1.27), ``traits`` (1.17) and
    ``nested`` (1.29) add fields. ``resources`` (a dict) keeps the
    resources shown of each inventories object seen: the providers of
    one model and usage share theirs
    (:meth:`placement.objects.candidate_names.Names.shared`)."""
    inventories = provider.inventories
    shown = resources.get(id(inventories))
    if shown is None:
        shown = {name: {'capacity': inventory[0], 'used': inventory[1]}
                 for name, inventory in inventories.items()
                 if classes is None or name in classes}
        resources[id(inventories)] = shown
    data = {'resources': shown}
    if traits:
        data['traits'] = list(provider.traits)
    if nested:
        data['parent_provider_uuid'] = provider.parent_uuid
        data['root_provider_uuid'] = provider.root_uuid
    return data


def _summaries(req, request, found, allocated):
    """Summaries of the providers to show at the request's microversion,
    made once every allocation request is (a generator: the candidates
    decide which providers are involved).

    From 1.29 every provider of the involved trees; before, only those
    allocated from (``allocated``, filled as the requests are made).
    Before 1.27 only the requested classes are shown. The answer is
    counted in the metrics once it is all made.
    """
    summaries = found.summaries
    nested = allocated is None
    classes = None
    if not microversion.at_least(req, _ALL_INVENTORIES):
        classes = {name for group in request.groups
                   for name in group.resources}
    traits = microversion.at_least(req, _TRAITS)
    resources = {}
    for uuid, summary in summaries.items():
        if nested or uuid in allocated:
            yield uuid, _summary(summary, classes, traits, nested,
                                 resources)
    candidate_metrics.answered(len(request.groups), found)


def _allocating(candidates, allocated):
    """``candidates``, the uuids they allocate from added to
    ``allocated`` (a set) as they pass."""
    for candidate in candidates:
        allocated.update(candidate.allocations)
        yield candidate


def render(req, request, found):
    """The response body for the :class:`~candidate_obj.Found`
    ``found``, its parts made as they are serialised (the requests are
    as many as the candidates), the summaries after the requests."""
    candidates, allocated = found, None
    if not microversion.at_least(req, _NESTED):
        allocated = set()
        candidates = _allocating(found, allocated)
    return {
        'allocation_requests': util.JsonArray(
            _allocation_requests(req, candidates)),
        'provider_summaries': util.JsonObject(
            _summaries(req, request, found, allocated)),
    }


def list_allocation_candidates(req):
    context = req.environ['placement.context']
    request = provider_query.candidate_request(microversion.of(req),
                                               query.of(req))
    with provider_query.resources_named_known():
        found = context.db.read(candidate_obj.search, request,
                                context.config)
    return util.Result(render(req, request, found))
