"""The audit report: what in placement's own data does not add up.

Each finding is one set-based statement over the whole cloud: its rows
are counted by a window (``COUNT(*) OVER ()``) and the first
:data:`EXAMPLES` of them, in a stable order, are the examples. Nothing
here writes, but :func:`remove_empty_consumers`, the one repair.

A provider's tree is its parent chain: ``root_provider_id`` is derived
from it (the API sets parents, never roots), so a root that is not the
top of the chain is the wrong one.
"""

import dataclasses
import heapq
import typing

import sqlalchemy as sa

from placement import uuid_form
from placement.db import api as db_api
from placement.db import models
from placement.objects import capacity
from placement.objects import conditions
from placement.objects import consumer
from placement.objects import resource_class
from placement.objects import resource_provider

#: Examples per finding, at most.
EXAMPLES = 20
#: Consumer records deleted per statement by the repair.
_DELETE_BATCH = 500

RP = resource_provider.RP
RC = resource_class.RC
INV = models.Inventory.__table__
ALLOC = models.Allocation.__table__
AGGREGATE = models.PlacementAggregate.__table__
PROVIDER_AGGREGATE = models.ResourceProviderAggregate.__table__
CONSUMER = consumer.CONSUMER
PROJECT = consumer.PROJECT
USER = consumer.USER
CONSUMER_TYPE = consumer.CONSUMER_TYPE

_ROOT = RP.alias('stored_root')
_PARENT = RP.alias('parent')
_PARENT_ROOT = RP.alias('parent_root')
_TOP = RP.alias('top')

_STRING = {'type': 'string'}
_NULLABLE_STRING = {'type': ['string', 'null']}
_INTEGER = {'type': 'integer'}


def _consumer_type():
    """The consumer's type name, ``unknown`` without one (as GET /usages
    shows it)."""
    return sa.func.coalesce(CONSUMER_TYPE.c.name,
                            consumer.UNKNOWN_TYPE).label('consumer_type')


def _with_owner(query, consumer_uuid):
    """``query`` outer-joined to the consumer of ``consumer_uuid`` and its
    type (a consumer record may be missing)."""
    return (query.outerjoin(CONSUMER, CONSUMER.c.uuid == consumer_uuid)
            .outerjoin(CONSUMER_TYPE,
                       CONSUMER_TYPE.c.id == CONSUMER.c.consumer_type_id))


def _has_allocations():
    return sa.exists().where(ALLOC.c.consumer_id == CONSUMER.c.uuid)


def _over_capacity():
    used = (sa.select(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id,
                      sa.func.sum(ALLOC.c.used).label('used'))
            .group_by(ALLOC.c.resource_provider_id,
                      ALLOC.c.resource_class_id)
            .subquery('usage'))
    limit = capacity.capacity_sql(INV.c)
    return (sa.select(RP.c.uuid.label('provider_uuid'),
                      RP.c.name.label('provider_name'),
                      RC.c.name.label('resource_class'),
                      sa.cast(used.c.used, sa.BigInteger).label('used'),
                      limit.label('capacity'))
            .select_from(used)
            .join(INV, capacity.of_inventory_sql(used.c, INV.c))
            .join(RP, RP.c.id == INV.c.resource_provider_id)
            .join(RC, RC.c.id == INV.c.resource_class_id)
            .where(used.c.used > limit)
            .order_by(RP.c.uuid, RC.c.name))


def _allocations_without_inventory():
    return (sa.select(ALLOC.c.consumer_id.label('consumer_uuid'),
                      RP.c.uuid.label('provider_uuid'),
                      RC.c.name.label('resource_class'),
                      ALLOC.c.used)
            .select_from(ALLOC)
            .outerjoin(INV, capacity.of_inventory_sql(ALLOC.c, INV.c))
            .outerjoin(RP, RP.c.id == ALLOC.c.resource_provider_id)
            .outerjoin(RC, RC.c.id == ALLOC.c.resource_class_id)
            .where(INV.c.id.is_(None))
            .order_by(ALLOC.c.consumer_id, ALLOC.c.id))


