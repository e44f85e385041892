"""No request body reaches SQL it cannot run.

From each operation's body schema (the operation table), at the first
and last microversion of each body's range, a complete valid body is
built, then every degenerate form of it: each object, list and string
in it replaced by an empty one, and the body with only its required
properties. A body the schema accepts must not be answered 5xx (it may
be refused by a later check: 400, 404, 409); one it refuses must be a
400. Issue 29: ``POST /reshaper {"inventories": {}, "allocations": {}}``
reached an ``UPDATE ... CASE`` with no branches and answered 500.
"""

import copy
import json
import re

import jsonschema
import pytest

from placement import contract
from placement import microversion
from placement import operations

pytestmark = pytest.mark.db

PROVIDER = contract.EXAMPLE_PROVIDER
#: Object keys tried against a ``patternProperties`` pattern, in order:
#: a standard class, a custom one, the unsuffixed request group, a uuid.
_KEYS = ('VCPU', 'CUSTOM_GOLD', '', PROVIDER)
#: Strings tried against a ``pattern``, after the keys.
_STRINGS = (*_KEYS, 'INSTANCE', 'x')
_FORMAT_CHECKER = jsonschema.FormatChecker()


class _Generation:
    """Where the provider's current generation goes, filled at sending."""


def _string(schema):
    if schema.get('format') == 'uuid':
        return PROVIDER
    pattern = schema.get('pattern')
    return next(value for value in _STRINGS
                if (pattern is None or re.search(pattern, value))
                and len(value) >= schema.get('minLength', 1)
                and len(value) <= schema.get('maxLength', 255))


def _object(schema):
    body = {name: full(value, name)
            for name, value in schema.get('properties', {}).items()}
    for pattern, value in schema.get('patternProperties', {}).items():
        key = next(key for key in _KEYS if re.search(pattern, key))
        body[key] = full(value)
    additional = schema.get('additionalProperties')
    if isinstance(additional, dict):
        body[_string(schema.get('propertyNames', {}))] = full(additional)
    return body


def full(schema, name=None):
    """A valid instance of ``schema`` with every optional part present."""
    if 'anyOf' in schema:
        return full(schema['anyOf'][0], name)
    kind = schema['type']
    if isinstance(kind, list):
        # A nullable value: null (a new consumer, an ignored generation).
        return None
    if kind == 'object':
        return _object(schema)
    if kind == 'array':
        return [full(schema['items'])]
    if kind == 'string':
        return _string(schema)
    if name == 'resource_provider_generation':
        return _Generation()
    return max(schema.get('minimum', 1), 1)


def _required_only(schema, value):
    """``value`` with, at every level, only the required properties."""
    if not isinstance(value, dict) or schema.get('type') != 'object':
        return value
    required = schema.get('required', ())
    properties = schema.get('properties', {})
    return {key: _required_only(properties.get(key, {}), item)
            for key, item in value.items()
            if key in required or key not in properties}


def _paths(value, path=()):
    """The path of every object, list and string in ``value``."""
    if isinstance(value, (dict, list, str)):
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _emptied(value, path):
    """``value`` with what is at ``path`` replaced by its empty kind."""
    if not path:
        return type(value)()
    value = copy.copy(value)
    value[path[0]] = _emptied(value[path[0]], path[1:])
    return value


def _empties(value):
    return [('empty at /' + '/'.join(map(str, path)), _emptied(value, path))
            for path in _paths(value)]


def _all_empties(validator, value):
    """``value`` with every part emptied that the schema lets be empty,
    outermost first."""
    for path in _paths(value):
        try:
            emptied = _emptied(value, path)
        except (KeyError, IndexError):  # inside a part already emptied
            continue
        if validator.is_valid(_with_generation(emptied, 0)):
            value = emptied
    return value


def degenerate_bodies(schema):
    """``[(description, body)]``: the complete body and its degenerate
    forms, without repeats."""
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=_FORMAT_CHECKER)
    complete = full(schema)
    minimal = _required_only(schema, complete)
    bodies = [('complete', complete), ('required only', minimal),
              *_empties(complete),
              *[(f'required only, {description}', body)
                for description, body in _empties(minimal)],
              ('every allowed empty', _all_empties(validator, complete))]
    seen, unique = set(), []
    for description, body in bodies:
        key = repr(body)
        if key not in seen:
            seen.add(key)
            unique.append((description, body))
    return unique


def _cases():
    for operation in operations.OPERATIONS:
        for body in operation.bodies:
            first = max(body.versions.first, operation.versions.first)
            last = min(body.versions.last or microversion.MAX_VERSION,
                       operation.versions.last or microversion.MAX_VERSION)
            for version in sorted({first, last}):
                yield pytest.param(
                    operation, version, body.schema,
                    id=f'{operation.method} {operation.path} {version}')


def _url(operation):
    url = operation.path
    for name, (_doc, _schema, example) in contract.PATH_PARAMETERS.items():
        url = url.replace(f'{{{name}}}', example)
    return url


def _with_generation(value, generation):
    if isinstance(value, _Generation):
        return generation
    if isinstance(value, dict):
        return {key: _with_generation(item, generation)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_with_generation(item, generation) for item in value]
    return value


def _generation(api):
    response = api.request('GET', f'/resource_providers/{PROVIDER}')
    return response.json['generation']


@pytest.fixture
def world(api):
    """The provider and classes the bodies name, with an allocation."""
    assert api.request('POST', '/resource_providers', body={
        'name': 'example', 'uuid': PROVIDER}).status_int == 200
    assert api.request(
        'PUT', '/resource_classes/CUSTOM_GOLD').status_int == 201
    assert api.request(
        'PUT', f'/resource_providers/{PROVIDER}/inventories', body={
            'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 8},
                            'CUSTOM_GOLD': {'total': 4}}},
    ).status_int == 200
    assert api.request(
        'PUT', f'/allocations/{contract.EXAMPLE_CONSUMER}', body={
            'allocations': {PROVIDER: {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'}).status_int == 204
    return api


def test_the_reshape_of_issue_29_is_refused_with_upstreams_message(api):
    response = api.send('POST', '/reshaper', {
        'x-auth-token': 'admin', 'x-roles': 'service',
        'content-type': 'application/json',
        'openstack-api-version': 'placement 1.30'},
        b'{"inventories": {}, "allocations": {}}')
    assert response.status_int == 400, response.text
    assert ('JSON does not validate: {} should be non-empty'
            in response.json['errors'][0]['detail'])


@pytest.mark.parametrize('operation, version, schema', list(_cases()))
def test_degenerate_bodies_are_never_5xx(world, operation, version, schema):
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=_FORMAT_CHECKER)
    wrong = []
    for description, body in degenerate_bodies(schema):
        body = _with_generation(body, _generation(world))
        response = world.send(
            operation.method, _url(operation), {
                'x-auth-token': 'admin', 'x-roles': 'admin,service',
                'content-type': 'application/json',
                'accept': 'application/json',
                'openstack-api-version': f'placement {version}'},
            json.dumps(body).encode())
        valid = validator.is_valid(body)
        if response.status_int >= 500 or (
                not valid and response.status_int != 400):
            wrong.append((description, valid, body, response.status,
                          response.text[:300]))
    assert not wrong, wrong
