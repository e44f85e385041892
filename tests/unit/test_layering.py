"""Nothing imports upward, and no import cycle, read from the source
with ast (importing the modules would prove nothing: webob is loaded
anyway, and a function-local import hides a cycle from the importer).

The layers, from the bottom (a module imports only from its own layer
and those below it):

1. the foundations: :mod:`placement.errors`, :mod:`placement.exception`,
   :mod:`placement.microversion`, the contract types
   (:mod:`placement.contract`: declarations, knowing no HTTP), ``conf/``,
   ``policies/`` ...;
2. ``db/``: the schema and the transactions;
3. ``objects/``: the object layer;
4. ``reports/`` (read-only views over the objects, and their
   declarations), :mod:`placement.query_values` (a query string checked
   against declared parameters), :mod:`placement.query_params` (the
   parameters the candidates and the reports share) and
   :mod:`placement.provider_query` (what query values mean): below the
   handlers, knowing no HTTP;
5. ``handlers/``;
6. the operation table (``operations/``) and what reads it per request
   (:mod:`placement.query`, :mod:`placement.request_checks`);
7. :mod:`placement.router`, then the middleware and
   :mod:`placement.deploy`;
8. ``cmd/``: the commands, of which only ``placement-api``
   (``cmd/api.py``) serves the API and so imports :mod:`placement.deploy`
   and ``wsgi/``; :mod:`placement.throwaway` (the whole stack in process
   on a throw-away database, for the tools and the tests) is of this
   layer too.

Above them all, the tools (``tools/``) and the tests: a tool imports
nothing of the tests (the tests may use the tools' workloads and data),
and the package neither.
"""

import ast
import pathlib

import pytest

import placement

_ROOT = pathlib.Path(placement.__file__).parent
#: What knows HTTP: webob and the layers from the handlers up.
_HTTP = frozenset({
    'webob', 'placement.handlers', 'placement.router',
    'placement.operations', 'placement.query',
    'placement.request_checks', 'placement.deploy', 'placement.auth',
    'placement.wsgi_wrapper', 'placement.fault_wrap', 'placement.openapi',
    'placement.wsgi'})
#: ``{source glob: what it must not import}``.
_FORBIDDEN = {
    'objects/*.py': _HTTP | {'placement.reports', 'placement.cmd'},
    'exception.py': _HTTP | {'placement.reports', 'placement.cmd'},
    'db/**/*.py': _HTTP | {'placement.objects', 'placement.reports',
                           'placement.cmd'},
    'reports/**/*.py': _HTTP | {'placement.cmd'},
    'provider_query.py': _HTTP | {'placement.reports', 'placement.cmd'},
    'query_values.py': _HTTP | {'placement.reports', 'placement.cmd'},
    'query_params.py': _HTTP | {'placement.reports', 'placement.cmd'},
    'contract.py': _HTTP | {'placement.objects', 'placement.reports',
                            'placement.cmd', 'placement.db'},
    'cmd/*.py': _HTTP,
}
#: What serves the API may import the stack it serves.
_SERVES = {'cmd/api.py': {'placement.deploy', 'placement.wsgi'}}


