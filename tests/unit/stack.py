"""Run small handlers the way the service runs its own, and read the
error documents they render.

:func:`call` puts one WSGI app under the request id and microversion
middleware; :func:`service` builds the whole deployed middleware stack
(noauth2, no database) around a route table of the test's own.
"""

import json

import webob
from oslo_middleware import request_id

from placement import deploy
from placement import microversion_middleware
from placement import operations
from placement import policy
from placement.conf import loading

# A local request id: req- and a uuid4.
REQUEST_ID = (r'^req-[a-f0-9]{8}-[a-f0-9]{4}-4[a-f0-9]{3}-[89ab][a-f0-9]{3}'
              r'-[a-f0-9]{12}$')


def wrap(application):
    """``application`` below request ids and microversion negotiation."""
    return request_id.RequestId(
        microversion_middleware.MicroversionMiddleware(application))


def call(application, path='/', version='latest', headers=None, **kwargs):
    """The response of the wrapped ``application`` to one request."""
    headers = dict(headers or {})
    if version is not None:
        headers.setdefault('OpenStack-API-Version', f'placement {version}')
    req = webob.Request.blank(path, headers=headers, **kwargs)
    return req.get_response(wrap(application))


def service(monkeypatch, table, config_file=None, **overrides):
    """The deployed stack, noauth2, routing ``table`` (of Operations).

    ``overrides`` are ``group__option=value`` configuration overrides,
    on the options of ``config_file`` if given (for those registered
    only as the stack is built: keystonemiddleware's auth plugin's).
    """
    monkeypatch.setattr(operations, 'OPERATIONS', table)
    conf = loading.new_conf()
    conf(['--config-file', str(config_file)] if config_file else [],
         project='placement', default_config_files=[])
    conf.set_override('auth_strategy', 'noauth2', group='api')
    for key, value in overrides.items():
        group, name = key.split('__', 1)
        conf.set_override(name, value, group=group)
    return deploy.build_stack(conf, None, policy.make_enforcer(conf))


def error_of(response):
    """The only error of a JSON error document, checked for its shape.

    ``request_id`` must be the response's ``x-openstack-request-id``.
    """
    assert response.content_type == 'application/json'
    document = json.loads(response.body)
    assert list(document) == ['errors']
    assert len(document['errors']) == 1
    error = document['errors'][0]
    assert error['status'] == response.status_code
    assert error['title'] == response.status.split(None, 1)[1]
    assert error['request_id'] == response.headers['x-openstack-request-id']
    assert error['detail'] == error['detail'].strip()
    return error