def _rows_of_missing(table, column, key, label, *columns):
    """Rows of ``table`` (a provider's inventories or links) whose
    provider, or whose row ``column`` refers to (of ``key``'s table),
    does not exist; with their provider, its ids and ``key`` as
    ``label``, and ``columns``."""
    named = key.table
    return (sa.select(*_provider_columns(), table.c.resource_provider_id,
                      key.label(label), column, *columns)
            .select_from(table)
            .outerjoin(RP, RP.c.id == table.c.resource_provider_id)
            .outerjoin(named, named.c.id == column)
            .where(sa.or_(RP.c.id.is_(None), named.c.id.is_(None)))
            .order_by(table.c.resource_provider_id, column))


def _consumers_in_several_trees():
    trees = sa.func.count(sa.distinct(RP.c.root_provider_id))
    spread = (sa.select(ALLOC.c.consumer_id, trees.label('trees'))
              .join(RP, RP.c.id == ALLOC.c.resource_provider_id)
              .where(RP.c.id.not_in(conditions.sharing()))
              .group_by(ALLOC.c.consumer_id)
              .having(trees > 1)
              .subquery('spread'))
    return (_with_owner(
        sa.select(spread.c.consumer_id.label('consumer_uuid'),
                  _consumer_type(), spread.c.trees)
        .select_from(spread), spread.c.consumer_id)
        .order_by(spread.c.consumer_id))


def _consumers_without_allocations():
    return (sa.select(CONSUMER.c.uuid.label('consumer_uuid'),
                      _consumer_type(),
                      PROJECT.c.external_id.label('project_id'),
                      USER.c.external_id.label('user_id'))
            .select_from(CONSUMER)
            .outerjoin(CONSUMER_TYPE,
                       CONSUMER_TYPE.c.id == CONSUMER.c.consumer_type_id)
            .outerjoin(PROJECT, PROJECT.c.id == CONSUMER.c.project_id)
            .outerjoin(USER, USER.c.id == CONSUMER.c.user_id)
            .where(~_has_allocations())
            .order_by(CONSUMER.c.uuid))


def _allocations_without_consumer():
    return (sa.select(ALLOC.c.consumer_id.label('consumer_uuid'),
                      sa.func.count().label('allocations'))
            .outerjoin(CONSUMER, CONSUMER.c.uuid == ALLOC.c.consumer_id)
            .where(CONSUMER.c.id.is_(None))
            .group_by(ALLOC.c.consumer_id)
            .order_by(ALLOC.c.consumer_id))


def _consumers_without(owner, column):
    """Consumers with allocations whose ``owner`` record (project or
    user table) is missing."""
    return (sa.select(CONSUMER.c.uuid.label('consumer_uuid'),
                      _consumer_type())
            .select_from(CONSUMER)
            .outerjoin(owner, owner.c.id == column)
            .outerjoin(CONSUMER_TYPE,
                       CONSUMER_TYPE.c.id == CONSUMER.c.consumer_type_id)
            .where(owner.c.id.is_(None), _has_allocations())
            .order_by(CONSUMER.c.uuid))


def _tops():
    """CTE ``(id, root_provider_id, top_id)``: each provider whose parent
    chain ends, its stored root and the provider at the end of its chain,
    found from the tops down (so a cycle of parents is never entered: the
    recursion ends on any data). The statements drive from it, scanned
    once: joined to, it is planned as a scan per provider (its size is
    unknown to the planner), which at 10,000 providers took seconds."""
    tops = (sa.select(RP.c.id, RP.c.root_provider_id,
                      RP.c.id.label('top_id'))
            .where(RP.c.parent_provider_id.is_(None))
            .cte('tops', recursive=True))
    child = RP.alias('child')
    return tops.union_all(
        sa.select(child.c.id, child.c.root_provider_id, tops.c.top_id)
        .join(tops, child.c.parent_provider_id == tops.c.id))


def _provider_columns():
    return (RP.c.uuid.label('provider_uuid'), RP.c.name.label('provider_name'))


def _providers_without_root():
    return (sa.select(*_provider_columns())
            .outerjoin(_ROOT, _ROOT.c.id == RP.c.root_provider_id)
            .where(_ROOT.c.id.is_(None))
            .order_by(RP.c.uuid))


