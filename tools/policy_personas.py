"""Write gabbits/policy-personas*.yaml from the persona table of the policy.

The table is the "Who may do what" table of today's policy defaults
(spec ``policy-defaults-today.md``), copied verbatim below. Each gabbit
sends one request per rule per persona: a persona the table lets through
gets the rule's real success status (or a 404/400 that only a request
past the policy check can get), any other persona a 403 naming the rule.
``policy-personas.yaml`` runs with oslo.policy's default
``enforce_new_defaults = True``, ``policy-personas-legacy.yaml`` with
False (the table's "legacy" values).

Run ``python -m tools.policy_personas`` after changing the table or the
requests; ``tests/unit/test_policy_personas.py`` fails while the
committed gabbits are stale.
"""

import os
import re

import yaml

GABBITS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'gabbits')

TABLE = """
| `placement:resource_providers:list` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:create` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:show` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:update` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:delete` | yes | yes | no | no | no | no | no |
| `placement:resource_classes:list` | yes | yes | no | no | no | no | no |
| `placement:resource_classes:create` | yes | yes | no | no | no | no | no |
| `placement:resource_classes:show` | yes | yes | no | no | no | no | no |
| `placement:resource_classes:update` | yes | yes | no | no | no | no | no |
| `placement:resource_classes:delete` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:inventories:list` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:inventories:create` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:inventories:show` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:inventories:update` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:inventories:delete` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:aggregates:list` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:aggregates:update` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:usages` | yes | yes | no | no | no | no | no |
| `placement:usages` | yes | yes | yes | yes | no | no | no |
| `placement:traits:list` | yes | yes | no | no | no | no | no |
| `placement:traits:show` | yes | yes | no | no | no | no | no |
| `placement:traits:update` | yes | yes | no | no | no | no | no |
| `placement:traits:delete` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:traits:list` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:traits:update` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:traits:delete` | yes | yes | no | no | no | no | no |
| `placement:allocations:manage` | yes | yes | no | no | no | no | no |
| `placement:allocations:list` | yes | yes | no | no | no | no | no |
| `placement:allocations:update` | yes | yes | no | no | no | no | no |
| `placement:allocations:delete` | yes | yes | no | no | no | no | no |
| `placement:resource_providers:allocations:list` | yes | yes | no | no | no | no | no |
| `placement:allocation_candidates:list` | yes | yes | no | no | no | no | no |
| `placement:reshaper:reshape` | no (legacy: yes) | yes | no | no | no | no | no |
| `placement:reports:audit` | yes | yes | no | no | no | no | no |
| `placement:reports:capacity` | yes | yes | no | no | no | no | no |
| `placement:reports:explain` | yes | yes | no | no | no | no | no |
| `placement:reports:headroom` | yes | yes | no | no | no | no | no |
| `placement:reports:usage` | yes | yes | yes | yes | no | no | no |
| `placement:metrics` | yes | yes | no | no | no | no | no |
"""  # noqa: E501 (the rows as the spec has them)

PROJECT = 'p1'
OTHER_PROJECT = 'p2'
PROVIDER = '9e000000-0000-4000-8000-000000000001'
MISSING = '9e000000-0000-4000-8000-0000000000ff'
CONSUMER = '9e000000-0000-4000-8000-00000000c001'
EMPTY_CONSUMER = '9e000000-0000-4000-8000-00000000c002'
RP = f'/resource_providers/{PROVIDER}'
MISSING_RP = f'/resource_providers/{MISSING}'
CLASS = 'CUSTOM_POLICY'
TRAIT = 'CUSTOM_POLICY'


def _persona(token, roles, project_id=None):
    headers = {'x-auth-token': token, 'x-roles': roles}
    if project_id is None:
        headers['openstack-system-scope'] = 'all'
    else:
        headers['x-project-id'] = project_id
    return headers


# The personas of the table, in its column order, as noauth2 headers
# (a persona without a project has a system-scoped token).
PERSONAS = {
    'project admin': _persona('alice', 'admin', PROJECT),
    'service': _persona('nova', 'service', 'service'),
    'project member': _persona('bob', 'member', PROJECT),
    'project reader': _persona('carol', 'reader', PROJECT),
    'other-project reader': _persona('dave', 'reader', OTHER_PROJECT),
    'system admin': _persona('root', 'admin'),
    'system reader': _persona('auditor', 'reader'),
}


