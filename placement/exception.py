"""Exceptions of the object layer; handlers turn them into HTTP errors.

Each carries the HTTP status class and error code a handler should use, so
that the common cases need no per-handler mapping (see
:func:`placement.util.raise_http`).
"""

import webob.exc

from placement import errors


class PlacementError(Exception):
    """Base: a 400 with the undefined code unless a subclass says more."""

    http_error = webob.exc.HTTPBadRequest
    code = errors.DEFAULT


class NotFound(PlacementError):
    http_error = webob.exc.HTTPNotFound


class Conflict(PlacementError):
    http_error = webob.exc.HTTPConflict


class ConcurrentUpdate(Conflict):
    """A generation did not match: someone else changed the entity."""

    code = errors.CONCURRENT_UPDATE


class DuplicateName(Conflict):
    code = errors.DUPLICATE_NAME


class InventoryInUse(Conflict):
    code = errors.INVENTORY_INUSE


class ProviderInUse(Conflict):
    code = errors.PROVIDER_IN_USE


class CannotDeleteParentProvider(Conflict):
    code = errors.PROVIDER_CANNOT_DELETE_PARENT


class BadRequest(PlacementError):
    """Semantically invalid input found by the object layer."""


class ResourceProviderNotFound(BadRequest):
    """A provider named in a multi-provider operation does not exist."""

    code = errors.RESOURCE_PROVIDER_NOT_FOUND
