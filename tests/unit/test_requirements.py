"""Every third-party package the code imports is declared.

The service's imports must be in requirements.txt; those of the tests,
tools/ and conftest.py in requirements.txt or test-requirements.txt; those
of the docs configuration in requirements.txt or doc/requirements.txt.
Otherwise a fresh ``pip install`` misses what only happened to be
installed as another package's dependency.
"""

import ast
import pathlib
import re
import sys
from importlib import metadata

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIRST_PARTY = {'placement', 'tests', 'tools', 'conftest',
               # The docs' own Sphinx extensions, importing each other.
               *(path.stem for path
                 in (ROOT / 'doc' / 'source' / '_ext').glob('*.py'))}
# What each part of the tree may import, by requirements file.
DECLARED_FOR = {
    'placement': ('requirements.txt',),
    'tests': ('requirements.txt', 'test-requirements.txt'),
    'tools': ('requirements.txt', 'test-requirements.txt'),
    'conftest.py': ('requirements.txt', 'test-requirements.txt'),
    'doc/source': ('requirements.txt', 'doc/requirements.txt'),
}


def _normalized(name):
    """A distribution name as PEP 503 compares them."""
    return re.sub(r'[-_.]+', '-', name).lower()


def _declared(requirement_files):
    names = set()
    for filename in requirement_files:
        for line in (ROOT / filename).read_text().splitlines():
            match = re.match(r'\s*([A-Za-z0-9][A-Za-z0-9._-]*)', line)
            if match and not line.lstrip().startswith('#'):
                names.add(_normalized(match.group(1)))
    return names


def _python_files(part):
    path = ROOT / part
    return [path] if path.is_file() else sorted(path.rglob('*.py'))


def _imported_top_level_modules(path):
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split('.')[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            modules.add(node.module.split('.')[0])
    return modules - FIRST_PARTY - set(sys.stdlib_module_names)


def _undeclared_imports(part):
    declared = _declared(DECLARED_FOR[part])
    distributions = metadata.packages_distributions()
    undeclared = {}
    for path in _python_files(part):
        for module in _imported_top_level_modules(path):
            # A module of a package not installed here (the docs'
            # before ``pip install -r doc/requirements.txt``) is judged
            # by its own name.
            providers = {_normalized(dist)
                         for dist in distributions.get(module, ())} or {
                _normalized(module)}
            if not providers & declared:
                undeclared.setdefault(module, path.relative_to(ROOT))
    return undeclared


@pytest.mark.parametrize('part', sorted(DECLARED_FOR))
def test_every_import_is_declared(part):
    assert _undeclared_imports(part) == {}


def test_an_undeclared_import_is_found(tmp_path, monkeypatch):
    """The check sees a package that no requirements file names."""
    module = tmp_path / 'example.py'
    module.write_text('import yaml\nfrom webob import exc\n')
    monkeypatch.setattr(sys.modules[__name__], 'ROOT', tmp_path)
    (tmp_path / 'requirements.txt').write_text('# run time\nWebOb>=1.8\n')
    monkeypatch.setitem(DECLARED_FOR, 'example.py', ('requirements.txt',))
    assert _undeclared_imports('example.py') == {
        'yaml': pathlib.Path('example.py')}