def _providers_with_wrong_root():
    tops = _tops()
    return (sa.select(*_provider_columns(),
                      _ROOT.c.uuid.label('root_uuid'),
                      _TOP.c.uuid.label('expected_root_uuid'))
            .select_from(tops)
            .join(RP, RP.c.id == tops.c.id)
            .join(_ROOT, _ROOT.c.id == tops.c.root_provider_id)
            .join(_TOP, _TOP.c.id == tops.c.top_id)
            .where(tops.c.root_provider_id != tops.c.top_id)
            .order_by(RP.c.uuid))


def _providers_with_parent_in_other_tree():
    return (sa.select(*_provider_columns(),
                      _ROOT.c.uuid.label('root_uuid'),
                      _PARENT.c.uuid.label('parent_uuid'),
                      _PARENT_ROOT.c.uuid.label('parent_root_uuid'))
            .join(_PARENT, _PARENT.c.id == RP.c.parent_provider_id)
            .outerjoin(_ROOT, _ROOT.c.id == RP.c.root_provider_id)
            .outerjoin(_PARENT_ROOT,
                       _PARENT_ROOT.c.id == _PARENT.c.root_provider_id)
            .where(_PARENT.c.root_provider_id != RP.c.root_provider_id)
            .order_by(RP.c.uuid))


def _providers_with_broken_parent_chain():
    tops = _tops()
    return (sa.select(*_provider_columns(),
                      _PARENT.c.uuid.label('parent_uuid'))
            .outerjoin(_PARENT, _PARENT.c.id == RP.c.parent_provider_id)
            .where(~sa.exists().where(tops.c.id == RP.c.id))
            .order_by(RP.c.uuid))


@dataclasses.dataclass(frozen=True)
class Finding:
    """One kind of inconsistency: its statement and what an example has."""

    name: str
    description: str
    #: What ``count`` counts (the rows of the statement).
    counts: str
    #: () -> the statement, ordered; its columns are the example's fields.
    statement: typing.Callable
    #: ``{field: JSON schema}`` of an example, for the response schema.
    fields: dict


_CONSUMER_FIELDS = {'consumer_uuid': _STRING, 'consumer_type': _STRING}
_PROVIDER_FIELDS = {'provider_uuid': _STRING,
                    'provider_name': _NULLABLE_STRING}
#: A row of a provider that may not exist (:func:`_rows_of_missing`).
_ROW_PROVIDER_FIELDS = {'provider_uuid': _NULLABLE_STRING,
                        'provider_name': _NULLABLE_STRING,
                        'resource_provider_id': _INTEGER}

