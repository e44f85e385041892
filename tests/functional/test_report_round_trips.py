"""What the summed reports read: the inventories once, their totals and
zones from the same GROUP BY (the cloud of tools/report_data.py, a
sharing provider in both zones; reports-capacity.yaml and
reports-headroom.yaml check the numbers)."""

import pytest
import sqlalchemy as sa

from tools import report_data

pytestmark = pytest.mark.db


@pytest.fixture
def application(db_url):
    with report_data.serving(db_url) as application:
        yield application


def _statements_reading_inventories(application, path):
    statements = []

    def record(_conn, _cursor, statement, *_args):
        if 'inventories' in statement:
            statements.append(statement)

    sa.event.listen(sa.engine.Engine, 'before_cursor_execute', record)
    try:
        report_data.call(application, 'GET', path, None)
    finally:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute', record)
    return statements


@pytest.mark.parametrize('path', [
    '/reports/capacity',
    '/reports/capacity?service=storage',
    '/reports/headroom?resources=VCPU:1',
])
def test_totals_and_zones_are_one_pass_over_the_inventories(application,
                                                            path):
    assert len(_statements_reading_inventories(application, path)) == 1
