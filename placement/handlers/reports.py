"""Handlers of the operators' reports under /reports (not microversioned).

The JSON reports (:mod:`placement.reports.declared`) are answered by
:func:`answering`; GET /reports/ is the web page, which reads only
those, and /reports/static/{name} its assets.
"""

import importlib.resources
import mimetypes

import webob
import webob.exc

from placement import microversion
from placement import query
from placement import util

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


def answering(report):
    """The handler of ``report``
    (:class:`placement.reports.declaration.Report`).

    Its arguments are checked as every query string is (unknown ones
    and repeats of a single one are 400), then its policy rule against
    its target: here, not before the handler (``query_before_policy``
    in the operation table).
    """
    def answer(req):
        if report.refuses_arguments and (given := query.given(req)):
            raise webob.exc.HTTPBadRequest(
                'Invalid query string parameters: '
                f'{next(iter(given))!r} was unexpected '
                f'{report.refuses_arguments}')
        params, variables = report.inputs(microversion.of(req),
                                          query.of(req))
        variables.update((name, util.path_arg(req, name))
                         for name in report.variables())
        context = req.environ['placement.context']
        context.can(report.policy.name, report.target(variables))
        return util.Result(context.db.read(
            report.build, context.config, params, **variables))
    return answer


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
