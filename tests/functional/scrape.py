"""Reading a scrape of GET /metrics with ``prometheus_client``'s parser,
and what it should say about the capacity of a cloud."""

from prometheus_client import parser


def samples(text):
    """``{(sample name, ((label, value), ...)): value}`` of a scrape."""
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in parser.text_string_to_metric_families(text)
            for sample in family.samples}


def named(found, name, **labels):
    """The samples of ``name`` whose labels include ``labels``, as
    ``{labels tuple: value}``."""
    wanted = set(labels.items())
    return {sample_labels: value
            for (sample_name, sample_labels), value in found.items()
            if sample_name == name and wanted <= set(sample_labels)}


def value(found, name, **labels):
    """The value of the one sample ``name`` with exactly ``labels``; 0
    when there is none (a counter not yet incremented)."""
    return found.get((name, tuple(sorted(labels.items()))), 0)


def exporter_expected(get_json):
    """openstack-exporter's per-provider gauges, as it computes them:
    one request per provider for its inventories and one for its
    usages. ``get_json(path)`` answers a GET as the admin."""
    expected = {}
    for provider in get_json('/resource_providers')['resource_providers']:
        base = f'/resource_providers/{provider["uuid"]}'
        inventories = get_json(base + '/inventories')['inventories']
        usages = get_json(base + '/usages')['usages']
        for class_name, inventory in inventories.items():
            labels = (('hostname', provider['name']),
                      ('resourcetype', class_name))
            for suffix, number in (
                    ('total', inventory['total']),
                    ('reserved', inventory['reserved']),
                    ('allocation_ratio', inventory['allocation_ratio']),
                    ('usage', usages.get(class_name, 0))):
                expected['openstack_placement_resource_' + suffix,
                         labels] = float(number)
    return expected


def report_expected(report):
    """The per-class and per-zone gauges of a capacity report document."""
    expected = {}
    for service in report['cluster']['services']:
        for resource in service['resources']:
            labels = (('resource_class', resource['name']),
                      ('service', service['type']))
            for number in ('capacity', 'raw_capacity', 'usage'):
                if number in resource:
                    expected[f'placement_class_{number}', labels] = float(
                        resource[number])
                for zone in resource['per_availability_zone']:
                    if number in zone:
                        expected[f'placement_zone_{number}', tuple(sorted(
                            (*labels, ('availability_zone', zone['name']))
                        ))] = float(zone[number])
    return expected


def capacity_part(found):
    """The samples of the capacity families."""
    return {key: number for key, number in found.items()
            if key[0].startswith(('openstack_placement_resource_',
                                  'placement_class_', 'placement_zone_'))}
