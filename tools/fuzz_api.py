"""Fuzz the Placement API in-process with bad input.

    .venv/bin/python -m tools.fuzz_api [--seed 1] [--count 5000]
        [--db-url mysql+pymysql://root@127.0.0.1:3306] [--route TEXT]
        [--no-classes] [--verbose]

The whole WSGI stack (noauth2, as admin) runs in this process on a
throw-away database: a temporary SQLite file, or a new database on the
server ``--db-url`` names (a URL without a database name, as
``PLACEMENT_TEST_DB_URL``), dropped at exit. A small world is created
through the API: a provider tree, a sharing provider, inventories,
traits, aggregates, a custom resource class and consumers with
allocations. Then every operation of ``placement.operations.OPERATIONS``
and ``REPORTS``
gets ``--count`` requests in all, each a valid request for a random
microversion (none, each 1.x, ``latest``) with one or two mutations: of
the JSON body, the query string, a path variable, a header or the
method. Then (unless ``--no-classes``) the hostile classes sweep every
operation at the oldest and newest microversion:

- ``lone surrogate`` and ``NUL``: U+D800 (a ``\\ud800`` escape) or
  U+0000 inside each string and each key of the body, and their
  percent-encoded forms in each path variable and query parameter;
- ``huge body``: a body one byte over ``[oslo_middleware]
  max_request_body_size`` (with a Content-Length, and chunked), and one
  with a string or an array just under it;
- ``deep body``: arrays and objects nested 33, 1,000 and 100,000
  levels, as the body and inside it.

Reported, grouped by route and symptom with one repro each:

- any status >= 500 (with the logged exception);
- a 4xx whose body is not ``{"errors": [{"status", "title", "detail",
  ...}]}`` (``code`` from 1.23), unless the client refused JSON;
- a 4xx to a write that changed the database;
- a 2xx to a body that is not JSON at all, or holds unstorable text;
- an error document over 8 KiB (it repeats the input), the schemas
  that jsonschema's messages show not counted;
- a JSON response that does not parse.

The run is deterministic for a seed; any 2xx write that changed the
database resets the world. The requests sent and the 5xx answered are
printed per class (``random`` for the mutations). Exit status 1 when
something was reported.
"""

import argparse
import collections
import dataclasses
import hashlib
import io
import json
import logging
import random
import re
import sys
import time
import traceback
import urllib.parse
import uuid

import sqlalchemy as sa
import webob
import webob.acceptparse

from placement import microversion
from placement import operations
from placement import throwaway
from placement.conf import middleware
from placement.db import models
from placement.reports import declared

CUSTOM_CLASS = 'CUSTOM_FUZZ'
CUSTOM_TRAIT = 'CUSTOM_FUZZ_TRAIT'
NEW_NAME = 'CUSTOM_FUZZ_NEW'
AVX2 = 'HW_CPU_X86_AVX2'
LATEST_MINOR = microversion.parse(microversion.MAX_VERSION_STRING).minor
# Versions asked for: none (1.0), every microversion, and latest.
VERSIONS = [None, *microversion.VERSIONS, 'latest']
# The admin passes every rule but reshape, which needs the service role.
ADMIN_HEADERS = {'x-auth-token': 'admin', 'x-roles': 'service',
                 'accept': 'application/json'}
WRITE_METHODS = ('POST', 'PUT', 'PATCH', 'DELETE')
EXAMPLE_LENGTH = 400
#: An error document longer than this repeats too much of the input.
MAX_ERROR_BYTES = 8192
#: jsonschema's message shows the schema that refused the body (as
#: upstream's does), from "Failed validating ... in schema" to "On
#: instance": not the input, whatever its size (POST /reshaper's whole
#: schema, shown when the body is not an object, is 13 KB).
SCHEMA_SHOWN = re.compile(r"Failed validating '\w+' in schema.*?On instance",
                          re.S)


def random_uuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@dataclasses.dataclass(frozen=True)
class World:
    """The uuids of the fixture world; the same for a whole run."""

    root: str
    child: str
    grandchild: str
    sharing: str
    lone: str
    aggregates: tuple
    consumers: tuple
    project: str
    user: str

    @classmethod
    def new(cls, rng):
        return cls(*(random_uuid(rng) for _ in range(5)),
                   aggregates=(random_uuid(rng), random_uuid(rng)),
                   consumers=(random_uuid(rng), random_uuid(rng)),
                   project=random_uuid(rng), user=random_uuid(rng))

    @property
    def providers(self):
        return (self.root, self.child, self.grandchild, self.sharing,
                self.lone)

    @property
    def parents(self):
        return {self.child: self.root, self.grandchild: self.child}

    @property
    def inventories(self):
        return {
            self.root: {'VCPU': {'total': 8, 'allocation_ratio': 4.0},
                        'MEMORY_MB': {'total': 4096, 'reserved': 512}},
            self.child: {'VCPU': {'total': 4}},
            self.grandchild: {'SRIOV_NET_VF': {'total': 8},
                              CUSTOM_CLASS: {'total': 10, 'step_size': 2}},
            self.sharing: {'DISK_GB': {'total': 100}},
        }

    @property
    def traits(self):
        return {self.root: [AVX2, CUSTOM_TRAIT],
                self.grandchild: [CUSTOM_TRAIT],
                self.sharing: ['MISC_SHARES_VIA_AGGREGATE']}

    @property
    def provider_aggregates(self):
        first, second = self.aggregates
        return {self.root: [first], self.sharing: [first],
                self.child: [second]}

    @property
    def allocations(self):
        first, second = self.consumers
        return {
            first: ({self.root: {'VCPU': 2}, self.sharing: {'DISK_GB': 10}},
                    'INSTANCE'),
            second: ({self.grandchild: {'SRIOV_NET_VF': 1,
                                        CUSTOM_CLASS: 2}},
                     'MIGRATION'),
        }


def _must(response, what):
    if not 200 <= response.status_code < 300:
        raise RuntimeError(f'Cannot {what}: {response.status} '
                           f'{response.text}')


