"""What GET /reports/explain reads from the database when one class
among several is impossible: the allocations once, by the statement
that counts the group's providers and also yields its first misses.
"""

import uuid

import pytest
from sqlalchemy import event

pytestmark = pytest.mark.db

def _request(api, method, path, body=None):
    response = api.request(method, path, body=body)
    assert response.status_int < 300, response.text
    return response


def _node(api, name, vcpu_reserved):
    provider = _request(api, 'POST', '/resource_providers', {
        'name': name, 'uuid': str(uuid.uuid4())}).json
    _request(api, 'PUT', f"/resource_providers/{provider['uuid']}/"
             'inventories', {
                 'resource_provider_generation': provider['generation'],
                 'inventories': {
                     'VCPU': {'total': 4, 'reserved': vcpu_reserved},
                     'MEMORY_MB': {'total': 4096}}})
    return provider['uuid']


def test_one_class_nobody_has_reads_the_allocations_once(api):
    """cn0 has no VCPU free (its miss), cn1 room for all but the class
    nobody has: the misses come from the count's statement, not from a
    second statement summing each provider's allocations."""
    _request(api, 'PUT', '/resource_classes/CUSTOM_NOBODY_HAS_IT')
    _node(api, 'cn0', vcpu_reserved=4)
    _node(api, 'cn1', vcpu_reserved=0)
    statements = []

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(api.db.engine, 'before_cursor_execute', record)
    try:
        found = _request(
            api, 'GET', '/reports/explain?resources=VCPU:1,MEMORY_MB:512,'
            'CUSTOM_NOBODY_HAS_IT:1&max_misses=1').json['explain']
    finally:
        event.remove(api.db.engine, 'before_cursor_execute', record)
    assert found['candidates'] == 0
    assert [(miss['provider']['name'], miss['kind'],
             miss['details']['subject'], miss['details']['free'])
            for miss in found['misses']] == [('cn0', 'capacity', 'VCPU', 0)]
    assert sum('allocations' in statement for statement in statements) == 1
