"""Handlers of usages: GET /resource_providers/{uuid}/usages, GET /usages."""

import jsonschema
import webob.exc

from placement import errors
from placement import microversion
from placement import util
from placement import wsgi_wrapper
from placement.objects import usage as usage_obj
from placement.policies import usage as policies
from placement.schemas import usage as schema

_VALUE_CHECKERS = {
    name: jsonschema.Draft202012Validator(value_schema)
    for name, value_schema in schema.QUERY_VALUES.items()}


@wsgi_wrapper.PlacementWsgify
def list_provider_usages(req):
    """Per class, the sum of the provider's allocations.

    Last-Modified (from 1.15) is the time of the answer: usage is a
    question about now, not about when some record changed.
    """
    context = req.environ['placement.context']
    provider, usages = context.db.read(
        usage_obj.of_provider_uuid, util.path_arg(req, 'uuid'))
    return util.json_response(req, {
        'resource_provider_generation': provider.generation,
        'usages': usages,
    })


def _usages_params(req):
    """The validated ``project_id``, ``user_id`` and ``consumer_type``."""
    allowed = {'project_id', 'user_id'}
    if microversion.at_least(req, microversion.CONSUMER_TYPES):
        allowed.add('consumer_type')
    params = util.query_params(req, allowed)
    if 'project_id' not in params:
        raise webob.exc.HTTPBadRequest(
            "Invalid query string parameters: 'project_id' is a required "
            "property", comment=errors.QUERYPARAM_MISSING_VALUE)
    for name, value in params.items():
        if not _VALUE_CHECKERS[name].is_valid(value):
            raise webob.exc.HTTPBadRequest(
                f'Invalid query string parameters: {name}={value!r} '
                f'is not valid', comment=errors.QUERYPARAM_BAD_VALUE)
    return params


@wsgi_wrapper.PlacementWsgify
def list_usages(req):
    """Sums of the allocations of a project's (and user's) consumers.

    Before 1.38 one total per class; from 1.38 grouped by consumer type,
    each group with its ``consumer_count``. The requested project is the
    policy target: a project reader sees its own project only. So the
    rule is enforced here, after the query string is validated
    (``query_before_policy`` in the operation table).
    """
    context = req.environ['placement.context']
    params = _usages_params(req)
    project_id = params['project_id']
    user_id = params.get('user_id')
    context.can(policies.TOTAL_USAGES,
                {'project_id': project_id, 'user_id': user_id})
    by_type = microversion.at_least(req, microversion.CONSUMER_TYPES)
    consumer_type = (params.get('consumer_type') if by_type
                     else usage_obj.ALL_TYPES)
    usages = context.db.read(usage_obj.of_project, project_id, user_id,
                             consumer_type)
    if not by_type:
        usages = usages.get(usage_obj.ALL_TYPES, {})
        usages.pop('consumer_count', None)
    return util.json_response(req, {'usages': usages})
