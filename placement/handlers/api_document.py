"""GET /openapi.json: the OpenAPI document; no authentication needed."""

import functools

from placement import util


def serving(build):
    """The handler of the document ``build()`` makes (once, when first
    asked for): the table it describes is given by whoever assembles
    it (:mod:`placement.operations`), which this handler is part of."""
    document = functools.cache(build)

    def get_document(req):
        return util.Result(document())
    return get_document
