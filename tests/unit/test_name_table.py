"""name_table.Newest: the latest change of rows seen as they stream."""

import datetime
import types

from placement.objects import name_table

UTC = datetime.UTC


def _row(updated, created=None):
    return types.SimpleNamespace(updated_at=updated, created_at=created)


def test_the_newest_of_rows_passing():
    rows = [_row(None, datetime.datetime(2020, 1, 1)),
            _row(datetime.datetime(2022, 1, 1), datetime.datetime(2019, 1, 1)),
            _row(None),
            _row(datetime.datetime(2021, 1, 1))]
    newest = name_table.Newest()
    assert list(newest.passing(rows)) == rows
    assert newest.value == datetime.datetime(2022, 1, 1, tzinfo=UTC)
    assert newest.value == name_table.newest(rows)


def test_no_change_known():
    newest = name_table.Newest()
    assert list(newest.passing([_row(None)])) == [_row(None)]
    assert newest.value is None
