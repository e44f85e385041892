"""The capacity gauges of a scrape, read from the database in a few
set-based statements and kept for ``[metrics] capacity_cache_time``.

Per provider and resource class, openstack-exporter's placement metrics
with its names and labels (``hostname`` is the provider's name,
``resourcetype`` the class): ``openstack_placement_resource_total``,
``_reserved``, ``_allocation_ratio`` and ``_usage`` (the sum of the
allocations), and ``openstack_placement_up``. Per class, and per class
and availability zone, the capacity report's ``capacity``, ``usage``
and ``raw_capacity`` (:mod:`placement.reports.capacity`).
"""

import threading
import time

import prometheus_client
import sqlalchemy as sa
from prometheus_client import core

from placement.db import api as db_api
from placement.db import failures
from placement.objects import resource_class
from placement.reports import inventory
from placement.reports import scope
from placement.reports.declared import capacity as capacity_report

_EXPORTER = 'openstack_placement_'
_PROVIDER_LABELS = ('hostname', 'resourcetype')
#: openstack-exporter's metric of each inventory column.
_PER_PROVIDER = (
    ('resource_total', 'total', 'Inventory total.'),
    ('resource_reserved', 'reserved', 'Inventory reserved.'),
    ('resource_allocation_ratio', 'allocation_ratio',
     'Inventory allocation ratio.'),
    ('resource_usage', 'used', 'Sum of the allocations.'),
)
#: The capacity report's numbers, per class and per class and zone.
_REPORT_NUMBERS = (
    ('capacity', 'Capacity: sum of floor((total - reserved) * '
     'allocation_ratio).'),
    ('raw_capacity', 'Capacity before overcommit: sum of total - reserved '
     '(only for resources with an allocation ratio other than 1).'),
    ('usage', 'Sum of the allocations.'),
)
_CLASS_LABELS = ('service', 'resource_class')
_ZONE_LABELS = (*_CLASS_LABELS, 'availability_zone')


def _label_value(text):
    """``text`` escaped as the text format wants a label value."""
    return text.replace('\\', '\\\\').replace('\n', '\\n').replace(
        '"', '\\"')


def _per_provider(conn):
    """openstack-exporter's families in the text format, from one row
    per inventory.

    Written here rather than through ``prometheus_client``'s families:
    at 10,000 providers they are 120,000 samples, which it builds and
    formats one object and one label escape each (over a second); here
    the four samples of an inventory share one escaped label string.
    The tests read the result with ``prometheus_client``'s parser.
    """
    classes = {class_id: f'resourcetype="{_label_value(name)}"}} '
               for class_id, name in conn.execute(sa.select(
                   resource_class.RC.c.id, resource_class.RC.c.name))}
    numbers = inventory.numbers(())
    families = [[f'# HELP {_EXPORTER}{name} {text}\n'
                 f'# TYPE {_EXPORTER}{name} gauge\n']
                for name, _column, text in _PER_PROVIDER]
    totals, reserved, ratios, usages = families
    total, reserve, ratio, usage = (f'{_EXPORTER}{name}{{hostname="'
                                    for name, _c, _t in _PER_PROVIDER)
    for name, class_id, *values in db_api.streamed(
            conn, sa.select(scope.RP.c.name, numbers.c.resource_class_id,
                            *(numbers.c[column]
                              for _name, column, _text in _PER_PROVIDER))
            .join(scope.RP, scope.RP.c.id == numbers.c.provider_id)):
        labels = f'{_label_value(name)}",{classes[class_id]}'
        totals.append(f'{total}{labels}{values[0]}\n')
        reserved.append(f'{reserve}{labels}{values[1]}\n')
        ratios.append(f'{ratio}{labels}{float(values[2])}\n')
        # A sum: a decimal on MySQL.
        usages.append(f'{usage}{labels}{int(values[3])}\n')
    return ''.join(''.join(family) for family in families).encode()


def _from_report(report):
    """The report's numbers per class and per class and zone."""
    families = {}
    for suffix, text in _REPORT_NUMBERS:
        families['class', suffix] = core.GaugeMetricFamily(
            f'placement_class_{suffix}', text + ' Per resource class.',
            labels=_CLASS_LABELS)
        families['zone', suffix] = core.GaugeMetricFamily(
            f'placement_zone_{suffix}',
            text + ' Per resource class and availability zone.',
            labels=_ZONE_LABELS)
    for service in report['cluster']['services']:
        for resource in service['resources']:
            labels = (service['type'], resource['name'])
            for suffix, _text in _REPORT_NUMBERS:
                if suffix in resource:
                    families['class', suffix].add_metric(
                        labels, resource[suffix])
                for zone in resource['per_availability_zone']:
                    if suffix in zone:
                        families['zone', suffix].add_metric(
                            (*labels, zone['name']), zone[suffix])
    return list(families.values())


def _up(value):
    return core.GaugeMetricFamily(
        _EXPORTER + 'up', 'Whether the database answered the capacity '
        'queries of this scrape (0: the capacity gauges are missing).',
        value=value)


def read(conn, conf):
    """Every capacity family in the text format, in one read
    transaction."""
    per_provider = _per_provider(conn) if conf.metrics.per_provider else b''
    return prometheus_client.generate_latest(_Families(
        [_up(1), *_from_report(capacity_report.build(conn, conf, {}))])
    ) + per_provider


class _Families:
    """What :func:`prometheus_client.generate_latest` takes."""

    def __init__(self, families):
        self._families = families

    def collect(self):
        return self._families


#: The capacity families while the database does not answer.
_DOWN = prometheus_client.generate_latest(_Families([_up(0)]))


class CapacityGauges:
    """The rendered capacity families of a database, re-read at most once
    per ``[metrics] capacity_cache_time`` by one scrape at a time."""

    def __init__(self, conf, db):
        self._conf = conf
        self._db = db
        self._lock = threading.Lock()
        self._text = None
        self._read_at = None

    def text(self):
        """The families in the text format (bytes)."""
        with self._lock:
            now = time.monotonic()
            if (self._text is None or now - self._read_at
                    >= self._conf.metrics.capacity_cache_time):
                try:
                    self._text = self._db.read(read, self._conf)
                except failures.DatabaseUnavailable:
                    return _DOWN
                self._read_at = time.monotonic()
            return self._text
