"""The area (service) of a resource class in the reports."""

import pytest

from placement.reports import areas


@pytest.mark.parametrize('class_name, shared, area', [
    ('VCPU', False, 'compute'),
    ('VCPU', True, 'compute'),
    ('PCI_DEVICE', True, 'compute'),
    ('SRIOV_NET_VF', False, 'network'),
    ('NET_BW_EGR_KILOBIT_PER_SEC', True, 'network'),
    ('NET_PACKET_RATE_KILOPACKET_PER_SEC', False, 'network'),
    ('DISK_GB', False, 'storage'),
    ('DISK_GB', True, 'storage'),
    ('IPV4_ADDRESS', True, 'storage'),
    ('IPV4_ADDRESS', False, 'compute'),
    ('CUSTOM_GOLD', True, 'storage'),
    ('CUSTOM_GOLD', False, 'compute'),
    ('NUMA_CORE', False, 'compute'),
])
def test_area_of(class_name, shared, area):
    assert areas.area_of(class_name, shared) == area


def test_a_selection_may_keep_a_class_in_either_area():
    storage = areas.ResourceSelection(areas=frozenset({'storage'}))
    assert storage.may_keep('CUSTOM_GOLD')
    assert storage.keeps('CUSTOM_GOLD', 'storage')
    assert not storage.keeps('CUSTOM_GOLD', 'compute')
    assert not storage.may_keep('VCPU')
