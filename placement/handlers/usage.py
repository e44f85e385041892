"""Handlers of usages: GET /resource_providers/{uuid}/usages, GET /usages."""

from placement import microversion
from placement import query
from placement import util
from placement.objects import usage as usage_obj
from placement.policies import usage as policies


def list_provider_usages(req):
    """Per class, the sum of the provider's allocations.

    Last-Modified (from 1.15) is the time of the answer: usage is a
    question about now, not about when some record changed.
    """
    context = req.environ['placement.context']
    provider, usages = context.db.read(
        usage_obj.of_provider_uuid, util.path_arg(req, 'uuid'))
    return util.Result({
        'resource_provider_generation': provider.generation,
        'usages': usages,
    })


def list_usages(req):
    """Sums of the allocations of a project's (and user's) consumers.

    Before 1.38 one total per class; from 1.38 grouped by consumer type,
    each group with its ``consumer_count``. The requested project is the
    policy target: a project reader sees its own project only. So the
    rule is enforced here, after the query string is validated
    (``query_before_policy`` in the operation table).
    """
    context = req.environ['placement.context']
    params = query.of(req)
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
    return util.Result({'usages': usages})
