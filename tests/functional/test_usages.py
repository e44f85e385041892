"""GET /usages over rows inserted directly.

The gabbits (gabbits/usages.yaml) make their allocations through the API;
here the rows are written directly: many consumers at once, allocations
older than consumer records, and a count of the SQL statements of a
request.
"""

import json
import uuid

import pytest
import sqlalchemy as sa
import webob

from placement import deploy
from placement import policy
from placement.db import models
from placement.objects import consumer
from placement.objects import data_migrations
from tests import database
from tests.functional import legacy_data

pytestmark = pytest.mark.db

ALLOC = models.Allocation.__table__
RC = models.ResourceClass.__table__


class Usages:
    """The application and a writer of consumers with allocations."""

    def __init__(self, conf, db):
        self.conf = conf
        self.app = deploy.build_stack(conf, db, policy.make_enforcer(conf))
        self.db = db
        self.rp_id = self._insert_provider()

    def get(self, query, version='latest'):
        req = webob.Request.blank(f'/usages?{query}', headers={
            'x-auth-token': 'admin', 'accept': 'application/json',
            'openstack-api-version': f'placement {version}'})
        return req.get_response(self.app)

    def _insert_provider(self):
        with self.db.writer() as conn:
            return legacy_data.add_provider(conn, 'usages', with_root=True)

    def consume(self, project, user, consumer_type, resources):
        """A new consumer of ``consumer_type`` (None: no type)."""
        consumer_uuid = str(uuid.uuid4())
        with self.db.writer() as conn:
            # Nothing looked up: each owner row is created, or found
            # when an earlier consumer created it.
            owner = consumer.Owner(project, user, consumer_type)
            consumer.create(conn, [consumer_uuid], consumer.owner_ids(
                conn, {owner: {}})[owner])
            self.allocate(conn, consumer_uuid, resources)

    def allocate(self, conn, consumer_uuid, resources):
        """Allocation rows of the consumer against the provider."""
        for class_name, used in resources.items():
            conn.execute(sa.insert(ALLOC).values(
                consumer_id=consumer_uuid, resource_provider_id=self.rp_id,
                used=used, resource_class_id=conn.scalar(
                    sa.select(RC.c.id).where(RC.c.name == class_name))))


@pytest.fixture
def usages(db_url):
    conf = database.make_conf(
        db_url, api__auth_strategy='noauth2',
        placement__incomplete_consumer_project_id='legacy-project',
        placement__incomplete_consumer_user_id='legacy-user')
    db = deploy.prepare_database(conf)
    try:
        yield Usages(conf, db)
    finally:
        db.dispose()


@pytest.fixture
def mixed(usages):
    """Project P: user U has two INSTANCEs and an untyped consumer, user V
    a MIGRATION; project Q has one INSTANCE."""
    usages.consume('P', 'U', 'INSTANCE', {'VCPU': 2, 'MEMORY_MB': 512})
    usages.consume('P', 'U', 'INSTANCE', {'VCPU': 1})
    usages.consume('P', 'U', None, {'DISK_GB': 10})
    usages.consume('P', 'V', 'MIGRATION', {'VCPU': 4, 'MEMORY_MB': 1024})
    usages.consume('Q', 'U', 'INSTANCE', {'VCPU': 16})
    return usages


def body(response):
    assert response.status_int == 200, response.text
    return json.loads(response.body)['usages']


@pytest.mark.parametrize('version', ['1.9', '1.37'])
def test_flat_totals_of_project_and_user(mixed, version):
    assert body(mixed.get('project_id=P', version)) == {
        'VCPU': 7, 'MEMORY_MB': 1536, 'DISK_GB': 10}
    assert body(mixed.get('project_id=P&user_id=U', version)) == {
        'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 10}
    assert body(mixed.get('project_id=Q&user_id=V', version)) == {}
    assert body(mixed.get('project_id=nobody', version)) == {}


@pytest.mark.parametrize('version', ['1.38', 'latest'])
def test_grouped_by_consumer_type(mixed, version):
    assert body(mixed.get('project_id=P', version)) == {
        'INSTANCE': {'consumer_count': 2, 'VCPU': 3, 'MEMORY_MB': 512},
        'MIGRATION': {'consumer_count': 1, 'VCPU': 4, 'MEMORY_MB': 1024},
        'unknown': {'consumer_count': 1, 'DISK_GB': 10},
    }
    assert body(mixed.get('project_id=P&user_id=V', version)) == {
        'MIGRATION': {'consumer_count': 1, 'VCPU': 4, 'MEMORY_MB': 1024},
    }


@pytest.mark.parametrize('query, expected', [
    ('consumer_type=INSTANCE',
     {'INSTANCE': {'consumer_count': 2, 'VCPU': 3, 'MEMORY_MB': 512}}),
    ('consumer_type=unknown',
     {'unknown': {'consumer_count': 1, 'DISK_GB': 10}}),
    ('consumer_type=all',
     {'all': {'consumer_count': 4, 'VCPU': 7, 'MEMORY_MB': 1536,
              'DISK_GB': 10}}),
    ('consumer_type=all&user_id=U',
     {'all': {'consumer_count': 3, 'VCPU': 3, 'MEMORY_MB': 512,
              'DISK_GB': 10}}),
    ('consumer_type=NO_SUCH_TYPE', {}),
])
def test_consumer_type_filter(mixed, query, expected):
    assert body(mixed.get(f'project_id=P&{query}')) == expected


def test_a_type_named_unknown_is_not_the_untyped_consumers(usages):
    usages.consume('P', 'U', 'UNKNOWN', {'VCPU': 1})
    usages.consume('P', 'U', None, {'VCPU': 2})
    assert body(usages.get('project_id=P')) == {
        'UNKNOWN': {'consumer_count': 1, 'VCPU': 1},
        'unknown': {'consumer_count': 1, 'VCPU': 2}}
    assert body(usages.get('project_id=P&consumer_type=UNKNOWN')) == {
        'UNKNOWN': {'consumer_count': 1, 'VCPU': 1}}


def test_one_statement_however_many_consumers(usages):
    for number in range(30):
        usages.consume('P', f'user{number % 3}',
                       ('INSTANCE', 'MIGRATION', None)[number % 3],
                       {'VCPU': 1, 'MEMORY_MB': 256})
    statements = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)

    sa.event.listen(usages.db.engine, 'before_cursor_execute', record)
    try:
        grouped = body(usages.get('project_id=P'))
    finally:
        sa.event.remove(usages.db.engine, 'before_cursor_execute', record)
    assert len([s for s in statements if 'allocations' in s]) == 1
    assert grouped['unknown'] == {
        'consumer_count': 10, 'VCPU': 10, 'MEMORY_MB': 2560}


def test_migrated_consumerless_allocations_are_of_unknown_type(usages):
    """Allocations older than consumer records count once migrated."""
    with usages.db.writer() as conn:
        first, _second = legacy_data.add_consumerless_allocations(
            conn, usages.rp_id, 2)
        usages.allocate(conn, first, {'MEMORY_MB': 128})
    assert body(usages.get('project_id=legacy-project')) == {}
    batch = data_migrations.CREATE_INCOMPLETE_CONSUMERS.run(
        usages.db, usages.conf, 50)
    assert (batch.found, batch.done) == (2, 2)
    assert body(usages.get(
        'project_id=legacy-project&user_id=legacy-user')) == {
        'unknown': {'consumer_count': 2, 'VCPU': 2, 'MEMORY_MB': 128}}
    assert body(usages.get('project_id=legacy-project', '1.9')) == {
        'VCPU': 2, 'MEMORY_MB': 128}
