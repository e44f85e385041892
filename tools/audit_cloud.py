"""The report cloud broken once for each finding of the audit.

:func:`plant` breaks :mod:`tools.report_data`'s cloud through the API
where the API can, and with direct writes where only a bug or an old
release could; :data:`PLANTED` is what the audit then finds.
"""

import sqlalchemy as sa

from placement.db import models
from tools import bench_allocation_candidates as bench
from tools import report_data

RP = models.ResourceProvider.__table__
INV = models.Inventory.__table__
RC = models.ResourceClass.__table__
ALLOC = models.Allocation.__table__
CONSUMER = models.Consumer.__table__
PROJECT = models.Project.__table__
USER = models.User.__table__
AGGREGATE = models.PlacementAggregate.__table__
PROVIDER_AGGREGATE = models.ResourceProviderAggregate.__table__

C4 = 'e0000000-0000-4000-8000-000000000004'
C5 = 'e0000000-0000-4000-8000-000000000005'
C6 = 'e0000000-0000-4000-8000-000000000006'
C7 = 'e0000000-0000-4000-8000-000000000007'
ROOTLESS = 'f0000000-0000-4000-8000-000000000001'
WRONG = 'f0000000-0000-4000-8000-000000000002'
WRONG_CHILD = 'f0000000-0000-4000-8000-000000000003'
CYCLE_G = 'f0000000-0000-4000-8000-000000000004'
CYCLE_H = 'f0000000-0000-4000-8000-000000000005'
MISSING = 999999


def provider_id(conn, uuid):
    return conn.scalar(sa.select(RP.c.id).where(RP.c.uuid == uuid))


def class_id(conn, name):
    return conn.scalar(sa.select(RC.c.id).where(RC.c.name == name))


def _update_provider(conn, uuid, **values):
    conn.execute(sa.update(RP).where(RP.c.uuid == uuid).values(**values))


def plant(application, db):
    """Break the report cloud once for each finding of the audit; returns
    what the audit then finds, ``{finding: examples}``."""
    # Through the API: a consumer on cn2 (over capacity once its
    # inventory shrinks below) and a migration holding two trees.
    report_data.allocate(application, C4, 'p1', 'INSTANCE',
                          {report_data.CN2: {'VCPU': 6}})
    report_data.allocate(application, C5, 'p2', 'MIGRATION',
                          {report_data.CN1: {'VCPU': 1},
                           report_data.CN2: {'VCPU': 1}})
    for name, uuid, parent in [('rootless', ROOTLESS, None),
                               ('wrong', WRONG, None),
                               ('wrong-child', WRONG_CHILD, WRONG),
                               ('cycle-g', CYCLE_G, None),
                               ('cycle-h', CYCLE_H, None)]:
        report_data.call(application, 'POST', '/resource_providers',
              {'name': name, 'uuid': uuid, 'parent_provider_uuid': parent})
    with db.writer() as conn:
        cn2, vcpu = provider_id(conn, report_data.CN2), class_id(conn, 'VCPU')
        conn.execute(sa.update(INV).where(
            INV.c.resource_provider_id == cn2,
            INV.c.resource_class_id == vcpu).values(total=4))
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=provider_id(conn, report_data.NUMA0),
            resource_class_id=class_id(conn, 'DISK_GB'),
            consumer_id=report_data.C3, used=5))
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=provider_id(conn, report_data.CN1),
            resource_class_id=class_id(conn, 'MEMORY_MB'),
            consumer_id=C7, used=128))
        # No foreign key holds an allocation to its provider: one of a
        # provider deleted under it names none.
        conn.execute(sa.insert(ALLOC).values(
            resource_provider_id=MISSING,
            resource_class_id=class_id(conn, 'DISK_GB'),
            consumer_id=report_data.C3, used=3))
        # Neither has inventories: a delete that raced an inventory write
        # left them, as aggregate links of a deleted provider.
        cn1 = provider_id(conn, report_data.CN1)
        conn.execute(sa.insert(INV), [
            bench.inventory_row(cn1, MISSING, 4),
            bench.inventory_row(MISSING, vcpu, 8)])
        az1 = conn.scalar(sa.select(AGGREGATE.c.id).where(
            AGGREGATE.c.uuid == report_data.AZ1))
        conn.execute(sa.insert(PROVIDER_AGGREGATE), [
            {'resource_provider_id': MISSING, 'aggregate_id': az1},
            {'resource_provider_id': cn1, 'aggregate_id': MISSING}])
        conn.execute(sa.insert(CONSUMER).values(
            uuid=C6, generation=0,
            project_id=conn.scalar(sa.select(PROJECT.c.id).where(
                PROJECT.c.external_id == 'p1')),
            user_id=conn.scalar(sa.select(USER.c.id).where(
                USER.c.external_id == 'u1'))))
        conn.execute(sa.update(CONSUMER).where(
            CONSUMER.c.uuid == report_data.C1).values(project_id=MISSING))
        conn.execute(sa.update(CONSUMER).where(
            CONSUMER.c.uuid == report_data.C2).values(user_id=MISSING))
        _update_provider(conn, ROOTLESS, root_provider_id=None)
        _update_provider(conn, WRONG_CHILD, root_provider_id=cn2)
        cycle_g = provider_id(conn, CYCLE_G)
        cycle_h = provider_id(conn, CYCLE_H)
        _update_provider(conn, CYCLE_G, parent_provider_id=cycle_h)
        _update_provider(conn, CYCLE_H, parent_provider_id=cycle_g,
                         root_provider_id=cycle_g)
        return _planted(cn1, az1)


