"""The explain report: why a GET /allocation_candidates query finds what
it finds, in numbers and in words.

The numbers come from :func:`placement.objects.explain.explain`; here
they become the document, each miss with a sentence an operator reads
("compute-17: VCPU 4 asked, 2 free of 64").
"""

from placement.objects import explain as explain_obj

#: Misses shown when ``max_misses`` is not given.
MAX_MISSES = 10

COUNTED = (
    'Each slot of the request (one per resource class of the unsuffixed '
    'group, whose classes may come from different providers; one per '
    'suffixed group) counts providers: those with inventory of its '
    'classes, then those passing each further condition in turn. The '
    'unsuffixed group\'s required traits are met by its providers '
    'together, so the request\'s funnel counts them, on trees: those every '
    'slot reaches (through their own providers or a sharing provider), '
    'then those meeting each further rule. "candidates" is the number '
    'GET /allocation_candidates returns for the query without a limit. '
    'A miss fails exactly one condition. An amount no inventory could '
    'hold even unallocated ("impossible") leaves no candidate: only the '
    'slots asking such an amount are then counted, the stages of the '
    'others listed as "uncounted", and no tree is searched.')

_STAGE_WORDS = {
    explain_obj.REQUIRED_TOGETHER: 'its providers lack the required traits '
                                   'together',
    explain_obj.ROOT_REQUIRED: 'its root does not meet root_required',
    explain_obj.COMBINED: 'the amounts asked do not fit its providers '
                          'together',
    explain_obj.SAME_SUBTREE: 'no choice of its providers meets '
                              'same_subtree',
    explain_obj.ISOLATE: 'no choice of its providers meets '
                         'group_policy=isolate',
}


def _group_name(suffix):
    return f'group {suffix!r}' if suffix else 'the unsuffixed group'


def _capacity_words(details):
    words = (f"{details['subject']} {details['asked']} asked, "
             f"{details['free']} free of {details['capacity']}")
    if details['over_capacity']:
        words += f", over capacity by {details['over_capacity']}"
    units = [f'{name} {details[name]}'
             for name, usual in (('min_unit', 1), ('step_size', 1))
             if details[name] != usual]
    if details['max_unit'] < details['capacity']:
        units.append(f"max_unit {details['max_unit']}")
    return words + (f" ({', '.join(units)})" if units else '')


def sentence(miss):
    """The miss in words, after the provider's name."""
    kind, details = miss.kind, miss.details
    subject = details.get('subject')
    if kind == explain_obj.CAPACITY:
        words = _capacity_words(details)
    elif kind == explain_obj.INVENTORY:
        words = f'no inventory of {subject}'
    elif kind == explain_obj.REQUIRED:
        words = (f'lacks trait {subject[0]}' if len(subject) == 1 else
                 f"lacks every trait of {', '.join(subject)}")
    elif kind == explain_obj.FORBIDDEN:
        words = f'has forbidden trait {subject}'
    elif kind == explain_obj.MEMBER_OF:
        words = (f'not in aggregate {subject[0]}' if len(subject) == 1 else
                 f"in none of aggregates {', '.join(subject)}")
    elif kind == explain_obj.FORBIDDEN_AGGREGATE:
        words = f'in forbidden aggregate {subject}'
    elif kind == explain_obj.IN_TREE:
        words = f'not in the tree of {subject}'
    elif kind == explain_obj.GROUPS:
        asked = ','.join(f'{name}:{amount}' for name, amount
                         in details['resources'].items())
        words = (f'tree has no provider for {_group_name(subject)}'
                 + (f' ({asked})' if asked else ''))
    elif kind == explain_obj.REQUIRED_TOGETHER:
        words = 'tree lacks trait ' + ' and '.join(
            ' or '.join(names) for names in subject)
    elif kind == explain_obj.COMBINED and not details['own_providers']:
        words = ('tree: none of its own providers serves the request (the '
                 'sharing providers that do are candidates of their own '
                 'trees)')
    else:
        words = f'tree: {_STAGE_WORDS[kind]}'
    if miss.group is not None and kind != explain_obj.GROUPS:
        words += f' ({_group_name(miss.group)})'
    return f'{miss.name}: {words}'


def _impossible_sentence(impossible):
    """Why no inventory could hold the amount of ``impossible``."""
    name = impossible.resource_class
    words = (f'{name} {impossible.amount} asked, which no inventory of '
             f'{name} could hold even unallocated (inventories: '
             f'{impossible.providers})' if impossible.providers
             else f'no provider has inventory of {name}')
    return f'{words} ({_group_name(impossible.group)})'


def _impossible(impossible):
    return {'group': impossible.group,
            'resource_class': impossible.resource_class,
            'amount': impossible.amount,
            'providers': impossible.providers,
            'sentence': _impossible_sentence(impossible)}


