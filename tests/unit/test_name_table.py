"""name_table.Newest: the latest change of rows seen as they stream."""

import datetime
import types

from placement.objects import name_table

UTC = datetime.UTC


def _row(changed):
    return types.SimpleNamespace(changed=changed)


def test_the_newest_of_rows_passing():
    # As MySQL, PostgreSQL and SQLite write them (changed_text).
    rows = [_row('2020-01-01 00:00:00'),
            _row('2022-01-01 00:00:00.5'),
            _row(None),
            _row('2022-01-01 00:00:00.123456'),
            _row('2021-12-31 23:59:59')]
    newest = name_table.Newest()
    assert list(newest.passing(rows)) == rows
    assert newest.value == datetime.datetime(2022, 1, 1, 0, 0, 0, 500000,
                                             tzinfo=UTC)


def test_no_change_known():
    newest = name_table.Newest()
    assert list(newest.passing([_row(None)])) == [_row(None)]
    assert newest.value is None
