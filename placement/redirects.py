"""Redirects name their target by its path, never by the Host header.

webob makes the Location of every response absolute, from the Host
header of the request (each webob layer of the stack does it again),
and the client chooses that header: ``GET /reports`` with ``Host:
evil.example.com`` would send a browser to evil.example.com. Outermost
in the stack, :func:`middleware` gives a redirect's Location back as a
path, which the browser resolves against the URL it asked for.
"""

import urllib.parse


def path_only(location):
    """``location`` without its scheme and host (never ``//host``)."""
    parts = urllib.parse.urlsplit(location)
    path = '/' + parts.path.lstrip('/')
    return urllib.parse.urlunsplit(('', '', path, parts.query,
                                    parts.fragment))


def middleware(application):
    def _call(environ, start_response):
        def _start_response(status, headers, exc_info=None):
            if status.startswith('3'):
                headers = [
                    (name, path_only(value)
                     if name.lower() == 'location' else value)
                    for name, value in headers]
            return start_response(status, headers, exc_info)
        return application(environ, _start_response)
    return _call
