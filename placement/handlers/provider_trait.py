"""Handlers of /resource_providers/{uuid}/traits (from 1.6)."""

from placement import request_checks
from placement import util
from placement.objects import association
from placement.objects import name_table
from placement.objects import provider_trait


def _response(names, generation, last_modified):
    """The traits body; Last-Modified: when the provider last changed."""
    return util.Result({
        'traits': names,
        'resource_provider_generation': generation,
    }, last_modified=last_modified, dated=True)


def get_traits(req):
    context = req.environ['placement.context']
    generation, changed, names = context.db.read(
        provider_trait.of_provider, util.path_arg(req, 'uuid'))
    return _response(names, generation, name_table.dated(changed))


def set_traits(req):
    context = req.environ['placement.context']
    data = request_checks.body(req)
    provider = association.write(
        context.db, provider_trait.replace_of, util.path_arg(req, 'uuid'),
        data['resource_provider_generation'], data['traits'])
    return _response(sorted(data['traits']), provider.generation,
                     name_table.last_modified(provider))


def delete_traits(req):
    context = req.environ['placement.context']
    association.write(context.db, provider_trait.clear_of,
                      util.path_arg(req, 'uuid'))
    return util.Result()
