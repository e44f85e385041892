"""The query string of a request, validated in one pass as upstream does.

The router calls :func:`parse` once, with the routed
:class:`~placement.contract.Operation`, after the request checks of
:mod:`placement.request_checks` and before the handler, which reads the
result with :func:`of`. The rules (one JSON schema per microversion
range, which value of a repetition counts, the messages clients match)
are :mod:`placement.query_values`', which ``placement-manage report``
reads a query string with too; its
:class:`~placement.exception.InvalidQuery` is the 400 answered.
"""

from placement import microversion
from placement import query_values

ENVIRON = 'placement.query'


def parse(operation, req):
    """The validated query string of ``req`` for routed ``operation``,
    as :class:`placement.query_values.Params`; else 400."""
    return query_values.parse(operation.query, microversion.of(req),
                              _pairs(req), (operation.method, operation.path))


def _pairs(req):
    """The query string's pairs, decoded as they are read (webob decodes
    them on first access: a bad escape is refused in the core's words).
    """
    yield from req.GET.items()


def given(req):
    """``{name: [values]}`` of the query string as sent, for an operation
    that declares no parameter (whose query :func:`parse` ignores): a
    bad escape is refused as :func:`parse` refuses it, not a 500."""
    return query_values.decoded(_pairs(req))


def of(req):
    """The query parameters :func:`parse` made of ``req``."""
    return req.environ[ENVIRON]
