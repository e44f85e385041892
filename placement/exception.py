"""Exceptions of the object layer: what went wrong, not how to say it.

Each carries the HTTP ``status`` and the error ``code`` (from 1.23) its
answer has; :class:`placement.wsgi_wrapper.PlacementWsgify` renders any
that escapes a handler, so that handlers need no mapping of their own.
Nothing here knows webob: the object layer knows no HTTP.
"""

from placement import errors


class PlacementError(Exception):
    """Base: a 400 with the undefined code unless a subclass says more."""

    status = 400
    code = errors.DEFAULT


class NotFound(PlacementError):
    status = 404


class Conflict(PlacementError):
    status = 409


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


class UnknownResourceClass(BadRequest):
    """A request names a resource class that does not exist."""


class ResourceProviderNotFound(BadRequest):
    """A provider named in a multi-provider operation does not exist."""

    code = errors.RESOURCE_PROVIDER_NOT_FOUND


class InvalidQuery(BadRequest):
    """A query value (or a report's argument) that means nothing; its
    ``code`` is the one its meaning gives (from 1.23)."""

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code
