"""The OpenAPI 3.1 document of the API, generated from the operation table.

One OpenAPI operation per method and URL of the operation table it is
given (:data:`placement.operations.OPERATIONS`), and of the JSON reports
(:data:`placement.operations.REPORTS`: they answer at any
microversion). OpenAPI has no notion of microversions, so what depends
on one carries an ``x-openstack-microversion`` extension, ``{"min":
"1.14", "max": "1.39"}`` (inclusive; ``max`` is the newest microversion
when nothing ends the range earlier):

- on the operation: the microversions at which it exists (before
  ``min`` it is 404, or 405 where the operation says so);
- on a query parameter: the microversions that accept it (before, it is
  400); a group parameter of GET /allocation_candidates lists in
  ``x-openstack-group-suffix`` the suffixes its name may carry (a
  request group of its own), each with its microversions;
- on each branch of a request or response body schema that changes with
  the microversion: the body is an ``anyOf`` of the variants, each
  branch saying when it applies;
- on a response: the microversions that answer with that status.

The JSON reports (``/reports/...``) are outside the microversioned API:
they answer the same at any microversion.

Error responses use the API-WG error schema (``Error``) and list their
``code`` values (sent from 1.23) in ``x-openstack-error-codes``.
The microversion is requested with the ``OpenStack-API-Version`` header
parameter; authentication is a keystone token in ``X-Auth-Token``.
"""

import json
import re

from placement import contract
from placement import errors
from placement import microversion
from placement.schemas import response

_ERROR_REF = {'$ref': '#/components/schemas/Error'}
_VERSION_HEADER = {'$ref': '#/components/parameters/OpenStackAPIVersion'}
_REASONS = {
    200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request',
    401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
    405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict',
    415: 'Unsupported Media Type',
}
_ERROR_CAUSES = {
    400: 'A malformed OpenStack-API-Version header, query string or body.',
    401: 'No or an invalid token.',
    403: 'The policy rule refuses the caller.',
    404: 'The resource does not exist (or not at this microversion).',
    405: 'The method does not exist at this microversion.',
    406: 'An unsupported microversion, or an Accept header without '
         'application/json.',
    409: 'A conflict with the current state (see the codes).',
    415: 'A body that is not application/json.',
}


def _range(versions, within=contract.ALL):
    """``versions`` as ``{min, max}``, clamped to ``within`` (the
    operation's own range: a parameter declared for every microversion
    exists only where its operation does)."""
    first = max(versions.first, within.first)
    last = min((version for version in (versions.last, within.last)
                if version is not None), default=microversion.MAX_VERSION)
    return {'min': str(first), 'max': str(last)}


def _variants(items, within):
    """One schema for items with ``schema`` and ``versions``: the schema
    itself when it holds at every microversion, with its microversions
    when it is alone, else an ``anyOf`` of the variants."""
    branches = [{**item.schema, 'x-openstack-microversion':
                 _range(item.versions, within)} for item in items]
    if len(items) == 1:
        if items[0].versions == contract.ALL:
            return items[0].schema
        return branches[0]
    return {'anyOf': branches}


def _parameters(operation):
    parameters = [_VERSION_HEADER]
    for name in re.findall(r'{(\w+)}', operation.path):
        description, schema, example = contract.PATH_PARAMETERS[name]
        parameters.append({'name': name, 'in': 'path', 'required': True,
                           'description': description, 'schema': schema,
                           'example': example})
    for param in operation.query:
        schema, description = param.schema, param.description
        if param.repeatable_since is not None:
            schema = {'type': 'array', 'items': schema}
            description += (f' May be repeated from '
                            f'{param.repeatable_since}.')
        parameter = {
            'name': param.name, 'in': 'query', 'required': param.required,
            'description': description, 'schema': schema,
            'style': 'form', 'explode': True,
            'x-openstack-microversion': _range(param.versions,
                                               operation.versions),
        }
        if param.suffixes:
            parameter['x-openstack-group-suffix'] = [
                {'pattern': f'^{suffix}$',
                 'x-openstack-microversion': _range(versions,
                                                   operation.versions)}
                for versions, suffix in param.suffixes]
        parameters.append(parameter)
    return parameters


def _request_body(operation):
    if not operation.bodies:
        return None
    covered = all(
        any(microversion.v1(minor) in body.versions
            for body in operation.bodies)
        for minor in range(operation.versions.first.minor,
                           microversion.MAX_VERSION.minor + 1))
    schema = _variants(operation.bodies, operation.versions)
    return {'required': covered, 'content': {
        media_type: {'schema': schema} for media_type in operation.consumes}}


