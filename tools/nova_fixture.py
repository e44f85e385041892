"""Nova's functional tests against this service, in process.

Nova's ``PlacementFixture`` (``nova/tests/functional/fixtures.py``)
subclasses ``placement.tests.functional.fixtures.placement.PlacementFixture``
of the upstream package, which is not installed here. :func:`install`
adds an import hook that answers that name (and ``placement.tests.fixtures``)
with the fixtures below: they build this service's whole WSGI stack
(noauth2, ``[oslo_policy] enforce_new_defaults = False`` so that the
``admin`` token may reshape, as nova's tests do) on a fresh database, and
answer the requests sent to ``http://<uuid>/placement`` through a requests
adapter. Nothing else of nova is changed.

In a virtualenv holding nova (with its test dependencies: fixtures,
testtools, stestr, ddt, oslotest) and this checkout (``pip install -e``)::

    site=$(python -c 'import site; print(site.getsitepackages()[0])')
    printf '%s\\nimport tools.nova_fixture; tools.nova_fixture.install()\\n' \\
        "$PWD" > "$site/nova_placement.pth"

then run nova's tests with stestr (pytest does not run testtools cases).
Nova's API fixture reads ``<site-packages>/etc/nova/api-paste.ini``
(copy the wheel's ``<venv>/etc/nova/api-paste.ini`` there), and nova
34.0.0 needs ``SQLAlchemy<=2.0.44`` (later 2.0 releases deprecate
``noload()``, which nova's warnings fixture turns into API 500s).
Databases: a migrated SQLite file copied per fixture; with
``NOVA_FIXTURE_DB_SERVER`` (a server URL without a database, e.g.
``mysql+pymysql://root@127.0.0.1:3306``) one ``nova_probe_*`` database per
process, emptied per fixture and dropped at exit.
"""

import atexit
import importlib.abc
import importlib.machinery
import os
import sqlite3
import sys
import tempfile
import urllib.parse
import uuid

import fixtures
import requests
import webob
from oslo_config import cfg
from oslo_config import fixture as config_fixture

from placement import deploy
from placement import policy
from placement import throwaway
from placement.conf import loading
from placement.db import api as db_api
from placement.db import migration

_PACKAGES = ('placement.tests', 'placement.tests.functional',
             'placement.tests.functional.fixtures')
_MODULES = ('placement.tests.functional.fixtures.placement',
            'placement.tests.fixtures')
_STATE = {}
# Read when the hook is installed: nova's tests replace it per test.
_TMP = tempfile.gettempdir()


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Empty packages up to the fixture modules, which are this one's."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname in _PACKAGES or fullname in _MODULES:
            return importlib.machinery.ModuleSpec(
                fullname, self, is_package=fullname in _PACKAGES)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if module.__name__ in _PACKAGES:
            module.__path__ = []
        else:
            module.Database = Database
            module.PlacementFixture = PlacementFixture


