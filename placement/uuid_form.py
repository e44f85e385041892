"""The form of a uuid the service stores and compares: what every layer
(handlers, objects, reports, commands) turns a client's uuid into.

Named ``uuid_form`` rather than ``uuids``, which is the name of many
local lists of uuids.
"""

import re
import uuid

from oslo_utils import uuidutils

#: Whether a text is a uuid in its canonical form already, as clients
#: mostly send them (those the service gave): returned as it is, 0.3
#: microseconds, not parsed twice (4 microseconds; ten a request of the
#: scheduler's provider listing).
_IS_CANONICAL = re.compile(
    '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}').fullmatch


def canonical(value):
    """``value`` as a lowercase dashed uuid string; None if it is none.

    What OpenStack takes for a uuid (oslo.utils' "uuid-like": no dashes,
    upper case, braces, ``urn:uuid:``) is one.
    """
    if isinstance(value, str) and _IS_CANONICAL(value):
        return value
    if not uuidutils.is_uuid_like(value):
        return None
    return str(uuid.UUID(value))
