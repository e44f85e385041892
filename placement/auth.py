"""Authentication middleware: keystone, or noauth2 for tests.

The operations the table marks public (the version document, the OpenAPI
document, the reports' web page) and the page's assets
(``/reports/static/...``) never need authentication: the page asks its
user for a token for the JSON reports.
"""

import importlib

import webob
import webob.dec
import webob.exc
from keystoneauth1 import exceptions as keystoneauth_exceptions
from keystonemiddleware import auth_token
from keystonemiddleware.auth_token import _request as auth_token_request

from placement import fatal
from placement import operations
from placement import wsgi_wrapper

# Keystone flattens implied roles into the token; noauth2 does the same.
_IMPLIED_ROLES = {
    'admin': ('admin', 'member', 'reader'),
    'member': ('member', 'reader'),
    'reader': ('reader',),
}


#: The reports' page assets, public like the page itself.
_PUBLIC_PREFIX = '/reports/static/'
#: Browsers ask for it unprompted: the router's 404, not a 401.
_FAVICON = '/favicon.ico'


def _is_public(environ):
    path = environ.get('PATH_INFO', '')
    return (path in operations.PUBLIC_PATHS or path == _FAVICON
            or path.startswith(_PUBLIC_PREFIX))


#: The headers keystonemiddleware removes from a request before it sets
#: them from the token (its own list), and the system scope it sets.
IDENTITY_HEADERS = (
    *auth_token_request._AuthTokenRequest.blank('/')._all_auth_headers(),
    'OpenStack-System-Scope')
#: What noauth2 takes from the client, as its trusted token.
_NOAUTH_INPUTS = ('X-Roles', 'X-Project-Id', 'OpenStack-System-Scope')


def strip_identity(conf):
    """Middleware removing the client's identity headers on every path.

    keystonemiddleware removes them only where it authenticates: on the
    public paths a client's own ``X-User-Id``, ``X-Project-Id`` or
    ``X-Roles`` would reach the request context and every log line.
    With noauth2, what it reads as its token stays on the other paths.
    """
    kept = _NOAUTH_INPUTS if conf.api.auth_strategy == 'noauth2' else ()
    # The WSGI environ keys of the headers, found once.
    stripped = [_environ_key(name) for name in IDENTITY_HEADERS]
    stripped_unless_public = [_environ_key(name) for name in IDENTITY_HEADERS
                              if name not in kept]

    def middleware(application):
        def _call(environ, start_response):
            for key in (stripped if _is_public(environ)
                        else stripped_unless_public):
                environ.pop(key, None)
            return application(environ, start_response)
        return _call
    return middleware


def _environ_key(header):
    """The WSGI environ key of request header ``header``."""
    return 'HTTP_' + header.upper().replace('-', '_')


def _expand_roles(roles):
    expanded = []
    for role in roles:
        for implied in _IMPLIED_ROLES.get(role, (role,)):
            if implied not in expanded:
                expanded.append(implied)
    return expanded


class NoAuthMiddleware:
    """Trust the token: ``admin``, or ``user`` or ``user:project``.

    The ``admin`` user gets the admin role; ``X-Roles`` adds roles,
    ``X-Project-Id`` names the project (else the token does), and an
    ``OpenStack-System-Scope`` header gives a system-scoped token (with
    no project), exactly as the keystone middleware would present them.
    """

    def __init__(self, application):
        self.application = application

    @wsgi_wrapper.passes_on
    def __call__(self, req):
        if _is_public(req.environ):
            return self.application
        token = req.headers.get('X-Auth-Token')
        if not token:
            raise webob.exc.HTTPUnauthorized(
                'The request you have made requires authentication.')
        user_id, _sep, token_project_id = token.partition(':')
        project_id = (req.headers.get('X-Project-Id')
                      or token_project_id or user_id)
        requested = [role.strip().lower()
                     for role in req.headers.get('X-Roles', '').split(',')
                     if role.strip()]
        if user_id == 'admin':
            requested.insert(0, 'admin')
        roles = _expand_roles(requested or ['member'])
        req.headers['X-User-Id'] = user_id
        req.headers['X-Roles'] = ','.join(roles)
        if req.headers.get('OpenStack-System-Scope'):
            req.headers.pop('X-Project-Id', None)
            req.headers.pop('X-Tenant-Id', None)
        else:
            req.headers['X-Project-Id'] = project_id
        return self.application