def _miss(miss):
    return {'provider': {'uuid': miss.uuid, 'name': miss.name},
            'group': miss.group, 'kind': miss.kind,
            'details': miss.details, 'sentence': sentence(miss)}


def _funnel(stages):
    return [{'stage': stage.name, 'count': stage.count} for stage in stages]


def report(conn, request, max_misses):
    """``{"explain": {...}}`` of :class:`CandidateRequest` ``request``."""
    found = explain_obj.explain(conn, request, max_misses)
    return {'explain': {
        'candidates': found.candidates,
        'trees': found.trees,
        'funnel': _funnel(found.funnel),
        'via_sharing': found.via_sharing,
        'groups': [{'suffix': slot.suffix, 'resources': slot.resources,
                    'considered': slot.considered,
                    'funnel': _funnel(slot.funnel),
                    'uncounted': list(slot.uncounted)}
                   for slot in found.slots],
        'impossible': [_impossible(amount) for amount in found.impossible],
        'misses': [_miss(miss) for miss in found.misses],
        'counted': COUNTED,
    }}


_INTEGER = {'type': 'integer', 'minimum': 0}
_FUNNEL = {'type': 'array', 'items': {
    'type': 'object', 'required': ['stage', 'count'],
    'additionalProperties': False,
    'properties': {'stage': {'type': 'string'}, 'count': _INTEGER}}}
_RESOURCES = {'type': 'object', 'additionalProperties': _INTEGER}


def _list_of(properties):
    """Schema: an array of objects of exactly (and all) ``properties``."""
    return {'type': 'array', 'items': {
        'type': 'object', 'required': list(properties),
        'additionalProperties': False, 'properties': properties}}


_STRING = {'type': 'string'}
_STRINGS = {'type': 'array', 'items': _STRING}


def _details(subject, **more):
    """Schema: a miss's details, ``subject`` and ``more``."""
    properties = {'subject': subject, **more}
    return {'type': 'object', 'required': list(properties),
            'additionalProperties': False, 'properties': properties}


#: The schema of a miss's details by its kind.
_DETAILS = {
    explain_obj.INVENTORY: _details(_STRING),
    explain_obj.CAPACITY: _details(
        _STRING, asked=_INTEGER, capacity=_INTEGER, used=_INTEGER,
        free=_INTEGER, over_capacity=_INTEGER, min_unit=_INTEGER,
        max_unit=_INTEGER, step_size=_INTEGER),
    explain_obj.REQUIRED: _details(_STRINGS),
    explain_obj.FORBIDDEN: _details(_STRING),
    explain_obj.MEMBER_OF: _details(_STRINGS),
    explain_obj.FORBIDDEN_AGGREGATE: _details(_STRING),
    explain_obj.IN_TREE: _details(_STRING),
    explain_obj.GROUPS: _details(_STRING, resources=_RESOURCES),
    # The assembly rules name no subject (their order kept).
    **{kind: _details({'type': 'null'}) for kind in _STAGE_WORDS},
    explain_obj.REQUIRED_TOGETHER: _details(
        {'type': 'array', 'items': _STRINGS}),
    explain_obj.COMBINED: _details({'type': 'null'},
                                   own_providers={'type': 'boolean'}),
}

_MISSES = _list_of({
    'provider': {
        'type': 'object',
        'required': ['uuid', 'name'],
        'properties': {'uuid': _STRING, 'name': _STRING}},
    'group': {'type': ['string', 'null']},
    'kind': {'type': 'string', 'enum': list(_DETAILS)},
    'details': {'type': 'object'},
    'sentence': _STRING})
_MISSES['items']['oneOf'] = [
    {'properties': {'kind': {'const': kind}, 'details': details}}
    for kind, details in _DETAILS.items()]

#: The response schema (the OpenAPI document and the contract test).
SCHEMA = {'type': 'object', 'required': ['explain'],
          'additionalProperties': False, 'properties': {'explain': {
              'type': 'object',
              'required': ['candidates', 'trees', 'funnel', 'via_sharing',
                           'groups', 'impossible', 'misses', 'counted'],
              'additionalProperties': False,
              'properties': {
                  'candidates': _INTEGER,
                  'trees': _INTEGER,
                  'funnel': _FUNNEL,
                  'via_sharing': _INTEGER,
                  'groups': _list_of({
                      'suffix': {'type': 'string'},
                      'resources': _RESOURCES,
                      'considered': {'type': ['integer', 'null'],
                                     'minimum': 0},
                      'funnel': _FUNNEL,
                      'uncounted': {'type': 'array',
                                    'items': {'type': 'string'}}}),
                  'impossible': _list_of({
                      'group': {'type': 'string'},
                      'resource_class': {'type': 'string'},
                      'amount': _INTEGER,
                      'providers': _INTEGER,
                      'sentence': {'type': 'string'}}),
                  'misses': _MISSES,
                  'counted': {'type': 'string'},
              }}}}
