"""Handlers of usages: GET /resource_providers/{uuid}/usages."""

from placement import exception
from placement import util
from placement import wsgi_wrapper
from placement.objects import resource_provider
from placement.objects import usage as usage_obj
from placement.policies import usage as policies


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
def list_provider_usages(req):
    """Per class, the sum of the provider's allocations.

    Last-Modified (from 1.15) is the time of the answer: usage is a
    question about now, not about when some record changed.
    """
    context = req.environ['placement.context']
    context.can(policies.PROVIDER_USAGES)
    try:
        with context.db.reader() as conn:
            provider = resource_provider.get_by_uuid(
                conn, util.path_arg(req, 'uuid'))
            usages = usage_obj.of_provider(conn, provider.id)
    except exception.PlacementError as exc:
        util.raise_http(exc)
    return util.json_response(req, {
        'resource_provider_generation': provider.generation,
        'usages': usages,
    })
