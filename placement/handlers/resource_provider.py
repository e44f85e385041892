"""Handlers of /resource_providers and /resource_providers/{uuid}."""

from oslo_utils import uuidutils

from placement import microversion
from placement import util
from placement import wsgi_wrapper
from placement.handlers import provider_query
from placement.objects import name_table
from placement.objects import provider_filter
from placement.objects import resource_provider as rp_obj
from placement.policies import resource_provider as policies
from placement.schemas import resource_provider as schema

# Microversions of the provider representation.
_NESTED = 14                 # parent_provider_uuid, root_provider_uuid
_POST_RETURNS_PROVIDER = 20  # POST answers 200 with the provider
_REPARENTING = 37            # PUT may change or remove a parent

# Link relations after ``self``, with the microversion that added each.
_LINKS = (
    ('aggregates', 1),
    ('inventories', 0),
    ('usages', 0),
    ('traits', 6),
    ('allocations', 11),
)


def provider_url(req, uuid):
    """The path of provider ``uuid`` under the application's root."""
    return f'{req.script_name}/resource_providers/{uuid}'


def link_relations(req):
    """The relations of a provider's links at the request's version."""
    return [rel for rel, minor in _LINKS if microversion.at_least(req, minor)]


def serialize(req, row, relations=None):
    """The representation of provider ``row`` at the request's version;
    ``relations`` are its :func:`link_relations` if known."""
    if relations is None:
        relations = link_relations(req)
    url = provider_url(req, row.uuid)
    links = [{'rel': 'self', 'href': url}]
    links.extend({'rel': rel, 'href': f'{url}/{rel}'} for rel in relations)
    data = {
        'uuid': row.uuid,
        'name': row.name,
        'generation': row.generation,
        'links': links,
    }
    if microversion.at_least(req, _NESTED):
        data['parent_provider_uuid'] = row.parent_provider_uuid
        data['root_provider_uuid'] = row.root_provider_uuid
    return data


def _provider_response(req, row):
    """200 with the provider; Last-Modified from 1.15 (also on writes)."""
    response = util.json_response(req, serialize(req, row))
    util.add_last_modified(req, response, name_table.last_modified(row))
    return response


def _versioned(req, base, nested):
    return nested if microversion.at_least(req, _NESTED) else base


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
def list_resource_providers(req):
    context = req.environ['placement.context']
    context.can(policies.LIST)
    filters = provider_query.list_filter(req)
    rows = context.db.read(provider_filter.list_providers, filters)
    relations = link_relations(req)
    return util.json_response(
        req, {'resource_providers': [serialize(req, row, relations)
                                     for row in rows]},
        last_modified=name_table.newest(rows))


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.require_content(util.JSON)
def create_resource_provider(req):
    context = req.environ['placement.context']
    context.can(policies.CREATE)
    data = util.extract_json(req.body, _versioned(
        req, schema.POST_RESOURCE_PROVIDER,
        schema.POST_RESOURCE_PROVIDER_V1_14))
    uuid = rp_obj.canonical_uuid(data.get('uuid') or
                                 uuidutils.generate_uuid())
    parent_uuid = data.get('parent_provider_uuid')
    row = rp_obj.write_tree(
        context.db, rp_obj.create, data['name'], uuid,
        parent_uuid and rp_obj.canonical_uuid(parent_uuid))
    location = provider_url(req, row.uuid)
    if not microversion.at_least(req, _POST_RETURNS_PROVIDER):
        return util.empty_response(201, location)
    response = _provider_response(req, row)
    response.location = location
    return response


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
def get_resource_provider(req):
    context = req.environ['placement.context']
    context.can(policies.SHOW)
    row = context.db.read(rp_obj.get_by_uuid, util.path_arg(req, 'uuid'))
    return _provider_response(req, row)


@wsgi_wrapper.PlacementWsgify
@util.check_accept(util.JSON)
@util.require_content(util.JSON)
def update_resource_provider(req):
    context = req.environ['placement.context']
    context.can(policies.UPDATE)
    uuid = util.path_arg(req, 'uuid')
    # A missing provider is 404 before its body is looked at.
    context.db.read(rp_obj.get_by_uuid, uuid, primary=True)
    data = util.extract_json(req.body, _versioned(
        req, schema.PUT_RESOURCE_PROVIDER,
        schema.PUT_RESOURCE_PROVIDER_V1_14))
    parent_uuid = rp_obj.KEEP_PARENT
    if 'parent_provider_uuid' in data:
        parent_uuid = data['parent_provider_uuid']
        parent_uuid = parent_uuid and rp_obj.canonical_uuid(parent_uuid)
    row = rp_obj.write_tree(
        context.db, rp_obj.update, uuid, data['name'], parent_uuid,
        allow_reparenting=microversion.at_least(req, _REPARENTING))
    return _provider_response(req, row)


@wsgi_wrapper.PlacementWsgify
def delete_resource_provider(req):
    context = req.environ['placement.context']
    context.can(policies.DELETE)
    rp_obj.write_tree(context.db, rp_obj.delete, util.path_arg(req, 'uuid'))
    return util.empty_response(204)