def _success_responses(operation):
    by_status = {}
    for item in operation.responses:
        by_status.setdefault(item.status, []).append(item)
    result = {}
    for status, items in sorted(by_status.items()):
        entry = {'description': _REASONS[status]}
        if len(items) == 1:
            entry['x-openstack-microversion'] = _range(items[0].versions,
                                                       operation.versions)
        else:
            entry['x-openstack-microversion'] = [
                _range(item.versions, operation.versions) for item in items]
        with_body = [item for item in items if item.schema is not None]
        if with_body:
            entry['content'] = {
                media_type: {'schema': _variants(with_body,
                                                 operation.versions)}
                for media_type in operation.produces}
        headers = {name for item in items for name in item.headers}
        if headers:
            entry['headers'] = {name: {'schema': {'type': 'string'}}
                                for name in sorted(headers)}
        result[str(status)] = entry
    return result


def _error_statuses(operation):
    """``{status: codes}``: the operation's own errors and the common ones."""
    statuses = dict(contract.COMMON_ERRORS)
    if operation.authenticated:
        statuses.update(contract.AUTH_ERRORS)
    if operation.versions.first > microversion.MIN_VERSION:
        statuses[operation.too_early_status] = (errors.DEFAULT,)
    if operation.consumes:
        statuses[415] = (errors.DEFAULT,)
    for status, codes in operation.errors.items():
        statuses[status] = tuple(dict.fromkeys(
            (*statuses.get(status, ()), *codes)))
    return statuses


def _error_responses(operation):
    return {str(status): {
        'description': _ERROR_CAUSES[status],
        'content': {'application/json': {'schema': _ERROR_REF}},
        'x-openstack-error-codes': list(codes),
    } for status, codes in sorted(_error_statuses(operation).items())}


def _operation_id(operation):
    words = re.findall(r'[a-z_]+', operation.path.replace('.', '_'))
    return '_'.join([operation.method.lower(), *words]) or 'get_root'


def _operation(operation):
    document = {
        'operationId': _operation_id(operation),
        'summary': operation.summary,
        'x-openstack-microversion': _range(operation.versions),
        'parameters': _parameters(operation),
        'responses': {**_success_responses(operation),
                      **_error_responses(operation)},
    }
    if operation.authenticated:
        document['x-openstack-policy'] = operation.policy
    else:
        document['security'] = []
    body = _request_body(operation)
    if body is not None:
        document['requestBody'] = body
    return document


def _error_schema():
    schema = json.loads(json.dumps(response.ERROR))
    item = schema['properties']['errors']['items']
    item['properties']['code']['enum'] = sorted(errors.ALL_CODES)
    schema['examples'] = [{'errors': [{
        'status': 404, 'title': 'Not Found',
        'detail': 'No resource provider with uuid '
                  'b8c3c3c4-8e26-4e1a-9b8a-2b6c9f1f4a11 found',
        'request_id': 'req-8b6d3b4e-5c1f-4f3a-9a55-1f0a3c2d9e77',
        'code': errors.RESOURCE_PROVIDER_NOT_FOUND,
    }]}]
    return schema


def document(operations, reports):
    """The OpenAPI document of the API's ``operations`` and of the JSON
    ones of ``reports``, as a JSON-serialisable dict."""
    paths = {}
    # The page, its assets and the metrics are not JSON.
    for operation in operations + tuple(
            report for report in reports if report.produces):
        paths.setdefault(operation.path, {})[operation.method.lower()] = (
            _operation(operation))
    return {
        'openapi': '3.1.0',
        'info': {
            'title': 'OpenStack Placement API',
            'version': microversion.MAX_VERSION_STRING,
            'description': (
                'Microversions '
                f'{microversion.MIN_VERSION_STRING} to '
                f'{microversion.MAX_VERSION_STRING}, requested with the '
                'OpenStack-API-Version header (default: the oldest). '
                'x-openstack-microversion says at which microversions an '
                'operation, a parameter, a body variant or a response '
                'applies.'),
            'license': {'name': 'Apache-2.0',
                        'identifier': 'Apache-2.0'},
        },
        'servers': [{'url': '/', 'description': (
            'The service\'s root: the URL of its endpoint in the '
            'keystone catalog.')}],
        'security': [{'keystone': []}],
        'paths': paths,
        'components': {
            'securitySchemes': {'keystone': {
                'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token',
                'description': 'A keystone token.'}},
            'parameters': {'OpenStackAPIVersion': {
                'name': 'OpenStack-API-Version', 'in': 'header',
                'required': False,
                'description': 'The microversion: ``placement 1.N`` or '
                               '``placement latest``.',
                'schema': {'type': 'string',
                           'pattern': r'^placement (latest|1\.[0-9]+)$'},
                'examples': {'latest': {
                    'value': f'placement {microversion.MAX_VERSION_STRING}'}},
            }},
            'schemas': {'Error': _error_schema()},
        },
    }


def dumps(operations, reports):
    """The document as committed in ``api-ref/openapi.json``."""
    return json.dumps(document(operations, reports), indent=2) + '\n'
