"""A query string validated in one pass as upstream does, against
declared parameters (:class:`~placement.contract.QueryParam`) at a
microversion: below the handlers, knowing no HTTP. Over HTTP
:func:`placement.query.parse` reads the routed operation's query with
it; ``placement-manage report`` reads a report's query string with it
(:func:`parse_query_string`), so both refuse the same values in the
same words.

The parameters make one JSON schema per microversion range (an object
of string properties, ``patternProperties`` for suffixed group
parameters, ``additionalProperties: false``), compiled once. As
upstream, the schema validates the last value of each parameter, and a
failure is :class:`~placement.exception.InvalidQuery` (a 400)
``Invalid query string parameters: `` and jsonschema's own text, which
clients match. The other values of a repetition that count are
validated too (with the same schema, so with the same messages): the
first where the first counts (``limit``, ``group_policy``, which
upstream uses unchecked), every one of a repeatable parameter; those
that do not count are not looked at, as upstream. A repeated parameter
that may be given once only is ``placement.query.duplicate_key``.

What the values mean (resource amounts, traits, aggregates...) is
checked by the parsers of :mod:`placement.provider_query` and of the
handlers, which keep their own messages.
"""

import dataclasses
import re
import urllib.parse

import jsonschema

from placement import client_text
from placement import contract
from placement import errors
from placement import exception
from placement import microversion
from placement.schemas import formats

_PREFIX = 'Invalid query string parameters: '
_FORMAT_CHECKER = formats.checker(whitespace_around=True)


@dataclasses.dataclass(frozen=True)
class _Compiled:
    """Declared query parameters over a microversion range."""
    #: Validates the last values; the same without ``required`` the others.
    last: jsonschema.protocols.Validator
    others: jsonschema.protocols.Validator
    by_name: dict
    #: ``(regex, QueryParam)`` of the suffixed group parameters.
    by_pattern: tuple

    def param(self, name):
        """The :class:`QueryParam` of parameter ``name`` (one valid)."""
        found = self.by_name.get(name)
        if found is None:
            found = next(param for regex, param in self.by_pattern
                         if regex.search(name))
        return found


def _active(declared, version):
    return [param for param in declared if version in param.versions]


def _patterns(declared, version):
    """``(regex source, QueryParam)`` of the suffixed group parameters."""
    return [(f'^{param.name}{suffix}$', param)
            for param in _active(declared, version)
            for versions, suffix in param.suffixes if version in versions]


def schema(declared, version):
    """The JSON schema of a query string of parameters ``declared`` (a
    tuple of :class:`~placement.contract.QueryParam`) at ``version``."""
    params = _active(declared, version)
    properties = {param.name: param.schema for param in params}
    patterns = {source: param.schema
                for source, param in _patterns(declared, version)}
    required = [param.name for param in params if param.required]
    result = {'type': 'object', 'properties': properties}
    if patterns:
        result['patternProperties'] = patterns
    if required:
        result['required'] = required
    result['additionalProperties'] = False
    return result


def _compile(declared, version):
    query_schema = schema(declared, version)
    lenient = {key: value for key, value in query_schema.items()
               if key != 'required'}
    params = _active(declared, version)
    by_pattern = tuple((re.compile(source), param)
                       for source, param in _patterns(declared, version))
    return _Compiled(
        last=jsonschema.Draft202012Validator(
            query_schema, format_checker=_FORMAT_CHECKER),
        others=jsonschema.Draft202012Validator(
            lenient, format_checker=_FORMAT_CHECKER),
        by_name={param.name: param for param in params},
        by_pattern=by_pattern)


def _boundaries(declared):
    """The minors at which the query schema of ``declared`` changes."""
    ranges = [param.versions for param in declared]
    ranges += [versions for param in declared
               for versions, _suffix in param.suffixes]
    minors = {microversion.BASE.minor}
    for versions in ranges:
        minors.add(versions.first.minor)
        if versions.last is not None:
            minors.add(versions.last.minor + 1)
    return sorted(minors)


#: ``{key: [(first minor of a range, _Compiled), ...]}``, filled on the
#: first query read under each key.
_CACHE = {}


def _compiled(declared, version, key):
    """The :class:`_Compiled` of ``declared`` at ``version``; each
    microversion range's is built once per ``key`` (None: not kept)."""
    ranges = _CACHE.get(key)
    if ranges is None:
        ranges = [(minor, _compile(declared, microversion.v1(minor)))
                  for minor in _boundaries(declared)]
        if key is not None:
            _CACHE[key] = ranges
    return next(compiled for minor, compiled in reversed(ranges)
                if minor <= version.minor)


def _check(validator, instance, compiled):
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is None:
        return
    if error.validator == 'required':
        code = errors.QUERYPARAM_MISSING_VALUE
    elif error.path and error.validator != 'additionalProperties':
        code = compiled.param(error.path[0]).code
    else:
        code = errors.DEFAULT
    raise exception.InvalidQuery(
        f'{_PREFIX}{client_text.validation_detail(error)}', code)