def build_world(api, world):
    """Create ``world`` through the API on an emptied database."""
    throwaway.empty(api.db.engine)
    _must(api.request('POST', '/resource_classes',
                      body={'name': CUSTOM_CLASS}), 'create a class')
    _must(api.request('PUT', f'/traits/{CUSTOM_TRAIT}'), 'create a trait')
    for rp_uuid in world.providers:
        body = {'name': f'fuzz-{rp_uuid[:8]}', 'uuid': rp_uuid}
        if rp_uuid in world.parents:
            body['parent_provider_uuid'] = world.parents[rp_uuid]
        _must(api.request('POST', '/resource_providers', body=body),
              'create a provider')
    for rp_uuid, inventories in world.inventories.items():
        _must(api.request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories',
            body={'inventories': inventories,
                  'resource_provider_generation': 0}), 'set inventories')
    for rp_uuid, traits in world.traits.items():
        _must(api.request(
            'PUT', f'/resource_providers/{rp_uuid}/traits',
            body={'traits': traits, 'resource_provider_generation':
                  provider_generation(api, rp_uuid)}), 'set traits')
    for rp_uuid, aggregates in world.provider_aggregates.items():
        generation = provider_generation(api, rp_uuid)
        _must(api.request(
            'PUT', f'/resource_providers/{rp_uuid}/aggregates',
            body={'aggregates': aggregates,
                  'resource_provider_generation': generation}),
            'set aggregates')
    for consumer, (allocations, consumer_type) in world.allocations.items():
        _must(api.request('PUT', f'/allocations/{consumer}', body={
            'allocations': {rp_uuid: {'resources': resources}
                            for rp_uuid, resources in allocations.items()},
            'project_id': world.project, 'user_id': world.user,
            'consumer_generation': None, 'consumer_type': consumer_type}),
            'allocate')


def provider_generation(api, rp_uuid):
    table = models.ResourceProvider.__table__
    with api.db.reader() as conn:
        return conn.scalar(sa.select(table.c.generation)
                           .where(table.c.uuid == rp_uuid))


def consumer_generation(api, consumer):
    table = models.Consumer.__table__
    with api.db.reader() as conn:
        return conn.scalar(sa.select(table.c.generation)
                           .where(table.c.uuid == consumer))


def database_digest(api):
    """A hash of every row of every table."""
    digest = hashlib.sha256()
    with api.db.reader() as conn:
        for table in models.Base.metadata.sorted_tables:
            rows = conn.execute(sa.select(table).order_by(
                *table.primary_key.columns)).all()
            digest.update(repr((table.name, rows)).encode())
    return digest.hexdigest()


# Valid requests.

@dataclasses.dataclass
class Scene:
    """What a valid request is made of: world, API, random choices."""

    world: World
    api: throwaway.API
    rng: random.Random
    minor: int

    def fresh_uuid(self):
        return random_uuid(self.rng)

    def generation(self, rp_uuid):
        return provider_generation(self.api, rp_uuid) or 0


def _consumer_body(scene, consumer, dict_form=True):
    """A valid allocations body for ``consumer`` at the scene's version."""
    world, minor = scene.world, scene.minor
    rp_uuid = scene.rng.choice([world.root, world.child])
    if dict_form:
        body = {'allocations': {rp_uuid: {'resources': {'VCPU': 1}}}}
    else:
        body = {'allocations': [{'resource_provider': {'uuid': rp_uuid},
                                 'resources': {'VCPU': 1}}]}
    if minor >= 8:
        body.update(project_id=world.project, user_id=world.user)
    if minor >= 28:
        body['consumer_generation'] = consumer_generation(scene.api, consumer)
    if minor >= 34:
        body['mappings'] = {'': [rp_uuid]}
    if minor >= 38:
        body['consumer_type'] = 'INSTANCE'
    return body


def _inventories_body(scene, rp_uuid):
    return {'inventories': {'VCPU': {'total': 16, 'reserved': 1,
                                     'allocation_ratio': 2.0},
                            'DISK_GB': {'total': 50, 'max_unit': 10}},
            'resource_provider_generation': scene.generation(rp_uuid)}


def _provider_body(scene, rp_uuid=None):
    body = {'name': f'fuzz-{scene.fresh_uuid()[:8]}'}
    if rp_uuid is not None:
        body['uuid'] = rp_uuid
    if scene.minor >= 14:
        body['parent_provider_uuid'] = scene.world.root
    return body


def _aggregates_body(scene, values):
    aggregates = [scene.world.aggregates[0], scene.fresh_uuid()]
    if scene.minor < 19:
        return aggregates
    return {'aggregates': aggregates,
            'resource_provider_generation': scene.generation(
                values['uuid'])}


def _reshaper_body(scene, values):
    world = scene.world
    return {
        'inventories': {world.root: _inventories_body(scene, world.root)},
        'allocations': {world.consumers[0]: _consumer_body(
            scene, world.consumers[0])},
    }


def _resource_class_body(scene, values):
    return {'name': NEW_NAME} if scene.minor < 7 else None


BODIES = {
    ('/resource_providers', 'POST'):
        lambda scene, values: _provider_body(scene, scene.fresh_uuid()),
    ('/resource_providers/{uuid}', 'PUT'):
        lambda scene, values: _provider_body(scene),
    ('/resource_providers/{uuid}/aggregates', 'PUT'): _aggregates_body,
    ('/resource_providers/{uuid}/traits', 'PUT'):
        lambda scene, values: {
            'traits': [AVX2, CUSTOM_TRAIT],
            'resource_provider_generation': scene.generation(
                values['uuid'])},
    ('/resource_providers/{uuid}/inventories', 'PUT'):
        lambda scene, values: _inventories_body(scene, values['uuid']),
    ('/resource_providers/{uuid}/inventories', 'POST'):
        lambda scene, values: {
            'resource_class': 'DISK_GB', 'total': 20, 'reserved': 2,
            'min_unit': 1, 'max_unit': 20, 'step_size': 1,
            'allocation_ratio': 1.0,
            'resource_provider_generation': scene.generation(
                values['uuid'])},
    ('/resource_providers/{uuid}/inventories/{resource_class}', 'PUT'):
        lambda scene, values: {
            'total': 20, 'reserved': 0, 'allocation_ratio': 1.5,
            'resource_provider_generation': scene.generation(
                values['uuid'])},
    ('/allocations', 'POST'):
        lambda scene, values: {
            consumer: _consumer_body(scene, consumer)
            for consumer in (scene.world.consumers[0], scene.fresh_uuid())},
    ('/allocations/{consumer_uuid}', 'PUT'):
        lambda scene, values: _consumer_body(
            scene, values['consumer_uuid'], dict_form=scene.minor >= 12),
    ('/reshaper', 'POST'): _reshaper_body,
    ('/resource_classes', 'POST'):
        lambda scene, values: {'name': NEW_NAME},
    ('/resource_classes/{name}', 'PUT'): _resource_class_body,
}

