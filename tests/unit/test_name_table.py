"""name_table.Newest: the latest change of rows seen as they stream."""

import datetime

from placement.objects import name_table


def test_the_newest_of_rows_seen():
    newest = name_table.Newest()
    # As MySQL, PostgreSQL and SQLite write them (changed_text).
    for changed in ('2020-01-01 00:00:00', '2022-01-01 00:00:00.5', None,
                    '2022-01-01 00:00:00.123456', '2021-12-31 23:59:59'):
        newest.note(changed)
    assert newest.value == datetime.datetime(2022, 1, 1, 0, 0, 0, 500000,
                                             tzinfo=datetime.UTC)


def test_no_change_known():
    newest = name_table.Newest()
    newest.note(None)
    assert newest.value is None
