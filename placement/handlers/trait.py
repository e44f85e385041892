"""Traits API (microversion 1.6 and later).

Standard traits come from os-traits and are read-only; custom traits
(``CUSTOM_*``) are created and deleted here. The traits of a resource
provider are handled elsewhere.
"""

import jsonschema
import webob.exc

from placement import query
from placement import util
from placement.objects import name_table
from placement.objects import trait as trait_obj
from placement.schemas import trait as schema

_INVALID_NAME = (
    'The trait is invalid. A valid trait must be no longer than 255 '
    'characters, start with the prefix "CUSTOM_" and use following '
    'characters: "A"-"Z", "0"-"9" and "_"')
_NAME_CHECKER = jsonschema.Draft202012Validator(schema.CUSTOM_TRAIT)
_BOOLEANS = {'true': True, 'false': False}


def _href(req, name):
    return f'{req.script_name}/traits/{name}'


def _name_filter(value):
    """``name=in:A,B`` or ``name=startswith:PREFIX`` as get_all filters."""
    operator, colon, argument = value.partition(':')
    if operator == 'in' and colon:
        return {'name_in': argument.split(',')}
    if operator == 'startswith' and colon:
        return {'prefix': argument}
    raise webob.exc.HTTPBadRequest(
        f'Badly formatted name parameter. Expected name query string '
        f'parameter in form: ?name=[in|startswith]:[name1,name2|prefix]. '
        f'Got: "{value}"')


def _associated_filter(value):
    try:
        return {'associated': _BOOLEANS[value.lower()]}
    except KeyError:
        raise webob.exc.HTTPBadRequest(
            'The query parameter "associated" only accepts "true" or '
            '"false"') from None


def list_traits(req):
    context = req.environ['placement.context']
    params = query.of(req)
    filters = {}
    if 'name' in params:
        filters.update(_name_filter(params['name']))
    if 'associated' in params:
        filters.update(_associated_filter(params['associated']))
    rows = context.db.read(trait_obj.get_all, **filters)
    return util.Result({'traits': [row.name for row in rows]},
                       last_modified=name_table.newest(rows))


def get_trait(req):
    """204 when the trait exists: there is nothing more to say about it."""
    context = req.environ['placement.context']
    name = util.path_arg(req, 'name')
    row = context.db.read(trait_obj.get_by_name, name)
    return util.Result(last_modified=name_table.last_modified(row))


def put_trait(req):
    """201 when custom trait ``name`` was created, 204 if it existed."""
    context = req.environ['placement.context']
    name = util.path_arg(req, 'name')
    if not _NAME_CHECKER.is_valid(name):
        raise webob.exc.HTTPBadRequest(_INVALID_NAME)
    row, created = context.db.write(trait_obj.ensure, name)
    return util.Result(status=201 if created else 204,
                       location=_href(req, name),
                       last_modified=row and name_table.last_modified(row),
                       dated=True)


def delete_trait(req):
    context = req.environ['placement.context']
    name = util.path_arg(req, 'name')
    context.db.write(trait_obj.delete, name)
    return util.Result()