#: keystonemiddleware's section.
_AUTH_GROUP = 'keystone_authtoken'


def _check_memcached_client(conf):
    """A ConfigurationError unless the memcached client module that
    keystonemiddleware imports for ``memcached_servers`` is installed:
    python-binary-memcached with SASL (or TLS through oslo.cache's
    pool), python-memcached otherwise. ``conf``: keystonemiddleware's."""
    if not conf.get('memcached_servers') or conf.get('cache'):
        return
    sasl = conf.get('memcache_sasl_enabled')
    tls = conf.get('memcache_tls_enabled')
    if sasl or (tls and conf.get('memcache_use_advanced_pool')):
        module, package = 'bmemcached', 'python-binary-memcached'
    else:
        module, package = 'memcache', 'python-memcached'
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise fatal.ConfigurationError(
            f'[{_AUTH_GROUP}] memcached_servers is set but its client, '
            f'{package}, is not installed ({exc})') from exc


def _check_auth_plugin_set(conf):
    """A ConfigurationError unless an auth plugin is named: without one
    keystonemiddleware cannot ask keystone about a token, and answers
    every request that has one with a 500 (keystoneauth's
    MissingAuthPlugin). ``conf``: keystonemiddleware's."""
    group = conf.get('auth_section') or _AUTH_GROUP
    if not conf.get('auth_type', group=group):
        raise fatal.ConfigurationError(
            f'[{group}] auth_type is not set: the service cannot validate '
            f'tokens without the credentials it asks keystone with '
            f'(auth_type = password, auth_url, username, password, ...; '
            f'see the [keystone_authtoken] section of the installation '
            f'guide)')


class KeystoneAuth(auth_token.AuthProtocol):
    """keystonemiddleware's auth_token, except for the public paths.

    What keystonemiddleware finds wrong only at a client's request, and
    then at every request (no auth plugin, one it cannot load, the memcached
    client it needs not installed: a 500 each time), stops the service
    at start instead, in one line (:class:`fatal.ConfigurationError`).
    Its 503 while keystone cannot validate a token (unreachable, or
    refusing the service's own credentials: its log says which) is the
    API's JSON error document, not webob's HTML page.
    """

    def __init__(self, application, conf):
        try:
            super().__init__(application, {'oslo_config_config': conf})
        except keystoneauth_exceptions.AuthPluginException as exc:
            group = self._conf.get('auth_section') or _AUTH_GROUP
            raise fatal.ConfigurationError(
                f'[{group}] auth_type = '
                f'{self._conf.get("auth_type", group=group)}: {exc}'
            ) from exc
        _check_auth_plugin_set(self._conf)
        _check_memcached_client(self._conf)

    def __call__(self, environ, start_response):
        if _is_public(environ):
            return self._app(environ, start_response)
        return super().__call__(environ, start_response)

    def process_request(self, request):
        try:
            return super().process_request(request)
        except webob.exc.HTTPServiceUnavailable as exc:
            return wsgi_wrapper.error_response(request, exc)


def make_middleware(conf):
    """The authentication middleware factory for ``[api] auth_strategy``."""
    if conf.api.auth_strategy == 'noauth2':
        return NoAuthMiddleware

    def _keystone(application):
        return KeystoneAuth(application, conf)
    return _keystone


def check(conf):
    """Raise the ConfigurationError the middleware would raise, if any."""
    make_middleware(conf)(None)
