"""The names of resource classes, read once a candidates request, and
the inventories and traits of the providers loaded, shared between the
providers of one model (most of the memory of a large answer
otherwise).
"""

import sqlalchemy as sa

from placement.db import models

_RC = models.ResourceClass.__table__


#: Distinct folded strings (with usage) whose inventories and traits one
#: request shares between providers.
MOST_SHARED = 10000


class Names:
    """The names of resource classes, read once a request; and the
    inventories and traits made of them (the trees' rows name their
    traits: :func:`candidate_folding.folded_named_traits`)."""

    def __init__(self, conn, classes=None):
        self.conn = conn
        self._classes = classes
        self._shared = {}

    def shared(self, folded, make):
        """``make(folded, self)``, one object for each distinct
        ``folded`` (a string, or a string and usage; up to
        :data:`MOST_SHARED`): the providers of one model (and usage)
        share their inventories and traits, which are most of the
        memory of a large answer otherwise. Read only, then."""
        key = make, folded
        found = self._shared.get(key)
        if found is None:
            found = make(folded, self)
            if len(self._shared) < MOST_SHARED:
                self._shared[key] = found
        return found

    @property
    def classes(self):
        """``{id: name}`` of every resource class (a small table; given
        to the constructor when read with other names)."""
        if self._classes is None:
            self._classes = dict(self.conn.execute(
                sa.select(_RC.c.id, _RC.c.name)).all())
        return self._classes
