"""The cloud of :mod:`tools.report_data` as the tests comparing the
reports' JSON with the CLI and the web page read it (the application
serving it: :func:`tools.report_data.serving`).
"""

import webob

from tools import report_data

ZONES = ','.join(f'{name}:{uuid}' for name, uuid in report_data.ZONES.items())


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
