"""Input an attacker would send: nothing reaches a 500, nothing is
written, errors repeat little of it, policy targets hold no missing
value, and path arguments are UTF-8 (issue 25)."""

import json
import urllib.parse
import uuid

import pytest

from tools import fuzz_api

pytestmark = pytest.mark.db

HEADERS = {'x-auth-token': 'admin', 'x-roles': 'service',
           'accept': 'application/json', 'content-type': 'application/json',
           'openstack-api-version': 'placement latest'}
# As a client's JSON encoder writes them: escapes, not raw characters.
SURROGATE, NUL = '\\ud800', '\\u0000'


@pytest.fixture
def world(api):
    """A provider with inventory and a consumer allocating from it."""
    rp_uuid = api.provider()
    consumer = str(uuid.uuid4())
    response = api.request('PUT', f'/allocations/{consumer}', body={
        'allocations': {rp_uuid: {'resources': {'VCPU': 1}}},
        'project_id': 'project', 'user_id': 'user',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    assert response.status_int == 204, response.text
    return rp_uuid, consumer


def _bodies(rp_uuid, consumer, bad):
    """``(method, path, body text)``: ``bad`` in a string of each body."""
    allocation = (
        f'"allocations": {{"{rp_uuid}": {{"resources": {{"VCPU": 1}}}}}}, '
        f'"consumer_generation": 1, "consumer_type": "INSTANCE"')
    new = str(uuid.uuid4())
    return [
        ('POST', '/resource_providers', f'{{"name": "a{bad}b"}}'),
        ('PUT', f'/resource_providers/{rp_uuid}', f'{{"name": "a{bad}b"}}'),
        ('PUT', f'/resource_providers/{rp_uuid}/traits',
         f'{{"traits": ["CUSTOM_{bad}"], '
         f'"resource_provider_generation": 2}}'),
        ('PUT', f'/allocations/{consumer}',
         f'{{{allocation}, "project_id": "p{bad}", "user_id": "user"}}'),
        ('PUT', f'/allocations/{consumer}',
         f'{{{allocation}, "project_id": "project", "user_id": "u{bad}"}}'),
        ('POST', '/allocations',
         f'{{"{new}": {{{allocation.replace(": 1,", ": null,")}, '
         f'"project_id": "p{bad}", "user_id": "user"}}}}'),
        ('POST', '/reshaper',
         f'{{"inventories": {{}}, "allocations": {{"{consumer}": '
         f'{{{allocation}, "project_id": "p{bad}", "user_id": "user"}}}}}}'),
        ('POST', '/resource_classes', f'{{"name": "CUSTOM_A{bad}"}}'),
        ('POST', '/resource_providers', f'{{"a{bad}": "name"}}'),
    ]


@pytest.mark.parametrize('bad', [SURROGATE, NUL])
def test_unstorable_text_in_bodies_is_400_and_writes_nothing(
        api, world, bad):
    rp_uuid, consumer = world
    before = fuzz_api.database_digest(api)
    for method, path, text in _bodies(rp_uuid, consumer, bad):
        json.loads(text)  # valid JSON
        response = api.send(method, path, HEADERS, text.encode())
        assert response.status_int == 400, (path, response.text)
        detail = response.json['errors'][0]['detail']
        assert 'Invalid JSON string' in detail
        assert ('lone surrogate' if bad == SURROGATE else 'NUL') in detail
    assert fuzz_api.database_digest(api) == before


@pytest.mark.parametrize('bad', ['%ED%A0%80', '%00', 'a%00b', '%FF'])
def test_unstorable_text_in_paths_names_nothing(api, world, bad):
    """Reading or deleting it is a 404, writing it a 400."""
    rp_uuid, consumer = world
    before = fuzz_api.database_digest(api)
    for method, path, status in [
            ('GET', f'/reports/usage/{bad}', 404),
            ('PUT', f'/traits/CUSTOM_{bad}', 400),
            ('PUT', f'/resource_classes/CUSTOM_{bad}', 400),
            ('GET', f'/resource_providers/{bad}', 404),
            ('DELETE', f'/allocations/{bad}', 404),
            ('DELETE', f'/resource_providers/{rp_uuid}/traits/{bad}', 404),
            ('GET', f'/nowhere/{bad}', 404)]:
        response = api.send(method, path, HEADERS)
        assert response.status_int == status, (path, response.text)
        assert ('The URL path names nothing'
                in response.json['errors'][0]['detail'])
    assert fuzz_api.database_digest(api) == before


@pytest.mark.parametrize('query', [
    'name=a%00b', 'uuid=%00', 'member_of=in:%00', 'resources=VCPU:1%00',
    'required=%ED%A0%80', 'a%00=1'])
def test_unstorable_text_in_query_strings_is_400(api, world, query):
    response = api.send('GET', f'/resource_providers?{query}', HEADERS)
    assert response.status_int == 400, response.text
    assert ('Invalid query string parameters: '
            in response.json['errors'][0]['detail'])


@pytest.mark.parametrize('path', [
    '/reports/usage?sort=%00', '/usages?project_id=a%00b',
    '/allocation_candidates?resources=VCPU:1&member_of=%00',
    '/traits?name=in:%00'])
def test_unstorable_text_in_other_query_strings_is_400(api, world, path):
    assert api.send('GET', path, HEADERS).status_int == 400


@pytest.mark.parametrize('method, path, body, phrase', [
    ('POST', '/resource_providers', {'name': 'x' * 1_000_000},
     'is too long'),
    ('POST', '/resource_classes', {'name': 'bad' * 300_000},
     "Failed validating 'pattern'"),
    ('PUT', '/resource_providers/{rp}/aggregates',
     {'aggregates': ['x' * 100_000], 'resource_provider_generation': 0},
     "is not a 'uuid'"),
    ('PUT', '/resource_providers/{rp}/inventories',
     {'inventories': {'v' * 500_000: {'total': 1}},
      'resource_provider_generation': 0},
     "Failed validating 'additionalProperties'"),
])
def test_errors_repeat_a_few_hundred_characters_at_most(
        api, world, method, path, body, phrase):
    rp_uuid, _consumer = world
    response = api.request(method, path.format(rp=rp_uuid), body=body)
    assert response.status_int == 400
    detail = response.json['errors'][0]['detail']
    assert phrase in detail
    assert len(response.body) < 4000, detail
    longest_run = max(len(run) for run in
                      detail.replace('v', 'x').replace('bad', 'x').split())
    assert longest_run < 400


def test_the_fuzzer_does_not_count_the_schema_shown_as_input(api):
    """jsonschema's message shows the schema that refused the body, as
    upstream's does: POST /reshaper's whole schema is 13 KB, and repeats
    nothing of a body of one byte."""
    response = api.send('POST', '/reshaper', {
        **HEADERS, 'openstack-api-version': 'placement 1.34'}, b'1')
    assert response.status_int == 400
    assert len(response.body) > fuzz_api.MAX_ERROR_BYTES
    assert fuzz_api.echoed_bytes(response.body) < 1000, response.text


def test_long_query_values_and_paths_are_clipped_in_errors(api, world):
    for path in ['/resource_providers?resources=' + 'VCPU' * 50_000,
                 '/resource_providers?in_tree=' + 'x' * 200_000,
                 '/nowhere/' + 'x' * 200_000]:
        response = api.send('GET', path, HEADERS)
        assert 400 <= response.status_int < 500
        assert len(response.body) < 2000, response.text[:300]


def test_a_limit_of_more_digits_than_python_converts_limits_nothing(
        api, world):
    """``int()`` refuses more than 4,300 digits: such a limit is beyond
    any number of candidates, and answers as none (it was a 500)."""
    response = api.send(
        'GET', '/allocation_candidates?resources=VCPU:1&limit=1'
        + '0' * 5000, {**HEADERS, 'openstack-api-version': 'placement 1.39'})
    assert response.status_int == 200, response.text[:300]
    assert len(response.json['allocation_requests']) == 1


@pytest.mark.parametrize('project', ['None', '%(project_id)s', 'x'])
def test_listing_every_projects_usage_needs_admin_or_service(
        api, world, project):
    reader = {'x-auth-token': f'eve:{project}', 'x-roles': 'reader',
              'accept': 'application/json'}
    assert api.send('GET', '/reports/usage', reader).status_int == 403
    own = api.send('GET', f'/reports/usage/{urllib.parse.quote(project)}',
                   reader)
    assert own.status_int == 200, own.text
    assert api.send('GET', '/reports/usage/project', reader).status_int == 403
    for roles in ('admin', 'service'):
        allowed = dict(reader, **{'x-roles': roles})
        assert api.send('GET', '/reports/usage', allowed).status_int == 200


@pytest.mark.parametrize('project', ['projé', '雪の計画', 'emoji-😀'])
def test_a_non_ascii_project_id_goes_through_the_whole_flow(api, project):
    rp_uuid = api.provider()
    consumer = str(uuid.uuid4())
    response = api.request('PUT', f'/allocations/{consumer}', body={
        'allocations': {rp_uuid: {'resources': {'VCPU': 2}}},
        'project_id': project, 'user_id': 'user',
        'consumer_generation': None, 'consumer_type': 'INSTANCE'})
    assert response.status_int == 204, response.text
    quoted = urllib.parse.quote(project)
    report = api.request('GET', f'/reports/usage/{quoted}')
    assert report.status_int == 200, report.text
    document = report.json['project']
    assert document['id'] == project
    usage = {resource['name']: resource['usage']
             for service in document['services']
             for resource in service['resources']}
    assert usage['VCPU'] == 2
    usages = api.request('GET', f'/usages?project_id={quoted}')
    assert usages.json['usages']['INSTANCE'] == {
        'VCPU': 2, 'consumer_count': 1}
    listed = api.request('GET', '/reports/usage')
    assert project in [each['id'] for each in listed.json['projects']]
    allocations = api.request('GET', f'/allocations/{consumer}')
    assert allocations.json['project_id'] == project
