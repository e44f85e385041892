"""What GET /reports/explain reads from the database when one class
among several is impossible: no allocations (the request is decided
without counting the other classes' slots).
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


def _explained(api, query):
    """The explain document of ``query`` and the statements it made."""
    statements = []

    def record(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(api.db.engine, 'before_cursor_execute', record)
    try:
        found = _request(api, 'GET',
                         f'/reports/explain?{query}').json['explain']
    finally:
        event.remove(api.db.engine, 'before_cursor_execute', record)
    return found, statements


def test_one_class_nobody_has_reads_no_allocations(api):
    """A class nobody has decides the request: the slots of the classes
    that fit are not counted (their capacity would sum every
    provider's allocations), and the answer says so. The only
    allocations read are the sharing providers' (none here), with the
    names (the first statement)."""
    _request(api, 'PUT', '/resource_classes/CUSTOM_NOBODY_HAS_IT')
    _node(api, 'cn0', vcpu_reserved=4)
    _node(api, 'cn1', vcpu_reserved=0)
    found, statements = _explained(
        api, 'resources=VCPU:1,MEMORY_MB:512,CUSTOM_NOBODY_HAS_IT:1')
    assert found['candidates'] == 0
    assert [(group['considered'], group['funnel'], group['uncounted'])
            for group in found['groups']] == [
        (None, [], ['inventory', 'capacity']),
        (None, [], ['inventory', 'capacity']),
        (0, [{'stage': 'inventory', 'count': 0},
             {'stage': 'capacity', 'count': 0}], [])]
    assert [impossible['sentence'] for impossible in found['impossible']] == [
        'no provider has inventory of CUSTOM_NOBODY_HAS_IT '
        '(the unsuffixed group)']
    assert found['misses'] == []
    selects = [statement for statement in statements
               if statement.startswith('SELECT')]
    assert [statement for statement in statements
            if 'allocations' in statement] == selects[:1]