FINDINGS = (
    Finding(
        'over_capacity',
        'Providers whose usage of a class exceeds its capacity, (total - '
        'reserved) x allocation_ratio: left over after a lowered '
        'inventory or ratio; every later change of their allocations of '
        'the class is refused.',
        'provider and class pairs', _over_capacity,
        {**_PROVIDER_FIELDS, 'resource_class': _STRING, 'used': _INTEGER,
         'capacity': _INTEGER}),
    Finding(
        'allocations_without_inventory',
        'Allocations of a class the provider has no inventory of (or of '
        'a provider that does not exist: provider_uuid null).',
        'allocations', _allocations_without_inventory,
        {'consumer_uuid': _STRING, 'provider_uuid': _NULLABLE_STRING,
         'resource_class': _NULLABLE_STRING, 'used': _INTEGER}),
    Finding(
        'inventories_without_provider_or_class',
        'Inventories of a provider or a resource class that does not '
        'exist (provider_uuid or resource_class null; the ids are the '
        'rows\' own): left by a delete that raced an inventory write, '
        'which earlier versions allowed. One of a deleted custom class '
        'may pass to the next custom class created, which can take its '
        'id.',
        'inventories', lambda: _rows_of_missing(
            INV, INV.c.resource_class_id, RC.c.name, 'resource_class',
            INV.c.total),
        {**_ROW_PROVIDER_FIELDS, 'resource_class': _NULLABLE_STRING,
         'resource_class_id': _INTEGER, 'total': _INTEGER}),
    Finding(
        'consumers_in_several_trees',
        'Consumers holding allocations in more than one provider tree, '
        'sharing providers aside: a migration in flight, or a leak.',
        'consumers', _consumers_in_several_trees,
        {**_CONSUMER_FIELDS, 'trees': _INTEGER}),
    Finding(
        'consumers_without_allocations',
        'Consumer records with no allocations (placement-manage audit '
        '--fix-empty-consumers removes them).',
        'consumers', _consumers_without_allocations,
        {**_CONSUMER_FIELDS, 'project_id': _NULLABLE_STRING,
         'user_id': _NULLABLE_STRING}),
    Finding(
        'allocations_without_consumer',
        'Allocations whose consumer record is missing (placement-manage '
        'db online_data_migrations creates it).',
        'consumers', _allocations_without_consumer,
        {'consumer_uuid': _STRING, 'allocations': _INTEGER}),
    Finding(
        'consumers_without_project',
        'Consumers with allocations whose project record is missing.',
        'consumers', lambda: _consumers_without(PROJECT,
                                                CONSUMER.c.project_id),
        _CONSUMER_FIELDS),
    Finding(
        'consumers_without_user',
        'Consumers with allocations whose user record is missing.',
        'consumers', lambda: _consumers_without(USER, CONSUMER.c.user_id),
        _CONSUMER_FIELDS),
    Finding(
        'providers_without_root',
        'Providers whose root_provider_id is empty or names no provider.',
        'providers', _providers_without_root, _PROVIDER_FIELDS),
    Finding(
        'providers_with_wrong_root',
        'Providers whose root_provider_id is not the top of their parent '
        'chain (for a provider without parent: itself).',
        'providers', _providers_with_wrong_root,
        {**_PROVIDER_FIELDS, 'root_uuid': _STRING,
         'expected_root_uuid': _STRING}),
    Finding(
        'providers_with_parent_in_other_tree',
        'Providers whose parent has another root_provider_id than their '
        'own: on either side of a wrong root.',
        'providers', _providers_with_parent_in_other_tree,
        {**_PROVIDER_FIELDS, 'root_uuid': _NULLABLE_STRING,
         'parent_uuid': _STRING, 'parent_root_uuid': _NULLABLE_STRING}),
    Finding(
        'providers_with_broken_parent_chain',
        'Providers whose parent chain never reaches a provider without a '
        'parent: in a cycle of parents, below one, or below a parent '
        'that does not exist.',
        'providers', _providers_with_broken_parent_chain,
        {**_PROVIDER_FIELDS, 'parent_uuid': _NULLABLE_STRING}),
    Finding(
        'aggregate_links_without_provider_or_aggregate',
        'Aggregate memberships of a provider or an aggregate that does '
        'not exist (provider_uuid or aggregate_uuid null; the ids are '
        'the rows\' own): left by a provider delete that raced an '
        'aggregates PUT, which earlier versions allowed.',
        'links', lambda: _rows_of_missing(
            PROVIDER_AGGREGATE, PROVIDER_AGGREGATE.c.aggregate_id,
            AGGREGATE.c.uuid, 'aggregate_uuid'),
        {**_ROW_PROVIDER_FIELDS, 'aggregate_uuid': _NULLABLE_STRING,
         'aggregate_id': _INTEGER}),
)

#: The finding of ``--live-consumers``, which only the CLI can give.
ORPHANS = Finding(
    'orphaned_allocations',
    'Consumers holding allocations that are not in the list of live '
    'consumers given (orphans), with their number per consumer type.',
    'consumers', None,
    {**_CONSUMER_FIELDS, 'project_id': _NULLABLE_STRING,
     'allocations': _INTEGER})

FINDINGS_BY_NAME = {finding.name: finding for finding in (*FINDINGS, ORPHANS)}


def examine(conn, finding):
    """``{description, counts, count, examples}`` of one statement."""
    statement = finding.statement()
    rows = conn.execute(
        statement.add_columns(sa.func.count().over().label('rows_found'))
        .limit(EXAMPLES)).mappings().all()
    return {'description': finding.description, 'counts': finding.counts,
            'count': rows[0]['rows_found'] if rows else 0,
            'examples': [{name: row[name] for name in finding.fields}
                         for row in rows]}


