"""Handlers of the operators' reports under /reports (not microversioned).

GET /reports/capacity, /reports/usage, /reports/usage/{project_id} and
/reports/headroom answer JSON; GET /reports/ is the web page, which
reads only those, and /reports/static/{name} its assets.
"""

import importlib.resources
import mimetypes
import time

import webob
import webob.exc

from placement import util
from placement import wsgi_wrapper
from placement.handlers import provider_query
from placement.policies import reports as policies
from placement.reports import arguments
from placement.reports import capacity
from placement.reports import headroom
from placement.reports import usage
from placement.reports import zones

_STATIC = importlib.resources.files('placement.reports') / 'static'
#: The only names served: nothing outside the directory, whatever is asked.
_ASSETS = frozenset(path.name for path in _STATIC.iterdir() if path.is_file())
_PAGE = 'index.html'


def _params(req, allowed, repeatable=()):
    """``{name: [values]}`` of the query string (see util.query_params)."""
    params = util.query_params(req, allowed, repeatable)
    return {name: provider_query.listed(params, name) for name in params}


def _report(req, rule, target=None):
    """The context after checking ``rule``, and the answer's UNIX time."""
    context = req.environ['placement.context']
    context.can(rule, target)
    return context, int(time.time())


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.object_errors
def get_capacity(req):
    params = _params(
        req, {*arguments.SELECTION, *arguments.SCOPE, 'detail'},
        repeatable={*arguments.SELECTION, 'member_of'})
    context, now = _report(req, policies.CAPACITY)
    selection = arguments.selection(params)
    scope = arguments.scope(params)
    with context.db.reader() as conn:
        document = capacity.report(
            conn, zones.Zones.from_conf(context.config), selection, scope,
            'detail' in params, now)
    return util.json_response(req, document)


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.object_errors
def list_usage(req):
    params = _params(req, {*arguments.SELECTION, 'sort'},
                     repeatable=set(arguments.SELECTION))
    # No project in the target: only admins and services see them all.
    context, now = _report(req, policies.USAGE, {'project_id': None})
    selection = arguments.selection(params)
    sort = params.get('sort', [None])[-1]
    with context.db.reader() as conn:
        document = usage.all_projects(conn, selection, sort, now)
    return util.json_response(req, document)


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.object_errors
def get_project_usage(req):
    project_id = util.path_arg(req, 'project_id')
    params = _params(req, {*arguments.SELECTION, 'detail'},
                     repeatable=set(arguments.SELECTION))
    context, now = _report(req, policies.USAGE, {'project_id': project_id})
    selection = arguments.selection(params)
    with context.db.reader() as conn:
        document = usage.one_project(conn, project_id, selection,
                                     'detail' in params, now)
    return util.json_response(req, document)


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.object_errors
def get_headroom(req):
    params = _params(req, {'resources', 'required', *arguments.SCOPE},
                     repeatable={'required', 'member_of'})
    context, _now = _report(req, policies.HEADROOM)
    shape = arguments.shape(params)
    scope = arguments.scope(params)
    with context.db.reader() as conn:
        document = headroom.report(
            conn, zones.Zones.from_conf(context.config), shape, scope)
    return util.json_response(req, document)


def _file_response(name):
    if name not in _ASSETS:
        raise webob.exc.HTTPNotFound(
            f'The resource could not be found: /reports/static/{name}')
    content_type, _encoding = mimetypes.guess_type(name)
    response = webob.Response(body=(_STATIC / name).read_bytes(),
                              content_type=content_type, charset='utf-8')
    response.cache_control = 'no-cache'
    return response


@wsgi_wrapper.PlacementWsgify
def page(req):
    """The web page; it asks for a token and reads the JSON reports."""
    return _file_response(_PAGE)


@wsgi_wrapper.PlacementWsgify
def static_file(req):
    return _file_response(util.path_arg(req, 'name'))


@wsgi_wrapper.PlacementWsgify
def to_page(req):
    """/reports redirects to /reports/, relative to which assets load."""
    raise webob.exc.HTTPFound(location=req.path_url + '/')
