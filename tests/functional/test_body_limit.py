"""``[oslo_middleware] max_request_body_size``: the largest legitimate
bodies pass, a larger one is refused with the API's JSON 413 before it
is read (after at most one more chunk when its length is unknown)."""

import http.client
import io
import json
import urllib.parse
import uuid

import pytest
import webob

from placement.conf import middleware
from tests.functional import app
from tests.functional import server

pytestmark = pytest.mark.db

LIMIT = middleware.DEFAULT_MAX_REQUEST_BODY_SIZE
# What webob reads of a body of unknown length at a time.
WEBOB_CHUNK = 65535
HEADERS = {'x-auth-token': 'admin', 'x-roles': 'service',
           'accept': 'application/json', 'content-type': 'application/json',
           'openstack-api-version': 'placement latest'}
INVENTORY = {'total': 1_000_000, 'reserved': 0, 'min_unit': 1,
             'max_unit': 1_000_000, 'step_size': 1, 'allocation_ratio': 1.0}
CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF')
PROJECT, USER = str(uuid.uuid4()), str(uuid.uuid4())


def _consumer(providers):
    return {'allocations': {rp: {'resources': {'VCPU': 1, 'MEMORY_MB': 512,
                                               'DISK_GB': 10}}
                            for rp in providers},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': None, 'consumer_type': 'INSTANCE',
            'mappings': {'': providers}}


def _tree(api, size):
    """A provider tree of ``size`` providers with inventories; uuids."""
    root = api.provider({name: INVENTORY for name in CLASSES})
    providers = [root]
    for _ in range(size - 1):
        child = str(uuid.uuid4())
        response = api.request('POST', '/resource_providers', body={
            'name': child, 'uuid': child, 'parent_provider_uuid': root})
        assert response.status_int == 200, response.text
        providers.append(child)
    return providers


def _send(api, method, path, document):
    body = json.dumps(document).encode()
    assert len(body) < LIMIT
    response = api.send(method, path, HEADERS, body)
    assert response.status_int < 300, response.text[:500]
    return len(body)


def test_the_largest_legitimate_bodies_pass(api):
    providers = _tree(api, 256)
    # A reshape of the whole tree: its inventories and 1,024 consumers.
    generations = {
        rp: api.request('GET', f'/resource_providers/{rp}').json[
            'generation'] for rp in providers}
    sizes = [_send(api, 'POST', '/reshaper', {
        'inventories': {
            rp: {'inventories': {name: INVENTORY for name in CLASSES},
                 'resource_provider_generation': generations[rp]}
            for rp in providers},
        'allocations': {
            str(uuid.uuid4()): _consumer(
                [providers[index % 256], providers[(index + 1) % 256]])
            for index in range(1024)}})]
    # POST /allocations of 1,000 consumers on 3 providers each.
    sizes.append(_send(api, 'POST', '/allocations', {
        str(uuid.uuid4()): _consumer(
            [providers[(index + step) % 256] for step in range(3)])
        for index in range(1000)}))
    # PUT .../aggregates of 10,000 uuids.
    root = providers[0]
    sizes.append(_send(api, 'PUT', f'/resource_providers/{root}/aggregates', {
        'aggregates': [str(uuid.uuid4()) for _ in range(10_000)],
        'resource_provider_generation': api.request(
            'GET', f'/resource_providers/{root}').json['generation']}))
    # The default leaves room: the largest is under a fifth of it.
    assert max(sizes) < LIMIT / 5


class _Unreadable(io.RawIOBase):
    """A request body that must not be read."""

    def readinto(self, buffer):
        raise AssertionError('the body was read')


class _Counted(io.RawIOBase):
    """An endless JSON string body that counts what was read of it."""

    def __init__(self):
        self.read_bytes = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = b'x' * len(buffer)
        if self.read_bytes == 0:
            buffer[:10] = b'{"name": "'
        self.read_bytes += len(buffer)
        return len(buffer)


def _error(response, status):
    assert response.status_int == status, response.text
    assert response.content_type == 'application/json'
    [error] = response.json['errors']
    assert error['status'] == status
    assert error['request_id'] == response.headers['x-openstack-request-id']
    return error


def test_a_larger_body_is_refused_unread(api):
    req = webob.Request.blank('/resource_providers', method='POST',
                              headers=HEADERS)
    req.environ['wsgi.input'] = _Unreadable()
    req.environ['CONTENT_LENGTH'] = str(LIMIT + 1)
    error = _error(req.get_response(api.app), 413)
    assert f'max_request_body_size ({LIMIT})' in error['detail']


def test_a_chunked_body_is_read_no_further_than_the_limit(api):
    body = _Counted()
    req = webob.Request.blank('/resource_providers', method='POST',
                              headers=HEADERS)
    req.environ.pop('CONTENT_LENGTH', None)
    req.environ.update({'wsgi.input': body, 'wsgi.input_terminated': True,
                        'HTTP_TRANSFER_ENCODING': 'chunked'})
    error = _error(req.get_response(api.app), 413)
    assert f'Larger than {LIMIT}' in error['detail']
    assert LIMIT < body.read_bytes <= LIMIT + WEBOB_CHUNK
    assert api.request('GET', '/resource_providers').json[
        'resource_providers'] == []


def test_the_limit_is_configurable(db_url):
    application, db = app.build_stack(
        db_url, oslo_middleware__max_request_body_size=100)
    try:
        api = app.API(application, db)
        body = json.dumps({'name': 'x' * 100}).encode()
        _error(api.send('POST', '/resource_providers', HEADERS, body), 413)
        small = json.dumps({'name': 'small'}).encode()
        assert api.send('POST', '/resource_providers', HEADERS,
                        small).status_int == 200
    finally:
        db.dispose()


def _post_chunks(endpoint, chunks, headers):
    """POST ``chunks`` chunked to a real server; (status, JSON body)."""
    parts = urllib.parse.urlsplit(endpoint)
    connection = http.client.HTTPConnection(parts.hostname, parts.port,
                                            timeout=60)
    try:
        connection.request('POST', '/resource_providers', body=chunks,
                           headers=headers, encode_chunked=True)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    except (BrokenPipeError, ConnectionResetError):
        # The server may answer and close before the rest is sent.
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_placement_api_refuses_larger_bodies(tmp_path):
    chunk = b'x' * 1024 * 1024
    with server.running_server(tmp_path) as endpoint:
        status, document = _post_chunks(
            endpoint, iter([b'{"name": "', *[chunk] * 6, b'"}']), HEADERS)
        assert (status, document['errors'][0]['status']) == (413, 413)
        headers = dict(HEADERS, **{'content-length': str(LIMIT + 1)})
        parts = urllib.parse.urlsplit(endpoint)
        connection = http.client.HTTPConnection(parts.hostname, parts.port,
                                                timeout=60)
        try:
            # Only the head is sent: the answer comes without the body.
            connection.putrequest('POST', '/resource_providers')
            for name, value in headers.items():
                connection.putheader(name, value)
            connection.endheaders()
            response = connection.getresponse()
            assert response.status == 413
            assert json.loads(response.read())['errors'][0]['status'] == 413
        finally:
            connection.close()