# The documented query parameters of the searches; the suffixed names
# stand for the granular groups.
QUERY_PARAMS = {
    '/resource_providers': (
        'name', 'uuid', 'member_of', 'resources', 'in_tree', 'required'),
    '/allocation_candidates': (
        'resources', 'required', 'member_of', 'in_tree', 'limit',
        'group_policy', 'root_required', 'same_subtree', 'resources1',
        'required1', 'member_of1', 'in_tree1', 'resources_NET',
        'required_NET', 'member_of_NET', 'in_tree_NET'),
    '/usages': ('project_id', 'user_id', 'consumer_type'),
    '/traits': ('name', 'associated'),
    **{report.path: tuple(sorted(argument.name
                                 for argument in report.arguments))
       for report in declared.REPORTS if report.arguments},
}
GROUP_PREFIXES = ('resources', 'required', 'member_of', 'in_tree')


def valid_value(world, template, name):
    """A valid value of query parameter ``name`` (suffix or not)."""
    name = next((prefix for prefix in GROUP_PREFIXES
                 if name.startswith(prefix)), name)
    return {
        'resources': 'VCPU:1',
        'required': AVX2,
        'member_of': world.aggregates[0],
        'in_tree': world.root,
        'uuid': world.root,
        'name': ('startswith:CUSTOM_' if template == '/traits'
                 else f'fuzz-{world.root[:8]}'),
        'limit': '2',
        'group_policy': 'isolate',
        'root_required': AVX2,
        'same_subtree': '_NET',
        'project_id': world.project,
        'user_id': world.user,
        'consumer_type': 'INSTANCE',
        'associated': 'true',
    }.get(name, 'x')


def base_query(scene, template):
    """Valid query items ``(name, value)`` for a GET of ``template``."""
    world, minor = scene.world, scene.minor
    if template == '/resource_providers':
        return [('resources', 'VCPU:1')] if minor >= 4 else []
    if template == '/allocation_candidates':
        query = [('resources', 'VCPU:1')]
        if minor >= 25 and scene.rng.random() < 0.5:
            query += [('resources1', 'SRIOV_NET_VF:1'),
                      ('group_policy', 'none')]
        return query
    if template == '/usages':
        return [('project_id', world.project)]
    if template == '/reports/headroom':
        return [('resources', 'VCPU:1')]
    return []


def path_values(scene, template):
    """Values of the template's path variables, from the world."""
    world, rng = scene.world, scene.rng
    values = {}
    if '{resource_class}' in template:
        values['uuid'] = rng.choice(list(world.inventories))
        values['resource_class'] = rng.choice(
            list(world.inventories[values['uuid']]))
    elif '{uuid}' in template:
        values['uuid'] = rng.choice(world.providers)
    if '{project_id}' in template:
        values['project_id'] = world.project
    if '{consumer_uuid}' in template:
        values['consumer_uuid'] = rng.choice(
            [*world.consumers, scene.fresh_uuid()])
    if '{name}' in template:
        existing = (CUSTOM_TRAIT if template.startswith('/traits')
                    else CUSTOM_CLASS)
        values['name'] = rng.choice([existing, NEW_NAME])
    return values


# Requests and their mutations.

@dataclasses.dataclass
class Request:
    """One request; ``path`` and query items are percent-encoded."""

    method: str
    template: str
    values: dict
    query: list
    headers: dict
    document: object
    body: bytes | None = None
    mutations: list = dataclasses.field(default_factory=list)
    #: The body is not JSON at all: a 2xx to it is wrong.
    malformed_body: bool = False
    #: Sent without a Content-Length (``Transfer-Encoding: chunked``).
    chunked: bool = False

    @property
    def path(self):
        path = self.template
        for name, value in self.values.items():
            path = path.replace(f'{{{name}}}', value)
        return path

    @property
    def url(self):
        return (f'{self.path}?{"&".join(self.query)}' if self.query
                else self.path)


def quoted(value):
    return urllib.parse.quote(value, safe=':,!_-.')


def _literal(text, valid=False):
    """Text to write into a body as is; ``valid``: it is still JSON."""
    return ('literal', text, valid)


def _nested(depth, kind):
    if kind == 'array':
        return _literal('[' * depth + ']' * depth, valid=True)
    return _literal('{"a": ' * depth + '1' + '}' * depth, valid=True)


def json_junk(world):
    """Values to put anywhere in a JSON body."""
    return [
        None, True, False, 0, -1, 1, 1.5, -0.0, 0.1, 2 ** 31 - 1, 2 ** 31,
        2 ** 32, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -2 ** 63 - 1, 10 ** 100,
        1e308, 3.5e38, 2.0, 2147483648.0, '', ' ', '0', '1', 'true', 'null',
        'x' * 256, 'x' * 100000, 'ü' * 100, 'Ω≈ç√∫', '😀', '\x00',
        'a\x00b', '\ud800', '\n', 'CUSTOM_', 'custom_fuzz', 'VCPU',
        CUSTOM_CLASS + '\n', 'not-a-uuid', world.root.upper(),
        world.root.replace('-', ''), f'{{{world.root}}}',
        '00000000-0000-0000-0000-000000000000', world.root[:-1],
        [], [None], [[]], [''], ['x'] * 1000, {}, {'': None}, {'x': 1},
        _literal('NaN'), _literal('Infinity'), _literal('-Infinity'),
        _literal('1e400', valid=True), _literal('-1e400', valid=True),
        _literal('1e-400', valid=True),
        _literal('01'), _literal('+1'), _literal('.5'), _literal('0x10'),
        _literal("'x'"), _literal('undefined'), _literal('True'),
        _literal('1' * 5000, valid=True),
        _literal('1.' + '0' * 5000, valid=True),
        _nested(50, 'array'), _nested(900, 'array'),
        _nested(5000, 'array'), _nested(100000, 'array'),
        _nested(900, 'object'), _nested(5000, 'object'),
    ]


def key_junk(world):
    return ['', ' ', 'x', '\x00', 'ü', 'x' * 1000, '\ud800', 'vcpu',
            'VCPU ', world.root.upper(), 'not-a-uuid', 'resources',
            'generation', 'CUSTOM_', '$ref', '__proto__']