def _slug(persona):
    return re.sub(r'\W+', '_', persona).upper()


def _request(method, url, status, data=None):
    request = {method: url, 'status': status}
    if data is not None:
        request['data'] = data
    return request


def _allocations(allocations):
    return {'allocations': allocations, 'consumer_generation': None,
            'project_id': PROJECT, 'user_id': 'u1',
            'consumer_type': 'INSTANCE'}


def _new_provider(persona):
    return {'name': f'policy {persona}'}


def _new_class(persona):
    return {'name': f'{CLASS}_{_slug(persona)}'}


# rule: (method, URL, the status of a persona the rule lets through,
# body or a function of the persona that makes it). Writes that would
# change what another request reads either name something after the
# persona or miss their target.
REQUESTS = {
    'placement:resource_providers:list': ('GET', '/resource_providers', 200),
    'placement:resource_providers:create': (
        'POST', '/resource_providers', 200, _new_provider),
    'placement:resource_providers:show': ('GET', RP, 200),
    'placement:resource_providers:update': (
        'PUT', RP, 200, {'name': 'policy'}),
    'placement:resource_providers:delete': ('DELETE', MISSING_RP, 404),
    'placement:resource_classes:list': ('GET', '/resource_classes', 200),
    'placement:resource_classes:create': (
        'POST', '/resource_classes', 201, _new_class),
    'placement:resource_classes:show': (
        'GET', f'/resource_classes/{CLASS}', 200),
    'placement:resource_classes:update': (
        'PUT', f'/resource_classes/{CLASS}', 204),
    'placement:resource_classes:delete': (
        'DELETE', '/resource_classes/CUSTOM_MISSING', 404),
    'placement:resource_providers:inventories:list': (
        'GET', f'{RP}/inventories', 200),
    'placement:resource_providers:inventories:create': (
        'POST', f'{MISSING_RP}/inventories', 404,
        {'resource_class': 'DISK_GB', 'total': 10}),
    'placement:resource_providers:inventories:show': (
        'GET', f'{RP}/inventories/VCPU', 200),
    'placement:resource_providers:inventories:update': (
        'PUT', f'{MISSING_RP}/inventories/VCPU', 404,
        {'resource_provider_generation': 0, 'total': 8}),
    'placement:resource_providers:inventories:delete': (
        'DELETE', f'{MISSING_RP}/inventories/VCPU', 404),
    'placement:resource_providers:aggregates:list': (
        'GET', f'{RP}/aggregates', 200),
    'placement:resource_providers:aggregates:update': (
        'PUT', f'{MISSING_RP}/aggregates', 404,
        {'aggregates': [], 'resource_provider_generation': 0}),
    'placement:resource_providers:usages': ('GET', f'{RP}/usages', 200),
    'placement:usages': ('GET', f'/usages?project_id={PROJECT}', 200),
    'placement:traits:list': ('GET', '/traits', 200),
    'placement:traits:show': ('GET', f'/traits/{TRAIT}', 204),
    'placement:traits:update': ('PUT', f'/traits/{TRAIT}', 204),
    'placement:traits:delete': ('DELETE', '/traits/CUSTOM_MISSING', 404),
    'placement:resource_providers:traits:list': ('GET', f'{RP}/traits', 200),
    'placement:resource_providers:traits:update': (
        'PUT', f'{MISSING_RP}/traits', 404,
        {'traits': [], 'resource_provider_generation': 0}),
    'placement:resource_providers:traits:delete': (
        'DELETE', f'{MISSING_RP}/traits', 404),
    'placement:allocations:manage': (
        'POST', '/allocations', 204, {EMPTY_CONSUMER: _allocations({})}),
    'placement:allocations:list': ('GET', f'/allocations/{CONSUMER}', 200),
    'placement:allocations:update': (
        'PUT', f'/allocations/{EMPTY_CONSUMER}', 204, _allocations({})),
    'placement:allocations:delete': (
        'DELETE', f'/allocations/{EMPTY_CONSUMER}', 404),
    'placement:resource_providers:allocations:list': (
        'GET', f'{RP}/allocations', 200),
    'placement:allocation_candidates:list': (
        'GET', '/allocation_candidates?resources=VCPU:1', 200),
    'placement:reshaper:reshape': (
        'POST', '/reshaper', 400,
        {'inventories': {MISSING: {'resource_provider_generation': 0,
                                   'inventories': {}}},
         'allocations': {}}),
    # The operators' reports (not in the spec's table).
    'placement:reports:audit': ('GET', '/reports/audit', 200),
    'placement:reports:capacity': ('GET', '/reports/capacity', 200),
    'placement:reports:explain': (
        'GET', '/reports/explain?resources=VCPU:1', 200),
    'placement:reports:headroom': (
        'GET', '/reports/headroom?resources=VCPU:1', 200),
    'placement:reports:usage': ('GET', f'/reports/usage/{PROJECT}', 200),
    'placement:metrics': ('GET', '/metrics', 200),
}

