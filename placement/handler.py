"""The routing table: URL and method to handler, by microversion.

``ROUTE_DECLARATIONS`` maps each URL template to ``{method: Route}``, as
upstream does: a method never declared for a URL is 405 whatever the
microversion, with an ``Allow`` header naming every declared method; a
declared method requested at a microversion older than its route's is
404, the URL not existing yet, or 405 where the route says so (DELETE of
all inventories before 1.5, allowing the methods of that microversion).
"""

import dataclasses

import routes
import webob.exc

from placement import microversion
from placement import wsgi_wrapper
from placement.handlers import aggregate
from placement.handlers import allocation
from placement.handlers import allocation_candidate
from placement.handlers import inventory
from placement.handlers import provider_trait
from placement.handlers import reports
from placement.handlers import reshaper
from placement.handlers import resource_class
from placement.handlers import resource_provider
from placement.handlers import root
from placement.handlers import trait
from placement.handlers import usage


@dataclasses.dataclass(frozen=True)
class Route:
    handler: object
    min_version: str = microversion.MIN_VERSION_STRING
    #: The status of a request at a microversion before ``min_version``.
    too_early_status: int = 404


ROUTE_DECLARATIONS = {
    '/': {'GET': Route(root.home)},
    '/resource_providers': {
        'GET': Route(resource_provider.list_resource_providers),
        'POST': Route(resource_provider.create_resource_provider),
    },
    '/resource_providers/{uuid}': {
        'GET': Route(resource_provider.get_resource_provider),
        'PUT': Route(resource_provider.update_resource_provider),
        'DELETE': Route(resource_provider.delete_resource_provider),
    },
    '/resource_providers/{uuid}/aggregates': {
        'GET': Route(aggregate.get_aggregates, '1.1'),
        'PUT': Route(aggregate.set_aggregates, '1.1'),
    },
    '/resource_providers/{uuid}/traits': {
        'GET': Route(provider_trait.get_traits, '1.6'),
        'PUT': Route(provider_trait.set_traits, '1.6'),
        'DELETE': Route(provider_trait.delete_traits, '1.6'),
    },
    '/resource_providers/{uuid}/inventories': {
        'GET': Route(inventory.list_inventories),
        'PUT': Route(inventory.set_inventories),
        'POST': Route(inventory.create_inventory),
        'DELETE': Route(inventory.delete_inventories, '1.5',
                        too_early_status=405),
    },
    '/resource_providers/{uuid}/inventories/{resource_class}': {
        'GET': Route(inventory.get_inventory),
        'PUT': Route(inventory.update_inventory),
        'DELETE': Route(inventory.delete_inventory),
    },
    '/resource_providers/{uuid}/allocations': {
        'GET': Route(allocation.list_for_provider),
    },
    '/allocations': {
        'POST': Route(allocation.set_allocations_for_consumers, '1.13'),
    },
    '/allocations/{consumer_uuid}': {
        'GET': Route(allocation.list_for_consumer),
        'PUT': Route(allocation.set_allocations),
        'DELETE': Route(allocation.delete_allocations),
    },
    '/reshaper': {
        'POST': Route(reshaper.reshape, '1.30'),
    },
    '/resource_providers/{uuid}/usages': {
        'GET': Route(usage.list_provider_usages),
    },
    '/usages': {
        'GET': Route(usage.list_usages, '1.9'),
    },
    '/allocation_candidates': {
        'GET': Route(allocation_candidate.list_allocation_candidates, '1.10'),
    },
    '/resource_classes': {
        'GET': Route(resource_class.list_resource_classes, '1.2'),
        'POST': Route(resource_class.create_resource_class, '1.2'),
    },
    '/resource_classes/{name}': {
        'GET': Route(resource_class.get_resource_class, '1.2'),
        'PUT': Route(resource_class.update_resource_class, '1.2'),
        'DELETE': Route(resource_class.delete_resource_class, '1.2'),
    },
    '/traits': {
        'GET': Route(trait.list_traits, '1.6'),
    },
    '/traits/{name}': {
        'GET': Route(trait.get_trait, '1.6'),
        'PUT': Route(trait.put_trait, '1.6'),
        'DELETE': Route(trait.delete_trait, '1.6'),
    },
    # The operators' reports: outside the microversioned API.
    '/reports': {'GET': Route(reports.to_page)},
    '/reports/': {'GET': Route(reports.page)},
    '/reports/static/{name}': {'GET': Route(reports.static_file)},
    '/reports/capacity': {'GET': Route(reports.get_capacity)},
    '/reports/usage': {'GET': Route(reports.list_usage)},
    '/reports/usage/{project_id}': {'GET': Route(reports.get_project_usage)},
    '/reports/headroom': {'GET': Route(reports.get_headroom)},
}


def _not_found(req):
    """404 naming the path; bytes that are not UTF-8 show as U+FFFD."""
    raw = req.environ['PATH_INFO']
    try:
        path = raw.encode('latin-1').decode('utf-8', 'replace')
    except UnicodeEncodeError:
        # Not a WSGI "bytes as latin-1" string (some in-process clients
        # give decoded text): show it as it is.
        path = raw
    return webob.exc.HTTPNotFound(f'The resource could not be found: {path}')


def _make_mapper(declarations):
    mapper = routes.Mapper()
    for path in declarations:
        mapper.connect(path, route_path=path)
    return mapper


def _check_body_headers(req):
    """400 for a body without a Content-Type or a bad Content-Length.

    Checked before routing, whatever the method and path, as upstream
    does: what a body without a type means is never guessed.
    """
    length = req.environ.get('CONTENT_LENGTH')
    if not length:
        return
    try:
        length = int(length)
    except ValueError:
        raise webob.exc.HTTPBadRequest(
            'content-length header must be an integer')
    if length > 0 and not req.environ.get('CONTENT_TYPE'):
        raise webob.exc.HTTPBadRequest(
            'content-type header required when content-length > 0')


class PlacementHandler:
    """Dispatch a request to its handler, or answer 404/405."""

    def __init__(self, declarations=None):
        self._declarations = declarations or ROUTE_DECLARATIONS
        self._mapper = _make_mapper(self._declarations)

    @staticmethod
    def _available(methods, req):
        """The methods of ``methods`` that exist at the request's version."""
        version = microversion.of(req)
        return sorted(method for method, route in methods.items()
                      if version >= microversion.parse(route.min_version))

    @wsgi_wrapper.PlacementWsgify
    def __call__(self, req):
        _check_body_headers(req)
        # Mounted under a prefix, the prefix alone (empty PATH_INFO) is
        # the version document that clients discover versions from.
        match = self._mapper.match(
            req.environ['PATH_INFO'] or '/', environ=req.environ)
        # routes' patterns end in ``$``, which also matches before a final
        # newline: /traits/X%0A would otherwise be served as /traits/X.
        if match is None or req.environ['PATH_INFO'].endswith('\n'):
            raise _not_found(req)
        methods = self._declarations[match.pop('route_path')]
        route = methods.get(req.method)
        allow = sorted(methods)
        if route is not None and (
                microversion.of(req) < microversion.parse(route.min_version)):
            if route.too_early_status == 404:
                raise _not_found(req)
            allow = self._available(methods, req)
            route = None
        if route is None:
            allow = ', '.join(allow)
            raise webob.exc.HTTPMethodNotAllowed(
                f'The method specified is not allowed for this resource. '
                f'Allowed: {allow}', headers=[('Allow', allow)])
        req.environ['wsgiorg.routing_args'] = ((), match)
        return route.handler(req)
