"""Handlers of the operators' reports under /reports (not microversioned).

GET /reports/capacity, /reports/usage, /reports/usage/{project_id},
/reports/headroom, /reports/audit and /reports/explain answer JSON; GET
/reports/ is the web page, which reads only those, and
/reports/static/{name} its assets.
"""

import importlib.resources
import mimetypes

import webob
import webob.exc

from placement import query
from placement import util
from placement.policies import reports as policies
from placement.reports import documents
from placement.reports import explain

_STATIC = importlib.resources.files('placement.reports') / 'static'
#: The only names served: nothing outside the directory, whatever is asked.
_ASSETS = frozenset(path.name for path in _STATIC.iterdir() if path.is_file())
_PAGE = 'index.html'
#: What a browser may do with the page and its assets: load scripts,
#: styles and images from this service only (none inline), fetch only
#: the reports, and show the page in no frame of another site.
_PAGE_HEADERS = {
    'Content-Security-Policy': (
        "default-src 'none'; script-src 'self'; style-src 'self'; "
        "img-src 'self'; connect-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
}


def _answer(req, rule, build, target=None, **kwargs):
    """The JSON document ``build`` makes of the request's arguments.

    The arguments are checked as every query string is (unknown ones and
    repeats of a single one are 400), then the policy ``rule`` against
    ``target`` (the requester's own project by default): here, not
    before the handler (``query_before_policy`` in the operation table).
    """
    given = query.of(req)
    params = {name: given.every(name) for name in given}
    context = req.environ['placement.context']
    context.can(rule, target)
    return util.Result(
        context.db.read(build, context.config, params, **kwargs))


def get_capacity(req):
    return _answer(req, policies.CAPACITY, documents.capacity)


def list_usage(req):
    # No project in the target: only admins and services see them all.
    return _answer(req, policies.USAGE, documents.usage, {'project_id': None})


def get_project_usage(req):
    project_id = util.path_arg(req, 'project_id')
    return _answer(req, policies.USAGE, documents.project_usage,
                   {'project_id': project_id}, project_id=project_id)


def get_headroom(req):
    return _answer(req, policies.HEADROOM, documents.headroom)


def get_audit(req):
    """The audit takes no argument: one given (live consumers, say) is
    refused rather than ignored, so that nobody thinks it counted."""
    if req.GET:
        raise webob.exc.HTTPBadRequest(
            'Invalid query string parameters: '
            f'{next(iter(req.GET))!r} was unexpected '
            '(the audit takes none; the live consumers are an option of '
            'placement-manage audit)')
    return _answer(req, policies.AUDIT, documents.audit)


def get_explain(req):
    request, max_misses = explain.arguments(req, query.of(req))
    return _answer(req, policies.EXPLAIN, documents.explain,
                   request=request, max_misses=max_misses)


def _file_response(name):
    if name not in _ASSETS:
        raise webob.exc.HTTPNotFound(
            f'The resource could not be found: /reports/static/{name}')
    content_type, _encoding = mimetypes.guess_type(name)
    response = webob.Response(body=(_STATIC / name).read_bytes(),
                              content_type=content_type, charset='utf-8')
    response.cache_control = 'no-cache'
    response.headers.update(_PAGE_HEADERS)
    return response


def page(req):
    """The web page; it asks for a token and reads the JSON reports."""
    return _file_response(_PAGE)


def static_file(req):
    return _file_response(util.path_arg(req, 'name'))


def to_page(req):
    """/reports redirects to /reports/, relative to which assets load.

    The Location is the path: :mod:`placement.redirects` keeps it so,
    whatever the Host header says.
    """
    raise webob.exc.HTTPFound(location=req.path + '/')
