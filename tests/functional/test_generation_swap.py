"""The compare-and-swap of several providers' generations in one statement.

Allocation writes swap every provider they touch at once: either all
providers were still at the generations read and each moves on by one,
or none moves and the write is a conflict.
"""

import pytest
import sqlalchemy as sa

from placement import exception
from placement.db import models
from placement.objects import resource_provider
from tests.functional import app as app_client

pytestmark = pytest.mark.db

RP = models.ResourceProvider.__table__


def _generations(db, uuids):
    with db.reader() as conn:
        return {row.id: row.generation for row in conn.execute(
            sa.select(RP.c.id, RP.c.generation)
            .where(RP.c.uuid.in_(uuids)))}


@pytest.fixture
def three(wsgi_stack):
    app, db = wsgi_stack
    api = app_client.API(app, db)
    uuids = [api.provider() for _ in range(3)]
    return db, uuids


def test_every_generation_moves_by_one(three):
    db, uuids = three
    seen = _generations(db, uuids)
    with db.writer() as conn:
        resource_provider.increment_generations(conn, seen)
    assert _generations(db, uuids) == {
        rp_id: generation + 1 for rp_id, generation in seen.items()}


def test_one_stale_generation_moves_none(three):
    db, uuids = three
    seen = _generations(db, uuids)
    stale = dict(seen)
    stale[min(stale)] -= 1
    with pytest.raises(exception.ConcurrentUpdate), db.writer() as conn:
        resource_provider.increment_generations(conn, stale)
    assert _generations(db, uuids) == seen
