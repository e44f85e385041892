"""gabbi fixtures: the whole WSGI stack in-process on a clean database.

A gabbit names the fixture that sets up what it needs::

    fixtures:
      - APIFixture

The application is built once per file (not per request) and handed to
gabbi's intercept through :func:`setup_app`, behind
:class:`tests.contract.ContractChecker`: every response a gabbit gets is
also checked against the operation table.
"""

import os
import tempfile
from wsgiref import util as wsgiref_util

from gabbi import fixture
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi

from placement import deploy
from placement import policy
from tests import contract
from tests import database
from tests import report_data

_APP = None


def _current_app(environ, start_response):
    return _APP(environ, start_response)


def setup_app():
    """gabbi's intercept: the app of whichever fixture is running.

    gabbi builds its transports when it loads the tests, before any
    fixture has started, so it gets this late-binding dispatcher.
    """
    return _current_app


class APIFixture(fixture.GabbiFixture):
    """noauth2, default policy (oslo.policy's ``enforce_new_defaults``
    default, True), an empty database with standard names."""

    #: ``group__option`` config overrides of subclasses.
    overrides = {}

    def start_fixture(self):
        global _APP
        url = database.database_url()
        self.conf = database.make_conf(
            url, api__auth_strategy='noauth2', **self.overrides)
        self.configure(self.conf)
        self.db = deploy.prepare_database(self.conf)
        database.empty(self.db.engine)
        _APP = contract.ContractChecker(deploy.build_stack(
            self.conf, self.db, policy.make_enforcer(self.conf)))

    def configure(self, conf):
        """Hook for subclasses needing more than static overrides."""

    def stop_fixture(self):
        global _APP
        _APP = None
        self.db.dispose()


class PrefixFixture(APIFixture):
    """The application mounted under ``/placement``, as a web server does.

    A request for ``/placement/...`` reaches it with SCRIPT_NAME
    ``/placement`` and the rest in PATH_INFO (empty for ``/placement``
    itself); any other path is the server's own 404.
    """

    PREFIX = 'placement'

    def start_fixture(self):
        global _APP
        super().start_fixture()
        _APP = self._mount(_APP)

    @classmethod
    def _mount(cls, application):
        def mounted(environ, start_response):
            environ = dict(environ, SCRIPT_NAME='')
            if wsgiref_util.shift_path_info(environ) != cls.PREFIX:
                start_response('404 Not Found',
                               [('Content-Type', 'text/plain')])
                return [b'Not mounted here']
            return application(environ, start_response)
        return mounted


class LegacyPolicyFixture(APIFixture):
    """``[oslo_policy] enforce_new_defaults = False``: the admin role
    also passes every rule through the deprecated ``rule:admin_api``."""

    overrides = {'oslo_policy__enforce_new_defaults': False}


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

    def configure(self, conf):
        handle, self.policy_path = tempfile.mkstemp(suffix='.yaml')
        with os.fdopen(handle, 'w') as policy_file:
            policy_file.write(self.POLICY)
        conf.set_override('policy_file', self.policy_path,
                          group='oslo_policy')

    def stop_fixture(self):
        super().stop_fixture()
        os.unlink(self.policy_path)


class CORSFixture(APIFixture):
    """CORS enabled for one origin, ``http://valid.example.com``."""

    ALLOWED_ORIGIN = 'http://valid.example.com'

    def configure(self, conf):
        # oslo.middleware registers [cors] only when the middleware starts.
        conf.register_opts(cors.CORS_OPTS, group='cors')
        conf.set_override('allowed_origin', [self.ALLOWED_ORIGIN],
                          group='cors')


class ProxyHeadersFixture(APIFixture):
    """``[oslo_middleware] enable_proxy_headers_parsing`` on."""

    def configure(self, conf):
        # oslo.middleware registers the option only when the middleware
        # starts.
        conf.register_opts(http_proxy_to_wsgi.OPTS, group='oslo_middleware')
        conf.set_override('enable_proxy_headers_parsing', True,
                          group='oslo_middleware')


class ReportsFixture(APIFixture):
    """Zones az1 and az2, and the cloud of :mod:`tests.report_data`."""

    overrides = {'reports__availability_zones': report_data.ZONES}

    def start_fixture(self):
        super().start_fixture()
        report_data.load(_APP)
