"""The per-request context: who is asking, and what they may do."""

import webob.exc
from oslo_context import context
from oslo_middleware import request_id


class RequestContext(context.RequestContext):
    """oslo.context's RequestContext plus the service's state.

    ``config``, ``db`` and ``enforcer`` are attached by the context
    middleware so that nothing below it needs global state.
    """

    def __init__(self, *args, config=None, db=None, enforcer=None,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self.config = config
        self.db = db
        self.enforcer = enforcer

    def can(self, action, target=None):
        """Enforce policy rule ``action``; 403 when it is not allowed.

        The default target is the requester's own project and user, which
        is what the ``project_id:%(project_id)s`` checks compare against;
        a value of None is left out of the target.
        """
        if target is None:
            target = {'project_id': self.project_id,
                      'user_id': self.user_id}
        # oslo.policy formats None as "None", which a project of that
        # name would match: a missing value is no value, and a check
        # naming a key the target lacks fails.
        target = {key: value for key, value in target.items()
                  if value is not None}
        if not self.enforcer.allows(action, target, self):
            # A token of the wrong scope (a system-scoped one on a
            # project-scoped rule) is refused like a missing role.
            raise webob.exc.HTTPForbidden(
                f'Policy does not allow {action} to be performed.')


def make_middleware(conf, db, enforcer):
    """Middleware putting a RequestContext in ``placement.context``."""

    def middleware(application):
        def _call(environ, start_response):
            environ['placement.context'] = RequestContext.from_environ(
                environ, config=conf, db=db, enforcer=enforcer)
            return application(environ, start_response)
        return _call
    return middleware


def fresh_store(application):
    """Middleware giving each request a bare context of its own request
    id in oslo.context's per-thread store.

    oslo.log prefixes a line with the stored context, which the context
    middleware sets only once the request is authenticated: without this,
    what the layers outside it log (the request log line of a 401 or a
    413, a health check) carried the previous request's ids and user on
    that thread. No identity is read here: the client's identity headers
    are not yet stripped or checked.
    """
    def _call(environ, start_response):
        context.RequestContext(
            request_id=environ.get(request_id.ENV_REQUEST_ID))
        return application(environ, start_response)
    return _call
