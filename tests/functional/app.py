"""An in-process client of the whole WSGI stack, for functional tests.

Requests go through every middleware to the handlers as webob requests;
``db`` gives direct access to the rows, to arrange what the API cannot
(allocations without consumers, for example) and to inspect the result.
"""

import uuid

import sqlalchemy as sa

from placement import throwaway
from placement.db import models

RP = models.ResourceProvider.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__

INVENTORIES = {
    'VCPU': {'total': 8, 'allocation_ratio': 2.0},
    'MEMORY_MB': {'total': 4096},
    'DISK_GB': {'total': 100},
}


build_stack = throwaway.build_stack


class API(throwaway.API):
    """The application plus direct access to its database, and the
    arrangements the tests make through it."""

    def provider(self, inventories=INVENTORIES, rp_uuid=None):
        """A new provider with ``inventories`` (and ``rp_uuid``, else a
        new one); its uuid."""
        rp_uuid = rp_uuid or str(uuid.uuid4())
        response = self.request(
            'POST', '/resource_providers',
            body={'name': rp_uuid, 'uuid': rp_uuid})
        assert response.status_int == 200, response.text
        response = self.request(
            'PUT', f'/resource_providers/{rp_uuid}/inventories',
            body={'inventories': inventories,
                  'resource_provider_generation': 0})
        assert response.status_int == 200, response.text
        return rp_uuid

    def allocate(self, rp_uuid, class_name, used):
        """Record an allocation of a new consumer against the provider."""
        with self.db.writer() as conn:
            rp_id = conn.scalar(
                sa.select(RP.c.id).where(RP.c.uuid == rp_uuid))
            rc_id = conn.scalar(
                sa.select(RC.c.id).where(RC.c.name == class_name))
            conn.execute(sa.insert(ALLOC).values(
                resource_provider_id=rp_id, resource_class_id=rc_id,
                consumer_id=str(uuid.uuid4()), used=used))

    def claim(self, rp_uuid, consumer):
        """PUT /allocations/{consumer}: one VCPU of the provider, for a
        new consumer (the answer)."""
        return self.request('PUT', f'/allocations/{consumer}', body={
            'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
            'consumer_type': 'INSTANCE'})

    def inventories(self, rp_uuid):
        response = self.request(
            'GET', f'/resource_providers/{rp_uuid}/inventories')
        assert response.status_int == 200, response.text
        return response.json


def assert_error(response, status, code):
    """``status``, and the error ``code`` (None: before 1.23, no code)."""
    assert response.status_int == status, response.text
    error = response.json['errors'][0]
    assert error['status'] == status
    assert error.get('code') == code
