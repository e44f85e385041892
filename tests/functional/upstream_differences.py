"""Replay of the cases side-by-side comparison with upstream Placement
16.0.0 found (``fixtures/upstream-differences.json``, a copy of the
spec's ``upstream-differences/cases.json``; its README says how each
step is sent).

:func:`replay` rebuilds a case's world through the API, step by step
(a step refused is part of the world, as it happened), and sends the
request that differed.
"""

import json
import pathlib
import urllib.parse

CASES = {case['case']: case for case in json.loads(
    (pathlib.Path(__file__).parent / 'fixtures'
     / 'upstream-differences.json').read_text())}
_HEADERS = {'x-auth-token': 'admin', 'x-roles': 'admin,service',
            'accept': 'application/json'}


def send(api, method, path, version, body=None):
    headers = {**_HEADERS, 'openstack-api-version': f'placement {version}'}
    raw = None
    if body is not None:
        headers['content-type'] = 'application/json'
        raw = json.dumps(body).encode()
    return api.send(method, path, headers, raw)


def _provider_generation(api, rp_uuid, step):
    response = send(api, 'GET', f'/resource_providers/{rp_uuid}', 'latest')
    generation = response.json['generation'] if response.json else 0
    return generation - 1 if step.get('gen') == 'stale' else generation


def _consumer_generation(api, consumer, cgen):
    """What ``cgen`` says to send; ``...`` to leave it out."""
    if cgen == 'omit':
        return ...
    if cgen == 'null':
        return None
    current = send(api, 'GET', f'/allocations/{consumer}',
                   'latest').json.get('consumer_generation')
    if cgen == 'stale':
        return 0 if current is None else current + 1
    return current


def _consumer_body(api, version, consumer, allocs, project, user, cgen,
                   ctype=None):
    minor = int(version.split('.')[1])
    if minor < 12:
        body = {'allocations': [
            {'resource_provider': {'uuid': rp_uuid}, 'resources': resources}
            for rp_uuid, resources in allocs.items()]}
    else:
        body = {'allocations': {rp_uuid: {'resources': resources}
                                for rp_uuid, resources in allocs.items()}}
    if minor >= 8:
        body.update(project_id=project, user_id=user)
    if minor >= 28:
        generation = _consumer_generation(api, consumer, cgen)
        if generation is not ...:
            body['consumer_generation'] = generation
    if minor >= 38 and ctype is not None:
        body['consumer_type'] = ctype
    return body


def _step(api, step):
    op = step['op']
    version = step.get('mv', 'latest')
    if op == 'create_trait':
        send(api, 'PUT', f'/traits/{step["name"]}', '1.6')
    elif op == 'create_rc':
        send(api, 'PUT', f'/resource_classes/{step["name"]}', '1.7')
    elif op == 'create_rp':
        body = {'name': step['name'], 'uuid': step['uuid']}
        if 'parent' in step:
            body['parent_provider_uuid'] = step['parent']
        send(api, 'POST', '/resource_providers', step.get('mv', '1.20'),
             body)
    elif op in ('inv_put', 'traits_put', 'aggs_put', 'inv_put_one'):
        _provider_write(api, step, version)
    elif op == 'inv_delete_one':
        send(api, 'DELETE', f'/resource_providers/{step["rp"]}/inventories/'
             f'{step["rc"]}', version)
    elif op == 'reparent':
        send(api, 'PUT', f'/resource_providers/{step["rp"]}', version,
             {'name': step['name'], 'parent_provider_uuid': step['parent']})
    elif op == 'rp_delete':
        send(api, 'DELETE', f'/resource_providers/{step["rp"]}', version)
    elif op == 'alloc_put':
        send(api, 'PUT', f'/allocations/{step["consumer"]}', version,
             _consumer_body(api, version, step['consumer'], step['allocs'],
                            step.get('project'), step.get('user'),
                            step.get('cgen', 'current'), step.get('ctype')))
    elif op == 'alloc_post':
        send(api, 'POST', '/allocations', version, {
            consumer: _consumer_body(api, version, consumer, allocs,
                                     project, user, cgen, step.get('ctype'))
            for consumer, allocs, project, user, cgen in step['items']})
    elif op == 'alloc_delete':
        send(api, 'DELETE', f'/allocations/{step["consumer"]}', version)
    elif op == 'reshape':
        _reshape(api, step, version)
    # get, get_rps, get_ac: reads change nothing.


def _provider_write(api, step, version):
    rp_uuid = step['rp']
    generation = _provider_generation(api, rp_uuid, step)
    path = f'/resource_providers/{rp_uuid}'
    if step['op'] == 'inv_put':
        send(api, 'PUT', f'{path}/inventories', version,
             {'resource_provider_generation': generation,
              'inventories': step['inv']})
    elif step['op'] == 'inv_put_one':
        send(api, 'PUT', f'{path}/inventories/{step["rc"]}', version,
             {**step['inv'], 'resource_provider_generation': generation})
    elif step['op'] == 'traits_put':
        send(api, 'PUT', f'{path}/traits', version,
             {'resource_provider_generation': generation,
              'traits': step['traits']})
    elif int(version.split('.')[1]) >= 19:
        send(api, 'PUT', f'{path}/aggregates', version,
             {'aggregates': step['aggs'],
              'resource_provider_generation': generation})
    else:
        send(api, 'PUT', f'{path}/aggregates', version, step['aggs'])


def _reshape(api, step, version):
    minor = int(version.split('.')[1])
    allocations = {}
    for consumer, allocs in step['allocs'].items():
        allocations[consumer] = {
            'allocations': {rp_uuid: {'resources': resources}
                            for rp_uuid, resources in allocs.items()},
            'project_id': step.get('project', 'proj-a'),
            'user_id': step.get('user', 'user-x'),
            'consumer_generation': _consumer_generation(
                api, consumer, 'current')}
        if minor >= 38:
            allocations[consumer]['consumer_type'] = 'INSTANCE'
    send(api, 'POST', '/reshaper', version, {
        'inventories': {
            rp_uuid: {'resource_provider_generation':
                      _provider_generation(api, rp_uuid, step),
                      'inventories': inventories}
            for rp_uuid, inventories in step['inv'].items()},
        'allocations': allocations})


def replay(api, number):
    """Rebuild case ``number``'s world; the response to its request
    (the case's last step).

    A provider generation in its body is the provider's current one
    (generations are compared as the change each write caused).
    """
    case = CASES[number]
    # The last step is the request that differed: it is sent once, below.
    for step in case['steps'][:-1]:
        _step(api, step)
    request, version = case['differing_request'].split('  [mv ')
    method, path = request.split(' ', 1)
    body = case['differing_request_body']
    if body and 'resource_provider_generation' in body:
        body = {**body, 'resource_provider_generation': _provider_generation(
            api, path.split('/')[2], {})}
    return send(api, method, urllib.parse.quote(path, safe='/?&=:,!'),
                version.rstrip(']'), body)