def json_slots(document, path=()):
    """``(path, value)`` of every value in ``document``, root first."""
    yield path, document
    if isinstance(document, dict):
        for key, value in document.items():
            yield from json_slots(value, (*path, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from json_slots(value, (*path, index))


def _replaced(document, path, value):
    """A copy of ``document`` with ``value`` at ``path``."""
    if not path:
        return value
    copy = json.loads(json.dumps(document))
    container = copy
    for step in path[:-1]:
        container = container[step]
    container[path[-1]] = value
    return copy


def serialize(document, rng):
    """``document`` as JSON bytes, with its literals written raw.

    Literals travel as a sentinel string, replaced after encoding.
    """
    literals = []

    def sentinel(value):
        if isinstance(value, tuple) and value[:1] == ('literal',):
            literals.append(value[1])
            return f'\x01{len(literals) - 1}\x01'
        if isinstance(value, dict):
            return {key: sentinel(item) for key, item in value.items()}
        if isinstance(value, list):
            return [sentinel(item) for item in value]
        return value

    ascii_only = rng.random() < 0.7
    text = json.dumps(sentinel(document), ensure_ascii=ascii_only)
    for index, literal in enumerate(literals):
        text = text.replace(f'"\\u0001{index}\\u0001"', literal)
    return text.encode('utf-8', 'surrogatepass')


class Mutator:
    """The mutations of one category, each ``(label, apply)``."""

    def __init__(self, world):
        self.world = world

    def choices(self, request):
        raise NotImplementedError


class BodyMutator(Mutator):
    """Wrong types, junk values, odd keys, broken JSON."""

    def choices(self, request):
        return [self.replace, self.replace, self.replace, self.add_key,
                self.drop_key, self.rename_key, self.top_level,
                self.duplicate_key, self.truncate, self.invalid_utf8,
                self.empty]

    def _document(self, request):
        return {} if request.document is None else request.document

    def replace(self, rng, request):
        document = self._document(request)
        path, _ = rng.choice(list(json_slots(document)))
        value = rng.choice(json_junk(self.world))
        request.body = serialize(_replaced(document, path, value), rng)
        request.malformed_body = isinstance(value, tuple) and not value[2]
        return f'body.replace {_path_text(path)}={_short(value)}'

    def _objects(self, document):
        return [(path, value) for path, value in json_slots(document)
                if isinstance(value, dict)]

    def _key_of_an_object(self, rng, request):
        """``(document, path, object, key)``: a key of a non-empty object
        of the body, chosen at random; None if the body has none."""
        document = self._document(request)
        objects = [(path, value) for path, value in self._objects(document)
                   if value]
        if not objects:
            return None
        path, value = rng.choice(objects)
        return document, path, value, rng.choice(list(value))

    def add_key(self, rng, request):
        document = self._document(request)
        objects = self._objects(document)
        if not objects:
            return self.replace(rng, request)
        path, value = rng.choice(objects)
        extended = {**value, rng.choice(key_junk(self.world)): rng.choice(
            json_junk(self.world)[:20])}
        request.body = serialize(_replaced(document, path, extended), rng)
        return f'body.add_key {_path_text(path)}'

    def drop_key(self, rng, request):
        picked = self._key_of_an_object(rng, request)
        if picked is None:
            return self.replace(rng, request)
        document, path, value, key = picked
        reduced = {name: item for name, item in value.items() if name != key}
        request.body = serialize(_replaced(document, path, reduced), rng)
        return f'body.drop_key {_path_text((*path, key))}'

    def rename_key(self, rng, request):
        picked = self._key_of_an_object(rng, request)
        if picked is None:
            return self.replace(rng, request)
        document, path, value, key = picked
        new_key = rng.choice(key_junk(self.world))
        renamed = {(new_key if name == key else name): item
                   for name, item in value.items()}
        request.body = serialize(_replaced(document, path, renamed), rng)
        return f'body.rename_key {_path_text((*path, key))}->{new_key!r:.40}'

    def top_level(self, rng, request):
        value = rng.choice([[], [self._document(request)], 'x', 1, None,
                            True, 1.5])
        request.body = json.dumps(value).encode()
        return f'body.top_level {type(value).__name__}'

    def duplicate_key(self, rng, request):
        picked = self._key_of_an_object(rng, request)
        if picked is None:
            return self.replace(rng, request)
        document, path, value, key = picked
        twice = {**value, '\x02': rng.choice(json_junk(self.world)[:20])}
        body = serialize(_replaced(document, path, twice), rng)
        request.body = body.replace(b'"\\u0002"', json.dumps(key).encode())
        return f'body.duplicate_key {_path_text((*path, key))}'

    def truncate(self, rng, request):
        body = serialize(self._document(request), rng)
        request.body = body[:rng.randrange(len(body))]
        request.malformed_body = True
        return 'body.truncate'

    def invalid_utf8(self, rng, request):
        body = serialize(self._document(request), rng)
        junk = rng.choice([b'\xff', b'\xc3\x28', b'\xed\xa0\x80', b'\x80'])
        # Inside the first string, so that only the encoding is wrong.
        quote = body.find(b'"')
        at = quote + 1 if quote >= 0 else 0
        request.body = body[:at] + junk + body[at:]
        request.malformed_body = True
        return f'body.invalid_utf8 {junk!r}'

    def empty(self, rng, request):
        request.body = rng.choice([b'', b' ', b'\n'])
        request.malformed_body = True
        return 'body.empty'


def _path_text(path):
    return '$' + ''.join(f'[{step!r:.40}]' for step in path)


def _short(value):
    text = value[1] if isinstance(value, tuple) else repr(value)
    return text if len(text) <= 40 else f'{text[:30]}...<{len(text)}>'


def query_junk(world):
    """Junk query values, as raw (already percent-encoded) strings."""
    plain = [
        '', ' ', ',', ':', '!', '!!', 'in:', 'in:,', '!in:', 'in:!',
        '!in:,', 'in:' + AVX2 + ',', 'in:,' + AVX2, '!' + AVX2,
        '!!' + AVX2, 'in:!' + AVX2, AVX2 + ',!', AVX2 + ',,' + CUSTOM_TRAIT,
        'in:' + AVX2 + ',!' + CUSTOM_TRAIT, 'VCPU', 'VCPU:', ':1', 'VCPU:0',
        'VCPU:-1', 'VCPU:1.5', 'VCPU:1e3', 'VCPU:2147483648',
        'VCPU:' + '9' * 40, 'VCPU:\u0661', 'VCPU: 1', 'VCPU:1,VCPU:1',
        'VCPU:1,,DISK_GB:1', 'VCPU:1,', 'vcpu:1', 'CUSTOM_\u00dcBER:1',
        'NOPE:1', 'VCPU:1:2', '\x00', 'a\x00b', '\u00fc', '\U0001f600',
        'x' * 300, 'x' * 10000, 'true', 'TRUE', 'yes', '0', '-1', '1e3',
        '9' * 30, '01', ' 1', '1 ', 'none', 'isolate', 'ISOLATE',
        'startswith:', 'startswith:CUSTOM_', 'in:', 'in:x,,y', 'foo:bar',
        'not-a-uuid', world.root.upper(), world.root.replace('-', ''),
        f'{{{world.root}}}', f'urn:uuid:{world.root}', world.root[:-1],
        f'in:{world.aggregates[0]},', f'in:,{world.aggregates[0]}',
        f'!in:{world.aggregates[0]},!{world.aggregates[1]}',
        f'!{world.aggregates[0]}', f'in:{world.aggregates[0]},not-a-uuid',
        '_NET', '_NET,_NET', '_NET,', ',_NET', '_X', '_1,_', '_!', 'all',
        'unknown', 'INSTANCE\n', 'all\n',
    ]
    raw = ['%', '%Z', '%ZZ', '%FF', '%C3%28', '%ED%A0%80', '%00', '%2C',
           '%3A', '+', '%20', '&', '=', '==', '%25', '%0A', ';']
    return [quoted(value) for value in plain] + raw


ODD_SUFFIXES = ['_!', '!', '0', '01', '_', '-', '_' + 'A' * 64,
                '_' + 'A' * 65, '%C3%BC', '%00', '%FF', '_X_', '%20',
                '1%20', '_x.y', '[]', '_NET%0A', '1' * 30, '_%E2%80%8B']


class QueryMutator(Mutator):
    """Junk values, repeated, empty or odd parameters."""

    def choices(self, request):
        choices = [self.unknown]
        if request.template in QUERY_PARAMS:
            choices += [self.junk_value, self.junk_value, self.junk_value,
                        self.duplicate, self.empty_value, self.no_value,
                        self.long_value, self.raw_name, self.many]
        if request.template in ('/allocation_candidates',
                                '/resource_providers'):
            choices += [self.odd_suffix, self.in_empty]
        return choices

    def _param(self, rng, request):
        return rng.choice(QUERY_PARAMS[request.template])

    def _set(self, request, name, raw_value):
        request.query = [item for item in request.query
                         if item.split('=', 1)[0] != name]
        request.query.append(f'{name}={raw_value}')

    def junk_value(self, rng, request):
        name = self._param(rng, request)
        value = rng.choice(query_junk(self.world))
        self._set(request, name, value)
        return f'query.junk {name}={_short(value)}'

    def duplicate(self, rng, request):
        name = self._param(rng, request)
        value = quoted(valid_value(self.world, request.template, name))
        other = rng.choice([value, rng.choice(query_junk(self.world))])
        self._set(request, name, value)
        request.query.append(f'{name}={other}')
        return f'query.duplicate {name}'

    def empty_value(self, rng, request):
        name = self._param(rng, request)
        self._set(request, name, '')
        return f'query.empty {name}='

    def no_value(self, rng, request):
        name = self._param(rng, request)
        request.query = [item for item in request.query
                         if item.split('=', 1)[0] != name]
        request.query.append(name)
        return f'query.no_value {name}'

    def _distinct_values(self, rng, template, name, count):
        """``count`` different values like the valid one of ``name``."""
        valid = valid_value(self.world, template, name)
        if self.world.root in valid or self.world.aggregates[0] in valid:
            return [random_uuid(rng) for _ in range(count)]
        return [f'{valid}{index}' for index in range(count)]

    def long_value(self, rng, request):
        name = self._param(rng, request)
        valid = valid_value(self.world, request.template, name)
        length = rng.choice([256, 10000, 100000])
        repeats = length // (len(valid) + 1) + 1
        value = rng.choice([
            'A' * length,
            ','.join([valid] * repeats),
            'in:' + ','.join([valid] * repeats),
            ','.join(self._distinct_values(
                rng, request.template, name, repeats)),
            'in:' + ','.join(self._distinct_values(
                rng, request.template, name, repeats)),
        ])
        self._set(request, name, quoted(value))
        return f'query.long {name} ({length})'

    def many(self, rng, request):
        """The parameter given hundreds or thousands of times."""
        name = self._param(rng, request)
        count = rng.choice([100, 1500, 5000])
        if rng.random() < 0.5:
            values = [valid_value(self.world, request.template, name)] * count
        else:
            values = self._distinct_values(
                rng, request.template, name, count)
        request.query += [f'{name}={quoted(value)}' for value in values]
        return f'query.many {name} ({count})'

    def raw_name(self, rng, request):
        name = self._param(rng, request)
        junk = rng.choice(['%00', '%FF', '%20', '%2B', '+', '[]', '%5B0%5D',
                           '.', '%0A'])
        value = quoted(valid_value(self.world, request.template, name))
        request.query.append(f'{name}{junk}={value}')
        return f'query.raw_name {name}{junk}'

    def odd_suffix(self, rng, request):
        prefix = rng.choice(GROUP_PREFIXES)
        suffix = rng.choice(ODD_SUFFIXES)
        value = quoted(valid_value(self.world, request.template, prefix))
        request.query.append(f'{prefix}{suffix}={value}')
        return f'query.odd_suffix {prefix}{suffix}'

    def in_empty(self, rng, request):
        name = rng.choice(['member_of', 'required', 'member_of_NET',
                           'required1', 'root_required'])
        value = rng.choice(['in:', 'in:,', '!in:', 'in:,,', '!in:,'])
        request.query.append(f'{name}={value}')
        return f'query.in_empty {name}={value}'

    def unknown(self, rng, request):
        name = rng.choice(['foo', 'Resources', 'resources ', '%FF', '',
                           'limit', 'x' * 1000])
        request.query.append(f'{name}={rng.choice(query_junk(self.world))}')
        return f'query.unknown {name[:20]}'


def path_junk(world):
    """Junk for a path variable, raw (already percent-encoded)."""
    return [
        'not-a-uuid', world.root.upper(), world.root.replace('-', ''),
        quoted(f'{{{world.root}}}'), f'urn:uuid:{world.root}',
        world.root[:-1], world.root + 'a',
        '00000000-0000-0000-0000-000000000000',
        '%FF', '%C3%28', '%00', '%2F', '%0A', world.root + '%0A',
        world.root + '%00', '%20', '.', '..', '%2E%2E', 'x' * 300,
        'x' * 10000, '%C3%BC', quoted('\U0001f600'), '%25', '{uuid}',
        'vcpu', 'VCPU', 'CUSTOM_', 'CUSTOM_' + 'A' * 300, 'CUSTOM_%C3%9C',
        'CUSTOM_FUZZ%0A', 'CUSTOM_FUZZ%00', 'custom_fuzz', 'CUSTOM_FUZZ ',
        'MISC_SHARES_VIA_AGGREGATE', 'HW_CPU_X86_AVX2', '0', '-1',
        str(2 ** 63),
    ]


class PathMutator(Mutator):
    """Bad uuids and names in the path variables."""

    def choices(self, request):
        return [self.junk] if request.values else []

    def junk(self, rng, request):
        name = rng.choice(list(request.values))
        value = rng.choice(path_junk(self.world))
        request.values[name] = value
        return f'path.{name}={_short(value)}'


HEADER_JUNK = {
    'content-type': [
        None, '', 'text/plain', 'application/xml', 'APPLICATION/JSON',
        'application/json; charset=utf-8', 'application/json; charset=latin-1',
        'application/json; charset=nonsense', 'application/json;;',
        'application/jsonx', 'application/json-patch+json', 'json',
        'application/x-www-form-urlencoded', 'multipart/form-data',
        '*/*', 'application/json, text/plain', 'Ã¼/Ã¼'],
    'accept': [
        None, '', '*/*', 'text/html', 'application/xml',
        'application/json;q=0', 'garbage;;q=x', 'application/*',
        'text/*;q=0.5, application/json;q=abc', 'application/json;q=2',
        'APPLICATION/JSON', 'text/plain', ',', 'Ã¼'],
    'openstack-api-version': [
        None, '', 'placement', 'placement 1', 'placement 1.x',
        'placement 2.0', 'placement 0.9', 'placement 1.40',
        'placement 1.99999999999999999999', 'placement -1.0',
        'compute 1.5', 'placement latest, placement 1.2',
        'placement 1.2, compute 2.1', 'placement 01.01', 'placement 1.01',
        'placement 1.0.0', 'PLACEMENT 1.5', 'placement  1.5',
        'placement LATEST', 'placement 1.5 extra', ',', 'Ã¼'],
    'x-openstack-request-id': [
        '', 'x', 'req-', 'req-not-a-uuid',
        'req-00000000-0000-0000-0000-000000000000',
        'req-' + str(uuid.UUID(int=1, version=1)),
        'req-' + str(uuid.UUID(int=1, version=4)).upper(), 'x' * 10000,
        'Ã¼', 'req-<script>'],
    'x-auth-token': [None, '', 'nobody', ':', 'user:project', 'x' * 1000],
}


class HeaderMutator(Mutator):
    """Missing, wrong or odd headers."""

    def choices(self, request):
        return [self.header]

    def header(self, rng, request):
        name = rng.choice(list(HEADER_JUNK))
        value = rng.choice(HEADER_JUNK[name])
        if value is None:
            request.headers.pop(name, None)
        else:
            request.headers[name] = value
        return f'header {name}: {value!r:.40}'


class MethodMutator(Mutator):
    """Methods a route does not declare."""

    def choices(self, request):
        return [self.method]

    def method(self, rng, request):
        request.method = rng.choice(
            ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE',
             'FOO', 'get'])
        # Whatever the body, the route may ignore it for this method.
        request.malformed_body = False
        return f'method {request.method}'


# The hostile classes: every route, swept in order rather than at random.

#: Text no backend stores, and its percent-encoded forms in a URL (the
#: three bytes that would encode U+D800 are not UTF-8).
UNSTORABLE = {
    'lone surrogate': ('\ud800', ['%ED%A0%80', 'a%ED%A0%80b']),
    'NUL': ('\x00', ['%00', 'a%00b']),
}
#: Versions a class sweeps: the oldest and the newest.
SWEPT_VERSIONS = (None, 'latest')
DEEP = (33, 1000, 100000)


def _spoiled_documents(document, bad):
    """``(label, document)``: ``bad`` inside each string and each key."""
    for path, value in json_slots(document):
        if isinstance(value, str):
            spoiled = value[:1] + bad + value[1:]
            yield (f'body {_path_text(path)}',
                   _replaced(document, path, spoiled))
        if isinstance(value, dict):
            for key in value:
                renamed = {(key + bad if name == key else name): item
                           for name, item in value.items()}
                yield (f'body key {_path_text((*path, key))}',
                       _replaced(document, path, renamed))


def _padded_body(size):
    """A JSON object of ``size`` bytes: one long string."""
    return b'{"name": "' + b'x' * (size - 12) + b'"}'


class HostileClasses:
    """Requests of the hostile classes, for :class:`Fuzzer`."""

    def __init__(self, fuzzer, body_limit):
        self.fuzzer = fuzzer
        self.body_limit = body_limit

    def _valid(self):
        """A valid request for each target and swept version."""
        for template, method in self.fuzzer.targets:
            for version in SWEPT_VERSIONS:
                yield self.fuzzer.valid_request(template, method, version)

    def _text(self, name):
        bad, url_forms = UNSTORABLE[name]
        for request in self._valid():
            if request.document is not None:
                for label, document in _spoiled_documents(
                        request.document, bad):
                    yield dataclasses.replace(
                        request, body=json.dumps(document).encode(),
                        mutations=[f'{name} in {label}'],
                        malformed_body=True)
            for variable in request.values:
                for form in url_forms:
                    yield dataclasses.replace(
                        request, values={**request.values, variable: form},
                        mutations=[f'{name} in path {variable}={form}'])
            for param in QUERY_PARAMS.get(request.template, ()):
                for form in url_forms:
                    yield dataclasses.replace(
                        request, query=[*request.query, f'{param}={form}'],
                        mutations=[f'{name} in query {param}={form}'])

    def lone_surrogate(self):
        return self._text('lone surrogate')

    def nul(self):
        return self._text('NUL')

    def huge_body(self):
        """Over the limit (by length, and chunked), and under it."""
        for request in self._valid():
            if request.document is None:
                continue
            over = _padded_body(self.body_limit + 1)
            yield dataclasses.replace(
                request, body=over, mutations=['huge: over the limit'])
            yield dataclasses.replace(
                request, body=over, chunked=True,
                mutations=['huge: over the limit, chunked'])
            name = 'x' * (self.body_limit // 2)
            for path, value in json_slots(request.document):
                if isinstance(value, (str, list)):
                    yield dataclasses.replace(
                        request, body=json.dumps(_replaced(
                            request.document, path,
                            name if isinstance(value, str)
                            else [name[:36]] * (self.body_limit // 50)
                        )).encode(),
                        mutations=[f'huge: {_path_text(path)} near the '
                                   f'limit'])
                    break

    def deep_body(self):
        for request in self._valid():
            if request.document is None:
                continue
            for depth in DEEP:
                for kind in ('array', 'object'):
                    literal = _nested(depth, kind)
                    yield dataclasses.replace(
                        request, body=literal[1].encode(),
                        mutations=[f'deep: {kind}s {depth} levels'])
                    slot = next((path for path, value
                                 in json_slots(request.document)
                                 if path and isinstance(value, str)), None)
                    if slot is not None:
                        yield dataclasses.replace(
                            request, body=serialize(_replaced(
                                request.document, slot, literal),
                                self.fuzzer.rng),
                            mutations=[f'deep: {kind}s {depth} levels at '
                                       f'{_path_text(slot)}'])

    def all(self):
        """``{class name: generator of requests}``."""
        return {'lone surrogate': self.lone_surrogate(), 'NUL': self.nul(),
                'huge body': self.huge_body(),
                'deep body': self.deep_body()}


# Checking the responses.

def refuses_json(request):
    """Whether the request's Accept excludes JSON (errors may be HTML)."""
    accept = request.headers.get('accept')
    if not accept:
        return False
    header = webob.acceptparse.create_accept_header(accept)
    return not header.acceptable_offers(['application/json'])


def echoed_bytes(body):
    """The length of error document ``body`` less the schemas shown."""
    return len(SCHEMA_SHOWN.sub('', body.decode('utf-8', 'replace')))


def error_format_problem(response):
    """What is wrong with the JSON error document of ``response``."""
    if response.content_type != 'application/json':
        return f'content type {response.content_type!r}'
    try:
        document = json.loads(response.body)
    except ValueError:
        return 'body is not JSON'
    errors = document.get('errors') if isinstance(document, dict) else None
    if set(document) != {'errors'} or not (
            isinstance(errors, list) and errors):
        return 'not {"errors": [...]}'
    version = response.headers.get('openstack-api-version')
    wants_code = version is not None and microversion.parse(
        version.split()[-1]) >= (1, 23)
    for error in errors:
        if not isinstance(error, dict):
            return 'an error is not an object'
        missing = {'status', 'title', 'detail'} - set(error)
        if missing:
            return f'an error without {", ".join(sorted(missing))}'
        if error['status'] != response.status_code:
            return f'error status {error["status"]!r}'
        if not (isinstance(error['title'], str)
                and isinstance(error['detail'], str)):
            return 'title or detail not a string'
        if wants_code and not isinstance(error.get('code'), str):
            return 'no code (from 1.23)'
        if not wants_code and 'code' in error:
            return 'a code before 1.23'
    return None


class ExceptionLog(logging.Handler):
    """Keeps the last exception logged (the fault wrapper logs 500s)."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.last = None

    def emit(self, record):
        if record.exc_info:
            self.last = record.exc_info


def exception_signature(exc_info):
    """``Type: message`` and the innermost frame in placement code."""
    if exc_info is None:
        return 'no exception logged'
    kind, value, tb = exc_info
    frames = [frame for frame in traceback.extract_tb(tb)
              if '/placement/' in frame.filename]
    where = (f' at {frames[-1].filename.split("/placement/")[-1]}:'
             f'{frames[-1].lineno} ({frames[-1].name})' if frames else '')
    return f'{kind.__name__}: {str(value)[:200]}{where}'


@dataclasses.dataclass
class Finding:
    kind: str
    request: Request
    status: str
    detail: str
    count: int = 1
    mutations: set = dataclasses.field(default_factory=set)


class Fuzzer:
    def __init__(self, api, seed, route_filter=None):
        self.api = api
        self.rng = random.Random(seed)
        self.world = World.new(self.rng)
        self.mutators = {
            'body': BodyMutator(self.world),
            'query': QueryMutator(self.world),
            'path': PathMutator(self.world),
            'header': HeaderMutator(self.world),
            'method': MethodMutator(self.world),
        }
        self.targets = [
            (operation.path, operation.method)
            for operation in operations.OPERATIONS + operations.REPORTS
            if route_filter is None or route_filter in operation.path]
        if not self.targets:
            raise SystemExit(f'No route matches {route_filter!r}')
        self.findings = {}
        self.statuses = collections.Counter()
        #: Requests sent, and 5xx answered, per class ("random" or a
        #: hostile class).
        self.sent = collections.Counter()
        self.server_errors = collections.Counter()
        self.resets = 0
        # Only this handler: the findings quote the exceptions logged.
        self.log = ExceptionLog()
        logging.getLogger().handlers = [self.log]
        logging.getLogger().setLevel(logging.WARNING)
        self.reset()

    def reset(self):
        build_world(self.api, self.world)
        self.digest = database_digest(self.api)

    def valid_request(self, template, method, version):
        minor = (0 if version is None else LATEST_MINOR
                 if version == 'latest' else microversion.parse(
                     version).minor)
        scene = Scene(self.world, self.api, self.rng, minor)
        values = path_values(scene, template)
        builder = BODIES.get((template, method))
        document = None if builder is None else builder(scene, values)
        headers = dict(ADMIN_HEADERS)
        if version is not None:
            headers['openstack-api-version'] = f'placement {version}'
        if document is not None:
            headers['content-type'] = 'application/json'
        query = []
        if method == 'GET':
            query = [f'{name}={quoted(value)}'
                     for name, value in base_query(scene, template)]
        return Request(method, template,
                       {name: quoted(value) for name, value in values.items()},
                       query, headers, document)

    def mutate(self, request):
        categories = [name for name, mutator in self.mutators.items()
                      if mutator.choices(request)]
        weights = {'body': 4 if request.document is not None else 1,
                   'query': 4 if request.template in QUERY_PARAMS else 1,
                   'path': 2, 'header': 2, 'method': 0.5}
        count = 2 if self.rng.random() < 0.15 else 1
        chosen = set()
        while len(chosen) < min(count, len(categories)):
            chosen.add(self.rng.choices(
                categories, [weights[name] for name in categories])[0])
        for name in sorted(chosen):
            apply = self.rng.choice(self.mutators[name].choices(request))
            request.mutations.append(apply(self.rng, request))
        if request.body is None and request.document is not None:
            request.body = json.dumps(request.document).encode()
        if request.body is not None and 'body' in chosen:
            request.headers.setdefault('content-type', 'application/json')

    def send(self, request):
        self.log.last = None
        try:
            if request.chunked:
                response = self._send_chunked(request)
            else:
                response = self.api.send(request.method, request.url,
                                         request.headers, request.body)
        except Exception:
            self.log.last = sys.exc_info()
            return None
        return response

    def _send_chunked(self, request):
        """As a WSGI server passes a body of unknown length."""
        req = webob.Request.blank(request.url, method=request.method,
                                  headers=request.headers)
        req.environ.pop('CONTENT_LENGTH', None)
        req.environ.update({
            'wsgi.input': io.BytesIO(request.body),
            'wsgi.input_terminated': True,
            'HTTP_TRANSFER_ENCODING': 'chunked'})
        return req.get_response(self.api.app)

    def check(self, request, response, hostile_class='random'):
        self.sent[hostile_class] += 1
        if response is not None and response.status_code >= 500:
            self.server_errors[hostile_class] += 1
        if response is None:
            self.report('uncaught exception', request, 'none',
                        exception_signature(self.log.last))
            self.reset()
            return
        status = response.status_code
        self.statuses[status] += 1
        if status >= 500:
            self.report('server error', request, response.status,
                        exception_signature(self.log.last))
        elif status >= 400 and not refuses_json(request):
            problem = error_format_problem(response)
            if problem:
                self.report('error not in the JSON format', request,
                            response.status, problem)
            elif echoed_bytes(response.body) > MAX_ERROR_BYTES:
                self.report('error repeats the input', request,
                            response.status,
                            f'{len(response.body)} bytes')
        elif status < 300 and request.malformed_body and (
                request.document is not None):
            self.report('malformed JSON body accepted', request,
                        response.status, '')
        if status < 400 and response.content_type == 'application/json':
            try:
                json.loads(response.body)
            except ValueError as exc:
                self.report('response JSON does not parse', request,
                            response.status, str(exc))
        if request.method.upper() in WRITE_METHODS:
            digest = database_digest(self.api)
            if digest != self.digest:
                if status >= 400:
                    self.report('failed write changed the database',
                                request, response.status, '')
                self.resets += 1
                self.reset()

    def report(self, kind, request, status, detail):
        key = (kind, request.template, request.method, status, detail)
        labels = {label.split(' ', 1)[0] for label in request.mutations}
        finding = self.findings.get(key)
        if finding is None:
            self.findings[key] = Finding(kind, request, status, detail,
                                         mutations=labels)
        else:
            finding.count += 1
            finding.mutations |= labels

    def run(self, count, verbose=False):
        for number in range(count):
            template, method = self.rng.choice(self.targets)
            version = self.rng.choice(VERSIONS)
            request = self.valid_request(template, method, version)
            self.mutate(request)
            response = self.send(request)
            if verbose:
                status = response.status if response else 'exception'
                print(f'{number} {status} {request.method} '
                      f'{_clip(request.url, 120)} v={version} '
                      f'{"; ".join(request.mutations)}', flush=True)
            self.check(request, response)


    def run_classes(self, body_limit, verbose=False):
        """Send every request of every hostile class."""
        for name, requests in HostileClasses(self, body_limit).all().items():
            for request in requests:
                response = self.send(request)
                if verbose:
                    status = response.status if response else 'exception'
                    print(f'{name}: {status} {request.method} '
                          f'{_clip(request.url, 120)} '
                          f'{"; ".join(request.mutations)}', flush=True)
                self.check(request, response, name)


def _clip(text, length=EXAMPLE_LENGTH):
    if len(text) <= length:
        return text
    return f'{text[:length]}...<{len(text)} in all>'


def describe(finding):
    request = finding.request
    lines = [
        f'{finding.kind}: {finding.status} {request.method} '
        f'{request.template} (x{finding.count}; '
        f'{", ".join(sorted(finding.mutations))})',
    ]
    if finding.detail:
        lines.append(f'  {finding.detail}')
    lines.append(f'  repro: {request.method} {_clip(request.url)}')
    lines.append(f'    mutations: {"; ".join(request.mutations)}')
    for name, value in sorted(request.headers.items()):
        lines.append(f'    {name}: {_clip(value)}')
    if request.body is not None:
        lines.append(f'    body: {_clip(repr(request.body))}')
    return '\n'.join(lines)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--count', type=int, default=5000,
                        help='requests to send (default 5000)')
    parser.add_argument(
        '--db-url', default='',
        help='database server URL without a database name, e.g. '
             'mysql+pymysql://root@127.0.0.1:3306 (default: SQLite)')
    parser.add_argument('--route', help='only routes containing this text')
    parser.add_argument('--no-classes', action='store_true',
                        help='skip the sweep of the hostile classes')
    parser.add_argument('--verbose', action='store_true',
                        help='print every request and its status')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    url = throwaway.new_database_url(args.db_url, 'placement_fuzz_')
    application, db = throwaway.build_stack(
        url, placement_database__sync_on_startup=True)
    started = time.monotonic()
    try:
        fuzzer = Fuzzer(throwaway.API(application, db), args.seed, args.route)
        fuzzer.run(args.count, args.verbose)
        if not args.no_classes:
            fuzzer.run_classes(
                middleware.DEFAULT_MAX_REQUEST_BODY_SIZE, args.verbose)
    finally:
        db.dispose()
    for finding in fuzzer.findings.values():
        print(describe(finding), end='\n\n')
    statuses = ', '.join(f'{status}: {number}' for status, number
                         in sorted(fuzzer.statuses.items()))
    for name, sent in fuzzer.sent.items():
        print(f'{name}: {sent} requests, '
              f'{fuzzer.server_errors[name]} answered 5xx')
    print(f'{sum(fuzzer.sent.values())} requests (seed {args.seed}, '
          f'{sa.engine.make_url(url).get_backend_name()}) in '
          f'{time.monotonic() - started:.0f} s; {fuzzer.resets} world '
          f'resets; statuses {statuses}; {len(fuzzer.findings)} findings')
    return 1 if fuzzer.findings else 0


if __name__ == '__main__':
    sys.exit(main())
