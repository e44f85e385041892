"""The cloud of :mod:`tests.report_data` on the test database, with the
application serving it, for tests comparing the reports' JSON with the
CLI and the web page.
"""

import contextlib

import webob

from tests import report_data
from tests.functional import app

ZONES = ','.join(f'{name}:{uuid}' for name, uuid in report_data.ZONES.items())


@contextlib.contextmanager
def serving(db_url):
    """The application (noauth2, zones az1 and az2) over the loaded cloud."""
    application, db = app.build_stack(
        db_url, reports__availability_zones=report_data.ZONES)
    try:
        report_data.load(application)
        yield application
    finally:
        db.dispose()


def get_json(application, path):
    """The JSON document of GET ``path`` as the admin."""
    response = webob.Request.blank(
        path, headers={'X-Auth-Token': 'admin'}).get_response(application)
    assert response.status_int == 200, response.text
    return response.json


def without_times(document):
    """``document`` without its ``*scraped_at`` fields (they are now)."""
    if isinstance(document, dict):
        return {key: without_times(value) for key, value in document.items()
                if not key.endswith('scraped_at')}
    if isinstance(document, list):
        return [without_times(value) for value in document]
    return document
