"""The form of a uuid the service stores and compares: what every layer
(handlers, objects, reports, commands) turns a client's uuid into.

Named ``uuid_form`` rather than ``uuids``, which is the name of many
local lists of uuids.
"""

import uuid

from oslo_utils import uuidutils


def canonical(value):
    """``value`` as a lowercase dashed uuid string; None if it is none.

    What OpenStack takes for a uuid (oslo.utils' "uuid-like": no dashes,
    upper case, braces, ``urn:uuid:``) is one.
    """
    if not uuidutils.is_uuid_like(value):
        return None
    return str(uuid.UUID(value))