# What every request reads, made by an admin with the service role.
SETUP = [
    {'name': 'create the provider',
     **_request('POST', '/resource_providers', 200,
                {'name': 'policy', 'uuid': PROVIDER})},
    {'name': 'give it inventory',
     **_request('PUT', f'{RP}/inventories', 200,
                {'resource_provider_generation': 0,
                 'inventories': {'VCPU': {'total': 8}}})},
    {'name': 'create the resource class',
     **_request('PUT', f'/resource_classes/{CLASS}', 201)},
    {'name': 'create the trait',
     **_request('PUT', f'/traits/{TRAIT}', 201)},
    {'name': 'allocate from it for a consumer of the project',
     **_request('PUT', f'/allocations/{CONSUMER}', 204, _allocations(
         {PROVIDER: {'resources': {'VCPU': 1}}}))},
]

# file name: (fixture, whether the "legacy" values apply, description)
FILES = {
    'policy-personas.yaml': (
        'APIFixture', False,
        'enforce_new_defaults = True (oslo.policy\'s default)'),
    'policy-personas-legacy.yaml': (
        'LegacyPolicyFixture', True,
        'enforce_new_defaults = False (the "legacy" values)'),
}


def parse_table(text=TABLE):
    """{rule: {persona: (new defaults allow, legacy allows)}}."""
    table = {}
    for line in text.strip().splitlines():
        cells = [cell.strip() for cell in line.strip('| ').split('|')]
        rule, values = cells[0].strip('`'), cells[1:]
        table[rule] = {persona: _allowed(value)
                       for persona, value in zip(PERSONAS, values,
                                                 strict=True)}
    return table


def _allowed(value):
    match = re.fullmatch(r'(yes|no)(?: \(legacy: (yes|no)\))?', value)
    if match is None:
        raise ValueError(f'not a table value: {value!r}')
    new, legacy = match.group(1), match.group(2) or match.group(1)
    return new == 'yes', legacy == 'yes'


def _test(rule, persona, allowed):
    method, url, status, *data = REQUESTS[rule]
    data = [body(persona) if callable(body) else body for body in data]
    request = _request(method, url, status, *data)
    verdict = 'may' if allowed else 'may not'
    test = {'name': f'{persona} {verdict} {rule}',
            'request_headers': PERSONAS[persona], **request}
    if not allowed:
        test['status'] = 403
        test['response_strings'] = [rule]
    return test


class _Dumper(yaml.SafeDumper):
    """Writes every persona's headers out in full, with no YAML aliases."""

    def ignore_aliases(self, data):
        return True


def render(file_name):
    """The YAML text of one generated gabbit."""
    fixture, legacy, description = FILES[file_name]
    tests = list(SETUP)
    for rule, row in parse_table().items():
        for persona, allowed in row.items():
            tests.append(_test(rule, persona, allowed[legacy]))
    document = {
        'fixtures': [fixture],
        'defaults': {'request_headers': {
            'x-auth-token': 'admin',
            'x-roles': 'service',
            'accept': 'application/json',
            'content-type': 'application/json',
            'openstack-api-version': 'placement latest'}},
        'tests': tests,
    }
    header = (
        f'# Generated by tools/policy_personas.py: do not edit.\n'
        f'# Who may do what with today\'s policy defaults, with\n'
        f'# {description}:\n'
        f'# one request per rule per persona.\n')
    return header + yaml.dump(document, Dumper=_Dumper, sort_keys=False,
                              width=79)


def main():
    for file_name in FILES:
        with open(os.path.join(GABBITS, file_name), 'w') as gabbit:
            gabbit.write(render(file_name))


if __name__ == '__main__':
    main()
