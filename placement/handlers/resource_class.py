"""Resource classes API (microversion 1.2 and later).

Standard classes come from os-resource-classes and are read-only; custom
classes (``CUSTOM_*``) are created, renamed (before 1.7) and deleted here.
"""

import jsonschema
import webob.exc

from placement import microversion
from placement import util
from placement import wsgi_wrapper
from placement.objects import resource_class as rc_obj
from placement.policies import resource_class as policies
from placement.schemas import resource_class as schema

_INVALID_NAME = (
    'Invalid resource class name: a custom resource class name must be '
    'no longer than 255 characters, start with the prefix "CUSTOM_" and '
    'use only the characters "A"-"Z", "0"-"9" and "_".')
_NAME_CHECKER = jsonschema.Draft202012Validator(schema.CUSTOM_NAME)


def _href(req, name):
    return f'{req.script_name}/resource_classes/{name}'


def _render(req, name):
    return {'name': name,
            'links': [{'rel': 'self', 'href': _href(req, name)}]}


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def list_resource_classes(req):
    context = req.environ['placement.context']
    context.can(policies.LIST)
    rows = context.db.read(rc_obj.get_all)
    # The list always includes the standard classes, whose rows have no
    # meaningful timestamp: Last-Modified is now.
    return util.json_response(
        req, {'resource_classes': [_render(req, row.name) for row in rows]})


@wsgi_wrapper.PlacementWsgify
@util.require_content('application/json')
def create_resource_class(req):
    context = req.environ['placement.context']
    context.can(policies.CREATE)
    name = util.extract_json(req.body, schema.NAME_BODY)['name']
    context.db.write(rc_obj.create, name)
    return util.empty_response(201, location=_href(req, name))


@wsgi_wrapper.PlacementWsgify
@util.check_accept('application/json')
def get_resource_class(req):
    context = req.environ['placement.context']
    context.can(policies.SHOW)
    name = util.path_arg(req, 'name')
    row = context.db.read(rc_obj.get_by_name, name)
    return util.json_response(req, _render(req, row.name),
                              last_modified=rc_obj.last_modified(row))


@wsgi_wrapper.PlacementWsgify
def update_resource_class(req):
    """Before 1.7 rename a custom class; from 1.7 create it if missing."""
    context = req.environ['placement.context']
    context.can(policies.UPDATE)
    name = util.path_arg(req, 'name')
    if microversion.at_least(req, 7):
        return _ensure_resource_class(req, context, name)
    return _rename_resource_class(req, context, name)


def _ensure_resource_class(req, context, name):
    """201 when custom class ``name`` was created, 204 if it existed."""
    if not _NAME_CHECKER.is_valid(name):
        raise webob.exc.HTTPBadRequest(_INVALID_NAME)
    created = context.db.write(rc_obj.ensure, name)
    return util.empty_response(201 if created else 204,
                               location=_href(req, name))


@util.check_accept('application/json')
@util.require_content('application/json')
def _rename_resource_class(req, context, name):
    new_name = util.extract_json(req.body, schema.NAME_BODY)['name']
    context.db.write(rc_obj.rename, name, new_name)
    return util.json_response(req, _render(req, new_name))


@wsgi_wrapper.PlacementWsgify
def delete_resource_class(req):
    context = req.environ['placement.context']
    context.can(policies.DELETE)
    name = util.path_arg(req, 'name')
    context.db.write(rc_obj.delete, name)
    return util.empty_response()
