"""Limes' grouping of resources: services in areas, and units.

Placement has one service; the reports split its resource classes into
three Limes services named after their areas, so ``service`` and
``area`` arguments select the same groups.
"""

import dataclasses

from placement.objects import resource_class

COMPUTE = 'compute'
NETWORK = 'network'
STORAGE = 'storage'
AREAS = (COMPUTE, NETWORK, STORAGE)

_NETWORK_CLASSES = frozenset({'SRIOV_NET_VF'})
_NETWORK_PREFIXES = ('NET_BW_', 'NET_PACKET_RATE_')
_STORAGE_CLASSES = frozenset({'DISK_GB', 'IPV4_ADDRESS'})
_UNITS = {'MEMORY_MB': 'MiB', 'DISK_GB': 'GiB'}
_KILOBIT_BANDWIDTH = ('NET_BW_', '_KILOBIT_PER_SEC')


def area_of(class_name):
    """The area (and service type) of a resource class.

    Every class not known to belong to network or storage, custom ones
    included, is compute.
    """
    if (class_name in _NETWORK_CLASSES
            or class_name.startswith(_NETWORK_PREFIXES)):
        return NETWORK
    if class_name in _STORAGE_CLASSES:
        return STORAGE
    return COMPUTE


def unit_of(class_name):
    """Limes' unit of a measured class; None for a counted one."""
    prefix, suffix = _KILOBIT_BANDWIDTH
    if class_name.startswith(prefix) and class_name.endswith(suffix):
        return 'KiB/s'
    return _UNITS.get(class_name)


@dataclasses.dataclass(frozen=True)
class ResourceSelection:
    """Limes' ``service``, ``area`` and ``resource`` arguments.

    Each is a set of names, empty for "all".
    """

    services: frozenset = frozenset()
    areas: frozenset = frozenset()
    resources: frozenset = frozenset()

    def check(self, conn):
        """BadRequest if a resource asked for is no resource class."""
        resource_class.ids_by_name(conn, self.resources)

    def keeps(self, class_name):
        area = area_of(class_name)
        return ((not self.services or area in self.services)
                and (not self.areas or area in self.areas)
                and (not self.resources or class_name in self.resources))


def resource(class_name, **numbers):
    """One entry of a Limes ``resources`` list."""
    entry = {'name': class_name}
    unit = unit_of(class_name)
    if unit is not None:
        entry['unit'] = unit
    entry.update(numbers)
    return entry


def services(resources, **service_fields):
    """Limes' ``services`` list from ``{class name: resource entry}``.

    Services without resources are left out, as Limes does; the
    resources of a service are sorted by name.
    """
    grouped = {}
    for class_name in sorted(resources):
        grouped.setdefault(area_of(class_name), []).append(
            resources[class_name])
    return [dict({'type': area, 'area': area, 'resources': grouped[area]},
                 **service_fields)
            for area in AREAS if area in grouped]
