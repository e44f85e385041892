"""Request ids: oslo.middleware's, as a layer that passes the request on.

oslo.middleware's ``RequestId`` is a webob ``wsgify`` layer: a default
``Response``, the next application's answer made another ``Response``
and that one called, on every request. :class:`RequestId` keeps its
rules and its methods (the global request id taken from
``X-Openstack-Request-Id`` when it is ``req-<uuid>``, a new local id in
``openstack.request_id``, ``x-openstack-request-id`` added to an answer
that does not have it) and hands the answer on as it came.
"""

import webob
from oslo_context import context
from oslo_middleware import request_id


class RequestId(request_id.RequestId):

    def __call__(self, environ, start_response):
        self.set_global_req_id(webob.Request(environ))
        req_id = context.generate_request_id()
        environ[request_id.ENV_REQUEST_ID] = req_id
        names = [request_id.HTTP_RESP_HEADER_REQUEST_ID, *self.compat_headers]

        def start_identified(status, headers, exc_info=None):
            present = {name.lower() for name, _value in headers}
            headers = [*headers, *((name, req_id) for name in names
                                   if name.lower() not in present)]
            return start_response(status, headers, exc_info)
        return self.application(environ, start_identified)
