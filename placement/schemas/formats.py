"""The ``format`` checks of the request schemas (bodies and query
strings): one definition of OpenStack's "uuid-like"."""

import jsonschema
from oslo_utils import uuidutils


def checker(*, whitespace_around=False):
    """A format checker whose ``uuid`` is OpenStack's "uuid-like" (also
    without dashes, upper case, in braces or as a ``urn:uuid:``; the
    object layer stores the canonical form).

    ``whitespace_around``: whitespace around a value is ignored, as the
    query parsers strip it (:mod:`placement.provider_query`); a body's
    uuid has none.
    """
    formats = jsonschema.FormatChecker()

    @formats.checks('uuid')
    def uuid_like(value):
        if not isinstance(value, str):
            return True
        return uuidutils.is_uuid_like(
            value.strip() if whitespace_around else value)
    return formats