def _orphans(conn, live_consumers):
    """The consumers with allocations not in ``live_consumers`` (a set of
    canonical uuids): one statement, streamed unordered (a sort of every
    consumer cost MariaDB seconds at 100,000 providers), compared here
    (the list may hold hundreds of thousands of uuids); the examples are
    the first by uuid, kept in a heap of :data:`EXAMPLES`."""
    held = (sa.select(ALLOC.c.consumer_id,
                      sa.func.count().label('allocations'))
            .group_by(ALLOC.c.consumer_id)
            .subquery('held'))
    rows = db_api.streamed(conn, _with_owner(
        sa.select(held.c.consumer_id, _consumer_type(),
                  PROJECT.c.external_id, held.c.allocations)
        .select_from(held), held.c.consumer_id)
        .outerjoin(PROJECT, PROJECT.c.id == CONSUMER.c.project_id))
    by_type = {}

    def orphans():
        for row in rows:
            uuid, type_name = row[0], row[1]
            if (uuid in live_consumers or uuid_form.canonical(
                    uuid) in live_consumers):
                continue
            by_type[type_name] = by_type.get(type_name, 0) + 1
            yield tuple(row)

    examples = heapq.nsmallest(EXAMPLES, orphans())
    return {'description': ORPHANS.description, 'counts': ORPHANS.counts,
            'count': sum(by_type.values()),
            'by_consumer_type': dict(sorted(by_type.items())),
            'examples': [dict(zip(ORPHANS.fields, example, strict=True))
                         for example in examples]}


def report(conn, live_consumers=None):
    """``{"audit": {"clean", "findings": {name: finding}}}``.

    ``live_consumers``: canonical uuids of the consumers that exist
    outside placement (servers...); given, the orphans are a finding too.
    """
    findings = {finding.name: examine(conn, finding) for finding in FINDINGS}
    if live_consumers is not None:
        findings[ORPHANS.name] = _orphans(conn, live_consumers)
    return {'audit': {
        'clean': not any(found['count'] for found in findings.values()),
        'findings': findings}}


def remove_empty_consumers(conn):
    """Delete the consumer records with no allocations; their uuids.

    Run at READ COMMITTED: the records are locked as they are found, so
    that a writer giving one of them allocations meanwhile (it swaps the
    consumer's generation) is waited for, and the DELETE, a statement
    after it, sees its allocations and keeps that consumer.
    """
    empty = dict(conn.execute(
        sa.select(CONSUMER.c.id, CONSUMER.c.uuid)
        .where(~_has_allocations())
        .with_for_update()).all())
    ids = sorted(empty)
    for start in range(0, len(ids), _DELETE_BATCH):
        batch = ids[start:start + _DELETE_BATCH]
        conn.execute(sa.delete(CONSUMER).where(CONSUMER.c.id.in_(batch),
                                               ~_has_allocations()))
        for kept in conn.scalars(sa.select(CONSUMER.c.id)
                                 .where(CONSUMER.c.id.in_(batch))):
            del empty[kept]
    return sorted(empty.values())


def _example_schema(finding):
    return {'type': 'object', 'required': list(finding.fields),
            'properties': finding.fields, 'additionalProperties': False}


def _finding_schema(finding, **extra):
    return {'type': 'object',
            'description': finding.description,
            'required': ['description', 'counts', 'count', 'examples',
                         *extra],
            'properties': {
                'description': _STRING,
                'counts': _STRING,
                'count': {'type': 'integer', 'minimum': 0},
                'examples': {'type': 'array', 'maxItems': EXAMPLES,
                             'items': _example_schema(finding)},
                **extra},
            'additionalProperties': False}


#: The JSON schema of the document of :func:`report`.
SCHEMA = {
    'type': 'object',
    'required': ['audit'],
    'properties': {'audit': {
        'type': 'object',
        'required': ['clean', 'findings'],
        'properties': {
            'clean': {'type': 'boolean',
                      'description': 'True when every count is 0.'},
            'findings': {
                'type': 'object',
                'required': [finding.name for finding in FINDINGS],
                'properties': {
                    **{finding.name: _finding_schema(finding)
                       for finding in FINDINGS},
                    ORPHANS.name: _finding_schema(
                        ORPHANS, by_consumer_type={
                            'type': 'object',
                            'additionalProperties': _INTEGER}),
                },
                'additionalProperties': False},
        },
        'additionalProperties': False}},
    'additionalProperties': False,
}
