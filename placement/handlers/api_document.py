"""GET /openapi.json: the OpenAPI document; no authentication needed."""

import functools

from placement import util


@functools.cache
def _document():
    # Imported here: the document is generated from the operation table,
    # which imports this module for its handler.
    from placement import openapi
    return openapi.document()


def get_document(req):
    return util.Result(_document())
