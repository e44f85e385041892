"""Every response checked against the operation table, as a WSGI middleware.

:class:`ContractChecker` wraps the application the gabbits talk to: for
each request it finds the :class:`~placement.contract.Operation`
(method and URL template) and the negotiated microversion, and checks
that the response is one the table declares:

- a success status is that of a :class:`~placement.contract.Response`
  whose range holds the microversion, its JSON body validates against
  that Response's schema (no schema: no body) and its declared headers
  are present;
- an error status is one of :data:`~placement.contract.COMMON_ERRORS`,
  :data:`~placement.contract.AUTH_ERRORS` (authenticated operations)
  or the operation's ``errors``, or the router's own 404/405 (a URL not
  in the table, a method not declared for it, a method requested before
  its operation's microversions); from 1.23 its error code is one listed
  for that status.

A mismatch raises :class:`ContractViolation`, which fails the gabbi test
that sent the request. An operation declaring no responses (the reports
page and its assets) has only its errors checked; a CORS preflight is
the CORS middleware's answer, outside the table.
"""

import json

import jsonschema

from placement import contract
from placement import errors
from placement import microversion
from placement import operations
from placement import router

_ROUTER_ERRORS = {404: (errors.DEFAULT,), 405: (errors.DEFAULT,)}


class ContractViolation(AssertionError):
    """A response the operation table does not declare."""


class Contract:
    """The responses the table declares, by request."""

    def __init__(self, table=operations.OPERATIONS + operations.REPORTS):
        self._routes = router.Routes(table)

    def operation(self, method, path):
        """``(Operation or None, route_found)`` of a request."""
        found = self._routes.match(path)
        if found is None:
            return None, False
        _variables, methods = found
        return methods.get(method), True

    def check(self, method, path, version, status, headers, body):
        """Raise ContractViolation unless the response is declared.

        ``version`` is the negotiated microversion (None when the request
        stopped before it was negotiated); ``headers`` a dict with
        lower-case names; ``body`` bytes.
        """
        operation, routed = self.operation(method, path)
        where = f'{method} {path} at {version}: {status}'
        if status < 400:
            if operation is None:
                raise ContractViolation(
                    f'{where}: a success for an operation not in the table')
            if operation.responses:
                _check_success(operation, version, status, headers, body,
                               where)
            return
        allowed = _allowed_errors(operation, routed, version)
        if status not in allowed:
            raise ContractViolation(
                f'{where}: error status not declared (declared: '
                f'{sorted(allowed)}); body: {body[:500]!r}')
        _check_error_code(allowed[status], headers, body, where)


def _allowed_errors(operation, routed, version):
    """``{status: codes}`` the request may be answered with."""
    allowed = dict(contract.COMMON_ERRORS)
    if operation is None or operation.authenticated:
        allowed.update(contract.AUTH_ERRORS)
    if operation is None:
        # Not routed: the router's 404, or 405 for an undeclared method.
        status = 405 if routed else 404
        return {**allowed, status: _ROUTER_ERRORS[status]}
    if version is not None and version < operation.versions.first:
        status = operation.too_early_status
        return {**allowed, status: _ROUTER_ERRORS[status]}
    for status, codes in operation.errors.items():
        allowed[status] = tuple({*allowed.get(status, ()), *codes})
    return allowed


def _check_success(operation, version, status, headers, body, where):
    declared = [response for response in operation.responses
                if version is None or version in response.versions]
    matching = [response for response in declared
                if response.status == status]
    if not matching:
        raise ContractViolation(
            f'{where}: success status not declared (declared: '
            f'{sorted({response.status for response in declared})})')
    response = matching[0]
    missing = [name for name in response.headers
               if name.lower() not in headers]
    if missing:
        raise ContractViolation(
            f'{where}: declared headers missing: {missing}')
    if response.schema is None:
        if body:
            raise ContractViolation(
                f'{where}: a body where none is declared: {body[:500]!r}')
        return
    if not headers.get('content-type', '').startswith('application/json'):
        raise ContractViolation(
            f'{where}: not JSON: {headers.get("content-type")}')
    document = json.loads(body)
    validator = jsonschema.Draft202012Validator(response.schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        raise ContractViolation(
            f'{where}: the body does not match the declared schema: '
            f'{error.message} at {list(error.absolute_path)}; '
            f'body: {body[:500]!r}')


def _check_error_code(codes, headers, body, where):
    """From 1.23 a JSON error carries a code listed for its status."""
    if not headers.get('content-type', '').startswith('application/json'):
        return
    code = json.loads(body)['errors'][0].get('code')
    if code is not None and code not in codes:
        raise ContractViolation(
            f'{where}: error code {code} not declared (declared: '
            f'{sorted(codes)}); body: {body[:500]!r}')


def _is_preflight(environ):
    return (environ['REQUEST_METHOD'] == 'OPTIONS'
            and 'HTTP_ORIGIN' in environ
            and 'HTTP_ACCESS_CONTROL_REQUEST_METHOD' in environ)


class ContractChecker:
    """WSGI middleware: :meth:`Contract.check` on every response."""

    def __init__(self, application, contract=None):
        self.application = application
        self.contract = contract or Contract()

    def __call__(self, environ, start_response):
        method = environ['REQUEST_METHOD']
        path = environ.get('PATH_INFO', '')
        if _is_preflight(environ):
            return self.application(environ, start_response)
        captured = {}

        def capture(status, headers, exc_info=None):
            captured['status'] = int(status.split(None, 1)[0])
            captured['headers'] = {name.lower(): value
                                   for name, value in headers}
            return start_response(status, headers, exc_info)

        chunks = self.application(environ, capture)
        try:
            body = b''.join(chunks)
        finally:
            if hasattr(chunks, 'close'):
                chunks.close()
        self.contract.check(
            method, path, environ.get(microversion.MICROVERSION_ENVIRON),
            captured['status'], captured['headers'], body)
        return [body]
