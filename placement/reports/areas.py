"""Limes' grouping of resources: services in areas, and units.

Placement has one service; the reports split its inventories into three
Limes services named after their areas, so ``service`` and ``area``
arguments select the same groups. Most classes are in one area by name;
the others follow the provider holding them (:func:`area_of`), so that
one class may be a resource of two services.
"""

import dataclasses

from placement.objects import resource_class

COMPUTE = 'compute'
NETWORK = 'network'
STORAGE = 'storage'
AREAS = (COMPUTE, NETWORK, STORAGE)

_FIXED = {
    **dict.fromkeys(('VCPU', 'PCPU', 'MEMORY_MB', 'VGPU', 'PGPU',
                     'MEM_ENCRYPTION_CONTEXT', 'FPGA', 'PCI_DEVICE'),
                    COMPUTE),
    'SRIOV_NET_VF': NETWORK,
    'DISK_GB': STORAGE,
}
_NETWORK_PREFIXES = ('NET_BW_', 'NET_PACKET_RATE_')
_UNITS = {'MEMORY_MB': 'MiB', 'DISK_GB': 'GiB'}
_KILOBIT_BANDWIDTH = ('NET_BW_', '_KILOBIT_PER_SEC')


def fixed_area(class_name):
    """The area of a class wherever it is, or None if it has none."""
    if class_name.startswith(_NETWORK_PREFIXES):
        return NETWORK
    return _FIXED.get(class_name)


def area_of(class_name, shared):
    """The area (and service type) of inventory of ``class_name``.

    ``shared``: whether the provider holding it has the trait
    MISC_SHARES_VIA_AGGREGATE.
    A class without a fixed area (custom ones, IPV4_ADDRESS, any other)
    is ``storage`` on a sharing provider and ``compute`` elsewhere: what
    a compute tree has is compute, what is shared through an aggregate
    is a pool like shared disk.
    """
    return fixed_area(class_name) or (STORAGE if shared else COMPUTE)


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

    def keeps(self, class_name, area):
        """Whether the resource ``class_name`` of service ``area`` is shown."""
        return ((not self.services or area in self.services)
                and (not self.areas or area in self.areas)
                and (not self.resources or class_name in self.resources))

    def may_keep(self, class_name):
        """Whether some inventory of ``class_name`` may be shown."""
        return any(self.keeps(class_name, area_of(class_name, shared))
                   for shared in (False, True))


def resource(class_name, **numbers):
    """One entry of a Limes ``resources`` list."""
    entry = {'name': class_name}
    unit = unit_of(class_name)
    if unit is not None:
        entry['unit'] = unit
    entry.update(numbers)
    return entry


def services(resources, **service_fields):
    """Limes' ``services`` list from ``{(area, class name): entry}``.

    Services without resources are left out, as Limes does; the
    resources of a service are sorted by name.
    """
    grouped = {}
    for area, class_name in sorted(resources):
        grouped.setdefault(area, []).append(resources[area, class_name])
    return [dict({'type': area, 'area': area, 'resources': grouped[area]},
                 **service_fields)
            for area in AREAS if area in grouped]