def _module_name(path):
    parts = path.relative_to(_ROOT.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _is_module(name):
    relative = pathlib.Path(*name.split('.'))
    base = _ROOT.parent / relative
    return base.with_suffix('.py').exists() or (base / '__init__.py').exists()


def _imported(path):
    """The dotted names of the modules ``path`` imports, anywhere in it
    (function-local imports too)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield from _imported_from(node, path)


def _imported_from(node, path):
    """What each name of ``from ... import`` node ``node`` of ``path``
    imports: the module of that name, else the module it is taken from.
    """
    base = node.module or ''
    if node.level:
        package = _module_name(path)
        if path.name != '__init__.py':
            package = package.rpartition('.')[0]
        parent = package.rsplit('.', node.level - 1)[0]
        base = f'{parent}.{base}' if base else parent
    for alias in node.names:
        name = f'{base}.{alias.name}'
        yield name if _is_module(name) else base


def _within(name, prefixes):
    return [prefix for prefix in prefixes
            if name == prefix or name.startswith(prefix + '.')]


def _cases():
    for pattern, forbidden in _FORBIDDEN.items():
        for path in sorted(_ROOT.glob(pattern)):
            relative = str(path.relative_to(_ROOT))
            yield pytest.param(path, forbidden - _SERVES.get(relative, set()),
                               id=relative)


@pytest.mark.parametrize('path, forbidden', list(_cases()))
def test_does_not_import_upward(path, forbidden):
    upward = sorted({name for name in _imported(path)
                     if _within(name, forbidden)})
    assert upward == []


_TOOLS = _ROOT.parent / 'tools'


@pytest.mark.parametrize(
    'path', sorted([*_ROOT.rglob('*.py'), *_TOOLS.glob('*.py')]),
    ids=lambda path: str(path.relative_to(_ROOT.parent)))
def test_does_not_import_the_tests(path):
    assert sorted({name for name in _imported(path)
                   if _within(name, {'tests'})}) == []


def test_only_the_api_command_imports_the_stack():
    serving = {str(path.relative_to(_ROOT))
               for path in _ROOT.glob('cmd/*.py')
               if any(_within(name, {'placement.deploy', 'placement.wsgi'})
                      for name in _imported(path))}
    assert serving == set(_SERVES)


def _graph():
    """``{module: modules of placement it imports}``."""
    graph = {}
    for path in _ROOT.rglob('*.py'):
        if 'alembic' in path.parts:
            continue
        graph[_module_name(path)] = {
            name for name in _imported(path)
            if name.startswith('placement.') and _is_module(name)}
    return graph


def _cycle(graph):
    """One import cycle of ``graph`` as a list of modules, else None.

    A package importing its own modules (to assemble them) is not a
    cycle unless one of them imports the package back.
    """
    done, path, on_path = set(), [], set()

    def visit(module):
        path.append(module)
        on_path.add(module)
        for imported in sorted(graph.get(module, ())):
            if imported in on_path:
                return path[path.index(imported):] + [imported]
            if imported not in done:
                found = visit(imported)
                if found:
                    return found
        path.pop()
        on_path.discard(module)
        done.add(module)
        return None

    for module in sorted(graph):
        if module not in done:
            found = visit(module)
            if found:
                return found
    return None


def test_no_import_cycle():
    assert _cycle(_graph()) is None


def test_a_function_local_import_cycle_is_found():
    graph = {'placement.a': {'placement.b'}, 'placement.b': {'placement.a'}}
    assert _cycle(graph) == ['placement.a', 'placement.b', 'placement.a']


def _module_aliases(tree, path):
    """The names ``path`` binds to modules of placement by importing."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name.startswith('placement.'):
                    yield alias.asname
        elif isinstance(node, ast.ImportFrom):
            for alias, name in zip(node.names, _imported_from(node, path),
                                   strict=True):
                if name.startswith('placement') and _is_module(name):
                    yield alias.asname or alias.name


def _private_uses(path):
    """``module._name`` of the modules of placement ``path`` imports:
    what another module needs is a public name of its owner."""
    tree = ast.parse(path.read_text(), str(path))
    modules = set(_module_aliases(tree, path))
    return sorted(
        f'{node.value.id}.{node.attr}' for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name) and node.value.id in modules
        and node.attr.startswith('_') and not node.attr.startswith('__'))


@pytest.mark.parametrize('path', sorted(_ROOT.rglob('*.py')),
                         ids=lambda path: str(path.relative_to(_ROOT)))
def test_no_private_name_of_another_module(path):
    assert _private_uses(path) == []


def test_a_private_name_of_another_module_is_found(tmp_path):
    module = tmp_path / 'module.py'
    module.write_text('from placement.objects import explain\n'
                      'explain._slot(None)\n')
    assert _private_uses(module) == ['explain._slot']


def test_an_upward_import_is_found(tmp_path):
    module = tmp_path / 'module.py'
    module.write_text('def f():\n    import webob.exc\n')
    assert list(_imported(module)) == ['webob.exc']
