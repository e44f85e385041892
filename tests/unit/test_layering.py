"""The object layer knows no HTTP: no module under placement/objects/,
nor placement/exception.py, imports webob (read from the source with
ast: importing them would prove nothing, webob being loaded anyway)."""

import ast
import pathlib

import pytest

import placement

_ROOT = pathlib.Path(placement.__file__).parent
_MODULES = sorted([*(_ROOT / 'objects').glob('*.py'), _ROOT / 'exception.py'])


def _imported(path):
    """The top-level names of the modules ``path`` imports."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name.split('.')[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module.split('.')[0]


@pytest.mark.parametrize('path', _MODULES,
                         ids=[str(p.relative_to(_ROOT)) for p in _MODULES])
def test_does_not_import_webob(path):
    assert 'webob' not in set(_imported(path))