def decoded(items):
    """``{name: [values in order]}`` of the ``(name, value)`` pairs of a
    query string, decoded as they are read; a bad escape is
    :class:`~placement.exception.InvalidQuery`."""
    values = {}
    try:
        for name, value in items:
            values.setdefault(name, []).append(value)
    except UnicodeDecodeError as exc:
        raise exception.InvalidQuery(f'{_PREFIX}{exc}')
    return values


def _check_storable(compiled, values):
    """400 for a value no backend stores (a NUL), with the code of its
    parameter; what the schema refuses has been refused already."""
    for name, given in values.items():
        for value in given:
            problem = client_text.unstorable(value)
            if problem is not None:
                raise exception.InvalidQuery(
                    f'{_PREFIX}{client_text.clip(repr(name))}: {problem}.',
                    compiled.param(name).code)


class Params(dict):
    """``{name: value}``, for a parameter with ``repeatable_since`` the
    list of the values that count; :meth:`every` also has the values
    that do not count, for the parsers that check what each means."""

    def __init__(self, params=(), given=None, groups=()):
        super().__init__(params)
        self._given = given or {}
        self._groups = frozenset(groups)

    def every(self, name):
        """Every value of parameter ``name``, in order."""
        return self._given.get(name, [])

    def groups(self):
        """The suffixes of the request groups named (``''`` for the
        unsuffixed one): of the parameters declared with ``suffixes``."""
        return self._groups


def _counted(param, given, version):
    """The values of a repetition that count at ``version``, per the
    operation table: every one from ``repeatable_since``, else the one
    ``repeated`` says (``ONCE``: all, refused by the parameter's own
    parser in its own words)."""
    if version >= param.repeatable_since or param.repeated == contract.ONCE:
        return given
    return given[:1] if param.repeated == contract.FIRST else given[-1:]


def parse(declared, version, items, key=None):
    """The query string of ``(name, value)`` pairs ``items`` validated
    against parameters ``declared`` at ``version``, as :class:`Params`;
    else :class:`~placement.exception.InvalidQuery`. ``key`` names
    ``declared`` for the cache of compiled schemas (an operation's
    method and path).

    Without parameters, the query string is ignored, as upstream does.
    """
    if not declared:
        return Params()
    compiled = _compiled(declared, version, key)
    values = decoded(items)
    _check(compiled.last, {name: given[-1] for name, given in values.items()},
           compiled)
    _check_names(compiled, values)
    params, groups = {}, set()
    for name, given in values.items():
        param = compiled.param(name)
        if param.suffixes:
            groups.add(name[len(param.name):])
        if param.repeatable_since is not None:
            params[name] = _counted(param, given, version)
        elif len(given) > 1 and param.repeated == contract.ONCE:
            raise exception.InvalidQuery(
                f'Query parameter {name!r} may be specified only once.',
                errors.ILLEGAL_DUPLICATE_QUERYPARAM)
        else:
            params[name] = (given[0] if param.repeated == contract.FIRST
                            else given[-1])
    _check_others(compiled, values)
    _check_storable(compiled, values)
    return Params(params, values, groups)


def parse_query_string(declared, version, query_string):
    """:func:`parse` of a query string as typed (``a=1&b=2``), its
    escapes decoded as UTF-8."""
    return parse(declared, version, _pairs(query_string))


def _pairs(query_string):
    """The pairs of ``query_string``, decoded as they are read (so that
    a bad escape is refused by :func:`parse`, in its words)."""
    yield from urllib.parse.parse_qsl(
        query_string, keep_blank_values=True, errors='strict')


def _check_names(compiled, values):
    """What the schema misses: its patterns' ``$`` (upstream's) also
    matches before a final newline; a name must match to its end."""
    regexes = [regex for regex, _param in compiled.by_pattern]
    for name in values:
        if name not in compiled.by_name and not any(
                regex.fullmatch(name) for regex in regexes):
            sources = ', '.join(repr(regex.pattern) for regex in regexes)
            raise exception.InvalidQuery(
                f'{_PREFIX}{name!r} does not match any of the regexes: '
                f'{sources}')


def _counted_before_last(param, given):
    """The values of a repetition, other than the last, that count: all
    of a repeatable parameter's, the first where the first counts. Those
    that do not count are not looked at (upstream's rule: it validates
    the values it uses)."""
    if param.repeatable_since is not None:
        return given[:-1]
    if param.repeated == contract.FIRST:
        return given[:1]
    return []


def _check_others(compiled, values):
    """Validate the values of repetitions that count besides the last,
    each distinct one once, one layer of ``{name: value}`` at a time
    (the latest first): the work grows with the values, not names x
    values."""
    pending = {}
    for name, given in values.items():
        counted = _counted_before_last(compiled.param(name), given)
        others = [value for value in dict.fromkeys(reversed(counted))
                  if value != given[-1]]
        if others:
            pending[name] = others
    depth = 0
    while pending:
        _check(compiled.others,
               {name: others[depth] for name, others in pending.items()},
               compiled)
        depth += 1
        pending = {name: others for name, others in pending.items()
                   if len(others) > depth}
