"""The query string of a request, validated in one pass as upstream does.

The router calls :func:`parse` once, with the routed
:class:`~placement.contract.Operation`, after the request checks of
:mod:`placement.request_checks` and before the handler, which reads the
result with :func:`of`. The query parameters of an operation
(:class:`~placement.contract.QueryParam`) make one JSON schema per
microversion range (an object of string properties,
``patternProperties`` for suffixed group parameters,
``additionalProperties: false``), compiled once. As upstream, the
schema validates ``dict(req.GET)`` (the last value of a repeated
parameter) and a failure is 400 ``Invalid query string parameters: ``
and jsonschema's own text, which clients match. The other values of a
repetition that count are validated too (with the same schema, so with
the same messages): the first where the first counts (``limit``,
``group_policy``, which upstream uses unchecked), every one of a
repeatable parameter; those that do not count are not looked at, as
upstream. A repeated parameter that may be given once only is 400
``placement.query.duplicate_key``.

What the values mean (resource amounts, traits, aggregates...) is
checked by the parsers of :mod:`placement.provider_query` and of the
handlers, which keep their own messages.
"""

import dataclasses
import re

import jsonschema
import webob.exc

from placement import client_text
from placement import contract
from placement import errors
from placement import microversion
from placement.schemas import formats

ENVIRON = 'placement.query'
_PREFIX = 'Invalid query string parameters: '
_FORMAT_CHECKER = formats.checker(whitespace_around=True)


@dataclasses.dataclass(frozen=True)
class _Compiled:
    """The query parameters of an operation over a microversion range."""
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


def _active(operation, version):
    return [param for param in operation.query if version in param.versions]


def _patterns(operation, version):
    """``(regex source, QueryParam)`` of the suffixed group parameters."""
    return [(f'^{param.name}{suffix}$', param)
            for param in _active(operation, version)
            for versions, suffix in param.suffixes if version in versions]


def schema(operation, version):
    """The JSON schema of ``operation``'s query string at ``version``."""
    params = _active(operation, version)
    properties = {param.name: param.schema for param in params}
    patterns = {source: param.schema
                for source, param in _patterns(operation, version)}
    required = [param.name for param in params if param.required]
    result = {'type': 'object', 'properties': properties}
    if patterns:
        result['patternProperties'] = patterns
    if required:
        result['required'] = required
    result['additionalProperties'] = False
    return result


def _compile(operation, version):
    query_schema = schema(operation, version)
    lenient = {key: value for key, value in query_schema.items()
               if key != 'required'}
    params = _active(operation, version)
    by_pattern = tuple((re.compile(source), param)
                       for source, param in _patterns(operation, version))
    return _Compiled(
        last=jsonschema.Draft202012Validator(
            query_schema, format_checker=_FORMAT_CHECKER),
        others=jsonschema.Draft202012Validator(
            lenient, format_checker=_FORMAT_CHECKER),
        by_name={param.name: param for param in params},
        by_pattern=by_pattern)


def _boundaries(operation):
    """The minors at which the query schema of ``operation`` changes."""
    ranges = [param.versions for param in operation.query]
    ranges += [versions for param in operation.query
               for versions, _suffix in param.suffixes]
    minors = {operation.versions.first.minor}
    for versions in ranges:
        minors.add(versions.first.minor)
        if versions.last is not None:
            minors.add(versions.last.minor + 1)
    return sorted(minors)


#: ``{(method, path): [(first minor of a range, _Compiled), ...]}``,
#: filled on the first request of each operation.
_CACHE = {}


def _compiled(operation, version):
    """The :class:`_Compiled` of ``operation`` at ``version``; each
    microversion range's is built once."""
    key = (operation.method, operation.path)
    ranges = _CACHE.get(key)
    if ranges is None:
        ranges = [(minor, _compile(operation, microversion.v1(minor)))
                  for minor in _boundaries(operation)]
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
    raise webob.exc.HTTPBadRequest(
        f'{_PREFIX}{client_text.validation_detail(error)}', comment=code)


def _values(req):
    """``{name: [values in order]}`` of the query string."""
    try:
        items = list(req.GET.items())
    except UnicodeDecodeError as exc:
        raise webob.exc.HTTPBadRequest(f'{_PREFIX}{exc}')
    values = {}
    for name, value in items:
        values.setdefault(name, []).append(value)
    return values


def _check_storable(compiled, values):
    """400 for a value no backend stores (a NUL), with the code of its
    parameter; what the schema refuses has been refused already."""
    for name, given in values.items():
        for value in given:
            problem = client_text.unstorable(value)
            if problem is not None:
                raise webob.exc.HTTPBadRequest(
                    f'{_PREFIX}{client_text.clip(repr(name))}: {problem}.',
                    comment=compiled.param(name).code)


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


def parse(operation, req):
    """The validated query string of ``req`` for routed ``operation``,
    as :class:`Params`; else 400.

    An operation without query parameters ignores its query string, as
    upstream does.
    """
    if not operation.query:
        return Params()
    version = microversion.of(req)
    compiled = _compiled(operation, version)
    values = _values(req)
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
            raise webob.exc.HTTPBadRequest(
                f'Query parameter {name!r} may be specified only once.',
                comment=errors.ILLEGAL_DUPLICATE_QUERYPARAM)
        else:
            params[name] = (given[0] if param.repeated == contract.FIRST
                            else given[-1])
    _check_others(compiled, values)
    _check_storable(compiled, values)
    return Params(params, values, groups)


def _check_names(compiled, values):
    """What the schema misses: its patterns' ``$`` (upstream's) also
    matches before a final newline; a name must match to its end."""
    regexes = [regex for regex, _param in compiled.by_pattern]
    for name in values:
        if name not in compiled.by_name and not any(
                regex.fullmatch(name) for regex in regexes):
            sources = ', '.join(repr(regex.pattern) for regex in regexes)
            raise webob.exc.HTTPBadRequest(
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


def of(req):
    """The query parameters :func:`parse` made of ``req``."""
    return req.environ[ENVIRON]
