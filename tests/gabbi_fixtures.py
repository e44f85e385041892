"""gabbi fixtures: the whole WSGI stack on a clean database.

A gabbit names the fixture that sets up what it needs::

    fixtures:
      - APIFixture

Checking the checkout (the default), the application is built once per
file (not per request) and handed to gabbi's intercept through
:func:`setup_app`, behind :class:`tests.contract.ContractChecker`: every
response a gabbit gets is also checked against the operation table.
Checking an installed package (:mod:`tests.installed`), each file gets
that install's server, configured with the same settings, and gabbi
talks to it over HTTP on :func:`live_port`.
"""

import os
import tempfile
from wsgiref import util as wsgiref_util

from gabbi import fixture
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from webob import client

from placement import deploy
from placement import policy
from placement.db import api as db_api
from tests import contract
from tests import database
from tests import installed
from tools import report_data

_APP = None
_LIVE_PORT = None


def _current_app(environ, start_response):
    return _APP(environ, start_response)


def setup_app():
    """gabbi's intercept: the app of whichever fixture is running.

    gabbi builds its transports when it loads the tests, before any
    fixture has started, so it gets this late-binding dispatcher.
    """
    return _current_app


def live_port():
    """The port of the installed server the running fixture started."""
    return _LIVE_PORT


class APIFixture(fixture.GabbiFixture):
    """noauth2, default policy (oslo.policy's ``enforce_new_defaults``
    default, True), an empty database with standard names."""

    #: ``{(group, option): value}`` settings of subclasses.
    settings = {}
    #: The prefix a web server mounts the application under.
    script_name = None

    def start_fixture(self):
        global _APP, _LIVE_PORT
        url = database.database_url()
        db = db_api.Database(database.make_conf(url).placement_database)
        database.empty(db.engine)
        db.dispose()
        settings = {('placement_database', 'connection'): url,
                    ('api', 'auth_strategy'): 'noauth2',
                    **self.settings, **self.configure()}
        if installed.bin_dir():
            self.server = installed.serving(settings, self.script_name)
            _LIVE_PORT = self.server.__enter__()
            _APP = _forwarding_app(_LIVE_PORT)
            return
        conf = database.make_conf(url)
        # oslo.middleware registers these options only when its
        # middleware starts.
        conf.register_opts(cors.CORS_OPTS, group='cors')
        conf.register_opts(http_proxy_to_wsgi.OPTS, group='oslo_middleware')
        for (group, option), value in settings.items():
            conf.set_override(option, value, group=group)
        self.db = deploy.prepare_database(conf)
        _APP = contract.ContractChecker(deploy.build_stack(
            conf, self.db, policy.make_enforcer(conf)))
        if self.script_name:
            _APP = _mounted(_APP, self.script_name)

    def configure(self):
        """Hook for subclasses: settings made when the fixture starts."""
        return {}

    def stop_fixture(self):
        global _APP, _LIVE_PORT
        _APP = _LIVE_PORT = None
        if installed.bin_dir():
            self.server.__exit__(None, None, None)
        else:
            self.db.dispose()


def _forwarding_app(port):
    """A WSGI application sending each request to the server on ``port``."""
    def forward(environ, start_response):
        environ.update(HTTP_HOST=f'127.0.0.1:{port}',
                       SERVER_NAME='127.0.0.1', SERVER_PORT=str(port))
        return client.send_request_app(environ, start_response)
    return forward


def _mounted(application, script_name):
    """``application`` under ``script_name``, as a web server mounts it.

    A request below the prefix reaches it with SCRIPT_NAME the prefix
    and the rest in PATH_INFO (empty for the prefix itself); any other
    path is the server's own 404.
    """
    prefix = script_name.strip('/')

    def mounted(environ, start_response):
        environ = dict(environ, SCRIPT_NAME='')
        if wsgiref_util.shift_path_info(environ) != prefix:
            start_response('404 Not Found',
                           [('Content-Type', 'text/plain')])
            return [b'Not mounted here']
        return application(environ, start_response)
    return mounted


class PrefixFixture(APIFixture):
    """The application mounted under ``/placement``, as a web server does
    (the installed one: gunicorn with ``SCRIPT_NAME``)."""

    script_name = '/placement'


class LegacyPolicyFixture(APIFixture):
    """``[oslo_policy] enforce_new_defaults = False``: the admin role
    also passes every rule through the deprecated ``rule:admin_api``."""

    settings = {('oslo_policy', 'enforce_new_defaults'): False}


class PolicyFileFixture(APIFixture):
    """A policy file that overrides some rules.

    Listing resource providers needs the ``lister`` role, and the admin
    role may reshape again (as with the Yoga defaults); every other rule
    keeps its default.
    """

    POLICY = (
        '"placement:resource_providers:list": "role:lister"\n'
        '"service_api": "role:admin or role:service"\n'
    )

    def configure(self):
        handle, self.policy_path = tempfile.mkstemp(suffix='.yaml')
        with os.fdopen(handle, 'w') as policy_file:
            policy_file.write(self.POLICY)
        return {('oslo_policy', 'policy_file'): self.policy_path}

    def stop_fixture(self):
        super().stop_fixture()
        os.unlink(self.policy_path)


class CORSFixture(APIFixture):
    """CORS enabled for one origin, ``http://valid.example.com``."""

    ALLOWED_ORIGIN = 'http://valid.example.com'
    settings = {('cors', 'allowed_origin'): [ALLOWED_ORIGIN]}


class ProxyHeadersFixture(APIFixture):
    """``[oslo_middleware] enable_proxy_headers_parsing`` on."""

    settings = {('oslo_middleware', 'enable_proxy_headers_parsing'): True}


class ReportsFixture(APIFixture):
    """Zones az1 and az2, and the cloud of :mod:`tools.report_data`."""

    settings = {('reports', 'availability_zones'): report_data.ZONES}

    def start_fixture(self):
        super().start_fixture()
        report_data.load(_APP)


class StreamingFixture(APIFixture):
    """``[api] stream_above_bytes = 0``: every JSON answer is streamed
    (sent as it is made, without Content-Length)."""

    settings = {('api', 'stream_above_bytes'): 0}
