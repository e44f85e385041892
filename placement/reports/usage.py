"""The usage report: each project's usage per class, in Limes' shape.

Limes' project documents without quota fields: ``projects[].services[]
.resources[]`` with ``usage``. One query sums the allocations per project
and class (and whether the provider is shared, which decides the area of
some classes, as in the capacity report); one more lists a project's
consumers for ``detail``.
"""

import itertools
import operator

import sqlalchemy as sa

from placement import exception
from placement.db import api as db_api
from placement.db import models
from placement.objects import consumer
from placement.objects import resource_class
from placement.reports import areas
from placement.reports import inventory

_ALLOC = models.Allocation.__table__
RC = resource_class.RC


def _allocations():
    """Allocations joined to their consumer's project and class names."""
    return (sa.select()
            .select_from(_ALLOC)
            .join(consumer.CONSUMER,
                  consumer.CONSUMER.c.uuid == _ALLOC.c.consumer_id)
            .join(consumer.PROJECT,
                  consumer.PROJECT.c.id == consumer.CONSUMER.c.project_id)
            .join(RC, RC.c.id == _ALLOC.c.resource_class_id))


_SHARED = inventory.shared(_ALLOC.c.resource_provider_id).label('shared')


def _sums(conn, project_id=None):
    """``{project id: (((area, class name), usage), ...)}`` (of one
    project if given).

    A tuple per project, not a dict: the report of every project holds
    them all before its first project (it is sorted by usage). The rows
    are streamed (:func:`db_api.streamed`: a driver's buffer of them
    would cost more than the sums) and come by project, so that one
    project's dict is made at a time. The allocations are grouped by
    project and class ids, their names joined to the groups: joined to
    each of 660,000 allocations they cost the database about as much
    as the rest of the statement.
    """
    project = consumer.PROJECT.c.external_id
    keys = (consumer.CONSUMER.c.project_id, _ALLOC.c.resource_class_id,
            _SHARED)
    groups = (sa.select(*keys, sa.func.sum(_ALLOC.c.used).label('used'))
              .select_from(_ALLOC)
              .join(consumer.CONSUMER,
                    consumer.CONSUMER.c.uuid == _ALLOC.c.consumer_id))
    if project_id is not None:
        groups = groups.where(
            consumer.CONSUMER.c.project_id
            == sa.select(consumer.PROJECT.c.id)
            .where(project == project_id).scalar_subquery())
    else:
        # Every allocation is read: in the table's order, each one's
        # consumer looked up by uuid. MariaDB chose to read every
        # consumer's allocations through their ``consumer_id`` index and
        # then the table: at 200,000 consumers and 660,100 allocations
        # about twice its CPU.
        groups = db_api.in_written_order(groups)
    groups = groups.group_by(*keys).subquery('usage_groups')
    query = (sa.select(project, RC.c.name, groups.c.shared, groups.c.used)
             .join_from(groups, consumer.PROJECT,
                        consumer.PROJECT.c.id == groups.c.project_id)
             .join(RC, RC.c.id == groups.c.resource_class_id)
             .order_by(project))
    sums = {}
    for project, rows in itertools.groupby(db_api.streamed(conn, query),
                                           key=operator.itemgetter(0)):
        usages = dict(sums.get(project, ()))
        for _project, class_name, shared, used in rows:
            key = (areas.area_of(class_name, shared), class_name)
            usages[key] = usages.get(key, 0) + int(used)
        sums[project] = tuple(usages.items())
    return sums


def _project(project_id, usages, selection, now):
    resources = {(area, name): areas.resource(name, usage=used)
                 for (area, name), used in usages
                 if selection.keeps(name, area)}
    return {'id': project_id,
            'services': areas.services(resources, scraped_at=now)}


def _check_class(conn, class_name):
    if class_name is not None:
        resource_class.ids_by_name(conn, [class_name])


def _usage_of(usages, class_name):
    """The usage of ``class_name`` in every area."""
    return sum(used for (_area, name), used in usages
               if name == class_name)


def all_projects(conn, selection, sort_by, now):
    """Every project with allocations, by descending usage of ``sort_by``.

    Without ``sort_by`` (a class name), or for equal usage, by project id.
    The sort needs every project's sums first; the documents are made
    from them as they are serialised (a generator: the API streams
    them).
    """
    _check_class(conn, sort_by)
    selection.check(conn)
    sums = _sums(conn)
    order = sorted(sums, key=lambda project: (
        -_usage_of(sums[project], sort_by) if sort_by else 0, project))
    return {'projects': (_project(project, sums.pop(project), selection, now)
                         for project in order)}


def _consumers(conn, project_id, selection):
    """``[{type, consumer_count, consumers: [{uuid, usage}]}]`` by type.

    Consumers without a type are of type ``unknown``, as in GET /usages;
    only the usage of the selected resources is shown (per class, summed
    over the selected areas), and only consumers with some. The rows are
    streamed, one per consumer and class: what is kept is a usage per
    consumer, and the entries are made from them as they are serialised.
    """
    query = (_allocations()
             .add_columns(_ALLOC.c.consumer_id,
                          consumer.CONSUMER_TYPE.c.name.label('type_name'),
                          RC.c.name, _SHARED, sa.func.sum(_ALLOC.c.used))
             .outerjoin(consumer.CONSUMER_TYPE,
                        consumer.CONSUMER_TYPE.c.id
                        == consumer.CONSUMER.c.consumer_type_id)
             .where(consumer.PROJECT.c.external_id == project_id)
             .group_by(_ALLOC.c.consumer_id, consumer.CONSUMER_TYPE.c.name,
                       RC.c.name, _SHARED))
    by_type = {}
    for uuid, type_name, class_name, shared, used in db_api.streamed(
            conn, query):
        if not selection.keeps(class_name,
                               areas.area_of(class_name, shared)):
            continue
        consumers = by_type.setdefault(type_name or consumer.UNKNOWN_TYPE, {})
        usage = consumers.setdefault(uuid, {})
        usage[class_name] = usage.get(class_name, 0) + int(used)
    return [{'type': type_name,
             'consumer_count': len(by_type[type_name]),
             'consumers': _consumer_entries(by_type[type_name])}
            for type_name in sorted(by_type)]


def _consumer_entries(usages):
    """``[{uuid, usage}]`` of ``{uuid: usage}`` by uuid, made as they
    are serialised (a generator: a project may have 100,000 consumers).

    A usage is by class name, as MySQL's GROUP BY gives the rows; on
    PostgreSQL their order is the plan's (a hash aggregate's, or a
    sort's), which made it vary."""
    for uuid in sorted(usages):
        yield {'uuid': uuid, 'usage': dict(sorted(usages.pop(uuid).items()))}


def one_project(conn, project_id, selection, detail, now):
    """One project's document; empty services if it has no allocations."""
    if not project_id:
        raise exception.BadRequest('A project id must not be empty')
    # At most one project; MySQL may match its id ignoring case.
    selection.check(conn)
    usages = next(iter(_sums(conn, project_id).values()), ())
    project = _project(project_id, usages, selection, now)
    if detail:
        project['consumer_types'] = _consumers(conn, project_id,
                                               selection)
    return {'project': project}
