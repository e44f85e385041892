"""Resource classes API (microversion 1.2 and later).

Standard classes come from os-resource-classes and are read-only; custom
classes (``CUSTOM_*``) are created, renamed (before 1.7) and deleted here.
"""

import jsonschema
import webob.exc

from placement import microversion
from placement import request_checks
from placement import util
from placement.objects import resource_class as rc_obj
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


def list_resource_classes(req):
    context = req.environ['placement.context']
    rows = context.db.read(rc_obj.get_all)
    # The list always includes the standard classes, whose rows have no
    # meaningful timestamp: Last-Modified is now.
    return util.Result(
        {'resource_classes': [_render(req, row.name) for row in rows]})


def create_resource_class(req):
    context = req.environ['placement.context']
    name = request_checks.body(req)['name']
    context.db.write(rc_obj.create, name)
    return util.Result(location=_href(req, name))


def get_resource_class(req):
    context = req.environ['placement.context']
    name = util.path_arg(req, 'name')
    row = context.db.read(rc_obj.get_by_name, name)
    return util.Result(_render(req, row.name),
                       last_modified=rc_obj.last_modified(row))


def update_resource_class(req):
    """Before 1.7 rename a custom class; from 1.7 create it if missing."""
    context = req.environ['placement.context']
    name = util.path_arg(req, 'name')
    if microversion.at_least(req, microversion.IDEMPOTENT_RESOURCE_CLASS):
        return _ensure_resource_class(req, context, name)
    return _rename_resource_class(req, context, name)


def _ensure_resource_class(req, context, name):
    """201 when custom class ``name`` was created, 204 if it existed."""
    error = jsonschema.exceptions.best_match(_NAME_CHECKER.iter_errors(name))
    if error is not None:
        # jsonschema's words too, as upstream's ("Failed validating
        # 'pattern'"), which its clients' tests match.
        raise webob.exc.HTTPBadRequest(f'{_INVALID_NAME} {error}')
    created = context.db.write(rc_obj.ensure, name)
    return util.Result(status=201 if created else 204,
                       location=_href(req, name))


def _rename_resource_class(req, context, name):
    new_name = request_checks.body(req)['name']
    context.db.write(rc_obj.rename, name, new_name)
    return util.Result(_render(req, new_name))


def delete_resource_class(req):
    context = req.environ['placement.context']
    name = util.path_arg(req, 'name')
    context.db.write(rc_obj.delete, name)
    return util.Result()