def install():
    """Serve the upstream fixture's module names from this module."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def _directory():
    if 'dir' not in _STATE:
        _STATE['dir'] = tempfile.mkdtemp(prefix='nova_probe_', dir=_TMP)
        atexit.register(_remove_tree, _STATE['dir'])
    return _STATE['dir']


def _remove_tree(path):
    for name in os.listdir(path):
        os.unlink(os.path.join(path, name))
    os.rmdir(path)


def _migrated(url):
    db = db_api.connected(throwaway.make_conf(url).placement_database,
                          writable=True)
    migration.upgrade(db.engine)
    return db


def _template():
    if 'template' not in _STATE:
        path = os.path.join(_directory(), 'template.sqlite')
        _migrated(f'sqlite:///{path}').dispose()
        _STATE['template'] = path
    return _STATE['template']


def _server_database(server):
    if 'server' not in _STATE:
        url = throwaway.new_database_url(server, prefix='nova_probe_')
        _STATE['server'] = (url, _migrated(url))
    url, db = _STATE['server']
    throwaway.empty(db.engine)
    return url


def fresh_database_url(fixture):
    """A migrated database without rows but the standard ones."""
    server = os.environ.get('NOVA_FIXTURE_DB_SERVER')
    if server:
        return _server_database(server)
    handle, path = tempfile.mkstemp(suffix='.sqlite', dir=_directory())
    os.close(handle)
    source, target = sqlite3.connect(_template()), sqlite3.connect(path)
    source.backup(target)
    source.close()
    target.close()
    fixture.addCleanup(throwaway.remove_sqlite_files, path)
    return f'sqlite:///{path}'


def _parsed(conf):
    """Whether ``conf`` was called (parsed its command line and files)."""
    try:
        conf.find_file('placement.conf')
    except cfg.NotInitializedError:
        return False
    return True


def _has_tables(path):
    conn = sqlite3.connect(path)
    try:
        return bool(conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
        ).fetchone()[0])
    finally:
        conn.close()


class _WSGIAdapter(requests.adapters.BaseAdapter):
    """requests' transport to the application, for URLs under ``base``."""

    def __init__(self, app, base):
        super().__init__()
        self.app = app
        self.base = urllib.parse.urlsplit(base)

    def send(self, request, **kwargs):
        url = urllib.parse.urlsplit(request.url)
        req = webob.Request.blank(
            url.path[len(self.base.path):] or '/',
            base_url=f'{self.base.scheme}://{self.base.netloc}',
            method=request.method, headers=dict(request.headers))
        req.script_name = self.base.path
        req.query_string = url.query
        body = request.body
        if body is not None:
            req.body = body.encode('utf-8') if isinstance(body, str) else body
        res = req.get_response(self.app)
        response = requests.Response()
        response.status_code = res.status_int
        response.reason = res.status.split(' ', 1)[1]
        response.headers = requests.structures.CaseInsensitiveDict(
            res.headerlist)
        response._content = res.body
        response.encoding = requests.utils.get_encoding_from_headers(
            response.headers)
        response.url = request.url
        response.request = request
        return response

    def close(self):
        pass


class Database(fixtures.Fixture):
    """A fresh database; its URL set in ``conf_fixture`` when given."""

    def __init__(self, conf_fixture=None, set_config=False):
        super().__init__()
        self.conf_fixture = conf_fixture
        self.set_config = set_config

    def setUp(self):
        super().setUp()
        self.url = fresh_database_url(self)
        if self.conf_fixture is not None:
            self.conf_fixture.config(group='placement_database',
                                     connection=self.url)


class PlacementFixture(fixtures.Fixture):
    """The service on a fresh database at ``self.endpoint``."""

    def __init__(self, token='admin', conf_fixture=None, db=True,
                 use_intercept=True, register_opts=True):
        super().__init__()
        self.token = token
        self.conf_fixture = conf_fixture
        self.db = db
        self.use_intercept = use_intercept
        self.register_opts = register_opts

    def _configure_placement(self, conf_fixture):
        conf_fixture.config(group='api', auth_strategy='noauth2')
        conf_fixture.config(group='oslo_policy', enforce_new_defaults=False)
        if self.db:
            conf_fixture.config(group='placement_database',
                                connection=fresh_database_url(self))

    def setUp(self):
        super().setUp()
        if self.conf_fixture is None:
            self.conf_fixture = self.useFixture(
                config_fixture.Config(loading.new_conf()))
        conf = self.conf_fixture.conf
        if not _parsed(conf):
            # Some of nova's tests hand over a ConfigOpts never called.
            conf([], project='placement', default_config_files=[])
        self._configure_placement(self.conf_fixture)
        url = conf.placement_database.connection
        if self.db and url.startswith('sqlite:///') and not _has_tables(
                url[len('sqlite:///'):]):
            # nova's subclass may name an empty file of its own.
            self.conf_fixture.config(group='placement_database',
                                     connection=fresh_database_url(self))
        db = deploy.prepare_database(conf)
        self.addCleanup(db.dispose)
        self.app = deploy.build_stack(conf, db, policy.make_enforcer(conf))
        self.endpoint = f'http://{uuid.uuid4().hex}/placement'
        if self.use_intercept:
            adapter = _WSGIAdapter(self.app, self.endpoint)
            get_adapter = requests.Session.get_adapter

            def routed(session, url):
                if url.startswith(self.endpoint):
                    return adapter
                return get_adapter(session, url)
            self.useFixture(fixtures.MonkeyPatch(
                'requests.Session.get_adapter', routed))
