"""How many amounts an inventory still has room for (the headroom)."""

import decimal
import types

import pytest

from placement.reports import headroom


def row(total, used=0, reserved=0, ratio=1.0, min_unit=1, max_unit=1000,
        step_size=1):
    return types.SimpleNamespace(
        total=total, used=used, reserved=reserved, allocation_ratio=ratio,
        min_unit=min_unit, max_unit=max_unit, step_size=step_size)


@pytest.mark.parametrize('inventory, amount, expected', [
    (row(16), 4, 4),
    (row(16, used=3), 4, 3),
    (row(16, reserved=4), 4, 3),
    (row(16, ratio=4.0, used=22), 4, 10),
    (row(16, used=20, ratio=1.0), 4, 0),  # overcommitted already
    (row(10, ratio=0.7), 1, 7),
    (row(3, ratio=0.1), 1, 0),
    (row(16, min_unit=8), 4, 0),
    (row(16, max_unit=2), 4, 0),
    (row(16, step_size=3), 4, 0),
    (row(16, step_size=2), 4, 4),
    (row(16, used=decimal.Decimal(8)), 4, 2),  # MySQL sums
])
def test_fits(inventory, amount, expected):
    assert headroom.fits(inventory, amount) == expected
