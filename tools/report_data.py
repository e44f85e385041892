"""The cloud the report tests and tools look at, loaded through the API.

Zones: ``az1`` is aggregate AZ1, ``az2`` aggregate AZ2 (see
:data:`ZONES`); OTHER is an aggregate that is no zone.

- ``cn1`` (in AZ1 and OTHER, trait HW_CPU_X86_AVX2): VCPU 16 at ratio 4
  with max_unit 32, MEMORY_MB 8192 with 512 reserved.
- ``cn2`` (in AZ2): VCPU 8, MEMORY_MB 4096 at ratio 1.5 with step_size
  1024, CUSTOM_LICENSE 4 (compute: on a compute tree).
- ``cn3`` (in no zone: ``unknown``), no inventory itself, with children
  ``cn3-numa0`` (VCPU 4) and ``cn3-pf`` (SRIOV_NET_VF 8,
  NET_BW_EGR_KILOBIT_PER_SEC 10000).
- ``shared-disk`` (in AZ1 and AZ2, MISC_SHARES_VIA_AGGREGATE): DISK_GB
  1000 with 100 reserved, CUSTOM_LICENSE 10 (storage: shared).

Allocations: project ``p1``'s INSTANCE consumer C1 holds VCPU 2 and
MEMORY_MB 1024 on cn1 and DISK_GB 20 and CUSTOM_LICENSE 1 on
shared-disk; project ``p2``'s
MIGRATION consumer C2 holds VCPU 20 on cn1 (more than its raw 16) and
its untyped consumer C3 SRIOV_NET_VF 1 on cn3-pf.
"""

import contextlib
import json

import webob

from placement import throwaway

AZ1 = 'a1a1a1a1-0000-4000-8000-000000000001'
AZ2 = 'a2a2a2a2-0000-4000-8000-000000000002'
OTHER = 'b0b0b0b0-0000-4000-8000-000000000003'
ZONES = {'az1': AZ1, 'az2': AZ2}

CN1 = 'c0000000-0000-4000-8000-000000000001'
CN2 = 'c0000000-0000-4000-8000-000000000002'
CN3 = 'c0000000-0000-4000-8000-000000000003'
NUMA0 = 'c0000000-0000-4000-8000-000000000031'
PF = 'c0000000-0000-4000-8000-000000000032'
SHARED = 'd0000000-0000-4000-8000-000000000001'
C1 = 'e0000000-0000-4000-8000-000000000001'
C2 = 'e0000000-0000-4000-8000-000000000002'
C3 = 'e0000000-0000-4000-8000-000000000003'

_PROVIDERS = [
    # (name, uuid, parent, inventories, traits, aggregates)
    ('cn1', CN1, None,
     {'VCPU': {'total': 16, 'allocation_ratio': 4.0, 'max_unit': 32},
      'MEMORY_MB': {'total': 8192, 'reserved': 512}},
     ['HW_CPU_X86_AVX2'], [AZ1, OTHER]),
    ('cn2', CN2, None,
     {'VCPU': {'total': 8},
      'MEMORY_MB': {'total': 4096, 'allocation_ratio': 1.5,
                    'step_size': 1024},
      'CUSTOM_LICENSE': {'total': 4}},
     [], [AZ2]),
    ('cn3', CN3, None, {}, [], []),
    ('cn3-numa0', NUMA0, CN3, {'VCPU': {'total': 4}}, [], []),
    ('cn3-pf', PF, CN3,
     {'SRIOV_NET_VF': {'total': 8},
      'NET_BW_EGR_KILOBIT_PER_SEC': {'total': 10000}}, [], []),
    ('shared-disk', SHARED, None,
     {'DISK_GB': {'total': 1000, 'reserved': 100},
      'CUSTOM_LICENSE': {'total': 10}},
     ['MISC_SHARES_VIA_AGGREGATE'], [AZ1, AZ2]),
]

_ALLOCATIONS = [
    # (consumer, project, consumer type, {provider: {class: amount}})
    (C1, 'p1', 'INSTANCE',
     {CN1: {'VCPU': 2, 'MEMORY_MB': 1024},
      SHARED: {'DISK_GB': 20, 'CUSTOM_LICENSE': 1}}),
    (C2, 'p2', 'MIGRATION', {CN1: {'VCPU': 20}}),
    (C3, 'p2', None, {PF: {'SRIOV_NET_VF': 1}}),
]


def call(app, method, path, body, version='latest'):
    """A request of the admin that must succeed; its response."""
    req = webob.Request.blank(path, method=method, headers={
        'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
        'OpenStack-API-Version': f'placement {version}'})
    if body is not None:
        req.body = json.dumps(body).encode('utf-8')
    response = req.get_response(app)
    assert response.status_int < 300, (path, response.text)
    return response


def allocate(app, consumer, project, consumer_type, allocations):
    body = {'allocations': {provider: {'resources': resources}
                            for provider, resources in allocations.items()},
            'project_id': project, 'user_id': 'u1',
            'consumer_generation': None}
    if consumer_type is None:
        # Before consumer types (1.38) a consumer has none.
        call(app, 'PUT', f'/allocations/{consumer}', body, '1.37')
    else:
        body['consumer_type'] = consumer_type
        call(app, 'PUT', f'/allocations/{consumer}', body)


def load(app):
    """Create the providers and allocations above through ``app``."""
    call(app, 'PUT', '/resource_classes/CUSTOM_LICENSE', None)
    for name, uuid, parent, inventories, traits, aggregates in _PROVIDERS:
        call(app, 'POST', '/resource_providers',
              {'name': name, 'uuid': uuid, 'parent_provider_uuid': parent})
        generation = 0
        if inventories:
            call(app, 'PUT', f'/resource_providers/{uuid}/inventories',
                  {'inventories': inventories,
                   'resource_provider_generation': generation})
            generation += 1
        if traits:
            call(app, 'PUT', f'/resource_providers/{uuid}/traits',
                  {'traits': traits,
                   'resource_provider_generation': generation})
            generation += 1
        if aggregates:
            call(app, 'PUT', f'/resource_providers/{uuid}/aggregates',
                  {'aggregates': aggregates,
                   'resource_provider_generation': generation})
    for allocation in _ALLOCATIONS:
        allocate(app, *allocation)


@contextlib.contextmanager
def serving(db_url, **overrides):
    """The application (noauth2, zones az1 and az2) over the loaded cloud,
    on the migrated database ``db_url``; ``overrides`` are more
    configuration, as :func:`placement.throwaway.build_stack` takes them."""
    application, db = throwaway.build_stack(
        db_url, reports__availability_zones=ZONES, **overrides)
    try:
        load(application)
        yield application
    finally:
        db.dispose()
