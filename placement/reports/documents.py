"""Each report's document from its arguments: what HTTP and CLI share.

``params`` is ``{argument name: [values]}`` as :mod:`arguments` reads it;
``detail`` is given when present, whatever its value.
"""

import time

from placement.handlers import provider_query
from placement.reports import arguments
from placement.reports import audit as audit_report
from placement.reports import capacity as capacity_report
from placement.reports import explain as explain_report
from placement.reports import headroom as headroom_report
from placement.reports import usage as usage_report
from placement.reports import zones

CAPACITY_ARGUMENTS = {*arguments.SELECTION, *arguments.SCOPE, 'detail'}
USAGE_ARGUMENTS = {*arguments.SELECTION, 'sort'}
PROJECT_USAGE_ARGUMENTS = {*arguments.SELECTION, 'detail'}
HEADROOM_ARGUMENTS = {'resources', 'required', *arguments.SCOPE}
AUDIT_ARGUMENTS = set()
#: The arguments that may be given several times.
REPEATABLE = {*arguments.SELECTION, 'member_of', 'required'}


def _now():
    """The UNIX time of the answer: placement data is live."""
    return int(time.time())


def capacity(conn, conf, params):
    return capacity_report.report(
        conn, zones.Zones.from_conf(conf), arguments.selection(params),
        arguments.scope(params), 'detail' in params, _now())


def usage(conn, conf, params):
    sort = params.get('sort', [None])[-1]
    return usage_report.all_projects(
        conn, arguments.selection(params), sort, _now())


def project_usage(conn, conf, params, project_id):
    return usage_report.one_project(
        conn, project_id, arguments.selection(params), 'detail' in params,
        _now())


def headroom(conn, conf, params):
    return headroom_report.report(
        conn, zones.Zones.from_conf(conf), arguments.shape(params),
        arguments.scope(params))


def audit(conn, conf, params):
    return audit_report.report(conn)


def explain(conn, conf, params, request, max_misses):
    """``request``: the :class:`CandidateRequest` the query made, read
    as GET /allocation_candidates reads it (by the caller, which knows
    the microversion)."""
    with provider_query.resources_named_known():
        return explain_report.report(conn, request, max_misses)
