"""Every request body schema is a valid JSON schema (2020-12).

``placement.request_checks`` does not check them at request time.
"""

import importlib
import pkgutil

import jsonschema
import pytest

import placement.schemas
from placement import microversion

_MINORS = range(microversion.parse(microversion.MAX_VERSION_STRING).minor + 1)
# Schemas built for a microversion: ``function(version)``.
_BUILDERS = ('put_allocations', 'post_allocations', 'consumer_allocations',
             'reshaper')


def _schemas():
    for info in pkgutil.iter_modules(placement.schemas.__path__):
        module = importlib.import_module(f'placement.schemas.{info.name}')
        for name, value in vars(module).items():
            if name == 'QUERY_VALUES':
                for parameter, schema in value.items():
                    yield f'{info.name}.{name}[{parameter}]', schema
            elif isinstance(value, dict) and name.isupper():
                yield f'{info.name}.{name}', value
            elif name in _BUILDERS:
                for minor in _MINORS:
                    yield (f'{info.name}.{name}({minor})',
                           value(microversion.v1(minor)))


@pytest.mark.parametrize('name, schema', list(_schemas()))
def test_schema_is_valid(name, schema):
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_kind_of_schema_is_found():
    names = {name.split('(')[0] for name, _ in _schemas()}
    assert {'allocation.put_allocations', 'reshaper.reshaper',
            'inventory.PUT_INVENTORIES',
            'usage.QUERY_VALUES[project_id]'} <= names