def _planted(cn1, az1):
    """What the audit of the planted cloud finds, ``{finding: examples}``;
    ``cn1`` and ``az1`` are the ids the database gave those rows."""
    return {
        'over_capacity': [
            {'provider_uuid': report_data.CN2, 'provider_name': 'cn2',
             'resource_class': 'VCPU', 'used': 7, 'capacity': 4}],
        'allocations_without_inventory': [
            {'consumer_uuid': report_data.C3,
             'provider_uuid': report_data.NUMA0,
             'resource_class': 'DISK_GB', 'used': 5},
            {'consumer_uuid': report_data.C3, 'provider_uuid': None,
             'resource_class': 'DISK_GB', 'used': 3}],
        'inventories_without_provider_or_class': [
            {'provider_uuid': report_data.CN1, 'provider_name': 'cn1',
             'resource_provider_id': cn1, 'resource_class': None,
             'resource_class_id': MISSING, 'total': 4},
            {'provider_uuid': None, 'provider_name': None,
             'resource_provider_id': MISSING, 'resource_class': 'VCPU',
             'resource_class_id': 0, 'total': 8}],
        'consumers_in_several_trees': [
            {'consumer_uuid': C5, 'consumer_type': 'MIGRATION', 'trees': 2}],
        'consumers_without_allocations': [
            {'consumer_uuid': C6, 'consumer_type': 'unknown',
             'project_id': 'p1', 'user_id': 'u1'}],
        'allocations_without_consumer': [
            {'consumer_uuid': C7, 'allocations': 1}],
        'consumers_without_project': [
            {'consumer_uuid': report_data.C1, 'consumer_type': 'INSTANCE'}],
        'consumers_without_user': [
            {'consumer_uuid': report_data.C2, 'consumer_type': 'MIGRATION'}],
        'providers_without_root': [
            {'provider_uuid': ROOTLESS, 'provider_name': 'rootless'}],
        'providers_with_wrong_root': [
            {'provider_uuid': WRONG_CHILD, 'provider_name': 'wrong-child',
             'root_uuid': report_data.CN2, 'expected_root_uuid': WRONG}],
        'providers_with_parent_in_other_tree': [
            {'provider_uuid': WRONG_CHILD, 'provider_name': 'wrong-child',
             'root_uuid': report_data.CN2, 'parent_uuid': WRONG,
             'parent_root_uuid': WRONG}],
        'providers_with_broken_parent_chain': [
            {'provider_uuid': CYCLE_G, 'provider_name': 'cycle-g',
             'parent_uuid': CYCLE_H},
            {'provider_uuid': CYCLE_H, 'provider_name': 'cycle-h',
             'parent_uuid': CYCLE_G}],
        'aggregate_links_without_provider_or_aggregate': [
            {'provider_uuid': report_data.CN1, 'provider_name': 'cn1',
             'resource_provider_id': cn1, 'aggregate_uuid': None,
             'aggregate_id': MISSING},
            {'provider_uuid': None, 'provider_name': None,
             'resource_provider_id': MISSING,
             'aggregate_uuid': report_data.AZ1, 'aggregate_id': az1}],
    }
