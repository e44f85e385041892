"""A MariaDB server that holds as many prepared statements as it allows
(``max_prepared_stmt_count``, of all its sessions) refuses to prepare
more: the service runs its statements as text then, and the read goes
on. A private server (tests/functional/private_db.py) allows one.
"""

import uuid

import pytest
from sqlalchemy import event

from tests.functional import app as app_client
from tests.functional import private_db

pytestmark = pytest.mark.outage


@pytest.fixture
def server():
    server = private_db.MariaDB(['--max-prepared-stmt-count=1'])
    try:
        server.start()
        yield server
    finally:
        server.destroy()


def test_statements_past_the_servers_limit_run_as_text(server, caplog):
    url = server.create_database('placement')
    application, db = app_client.build_stack(
        url, placement_database__sync_on_startup=True)
    api = app_client.API(application, db)
    try:
        aggregate = str(uuid.uuid4())
        host = api.provider({'VCPU': {'total': 4}})
        response = api.request(
            'PUT', f'/resource_providers/{host}/aggregates',
            body={'aggregates': [aggregate],
                  'resource_provider_generation': 1})
        assert response.status_int == 200, response.text
        query = (f'/allocation_candidates?resources=VCPU:1'
                 f'&member_of={aggregate}')
        statements = []

        def noted(_conn, _cursor, statement, *_args):
            statements[-1].append(statement.split()[0])

        event.listen(db.engine, 'before_cursor_execute', noted)
        try:
            answers = []
            for _ in range(4):
                statements.append([])
                response = api.request('GET', query)
                assert response.status_int == 200, response.text
                answers.append(response.json)
        finally:
            event.remove(db.engine, 'before_cursor_execute', noted)
    finally:
        db.dispose()
    assert [[host] == list(candidate['allocations'])
            for answer in answers
            for candidate in answer['allocation_requests']] == [True] * 4
    # The second time, the look-up is prepared (the server's one
    # statement); the narrowing's PREPARE fails, and it and the trees'
    # load run as text, as they do from then on.
    assert statements[1] == ['PREPARE', 'EXECUTE', 'PREPARE', 'SELECT',
                             'SELECT']
    assert statements[2:] == [['EXECUTE', 'SELECT', 'SELECT']] * 2
    assert [record.message for record in caplog.records
            if 'max_prepared_stmt_count' in record.message] == [
        'The database server holds as many prepared statements as it '
        'allows (max_prepared_stmt_count): this connection runs the '
        'statements it has not prepared as text until it is replaced.']
