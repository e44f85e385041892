"""The names of resource classes and traits, read once a candidates
request, and the inventories and traits made of them, shared between
the providers of one model (most of the memory of a large answer
otherwise).
"""

import sqlalchemy as sa

from placement.db import models

_RC = models.ResourceClass.__table__
_TRAIT = models.Trait.__table__


#: Distinct folded strings (with usage) whose inventories and traits one
#: request shares between providers.
MOST_SHARED = 10000
#: The names of the traits of ids ``ids``, built once (a statement built
#: for each request costs as much CPU again as its execution).
_TRAIT_NAMES = sa.select(_TRAIT.c.id, _TRAIT.c.name).where(
    _TRAIT.c.id.in_(sa.bindparam('ids', expanding=True)))


class Names:
    """The names of resource classes and traits, read once a request;
    and the inventories and traits made of them."""

    def __init__(self, conn, classes=None):
        self.conn = conn
        self._classes = classes
        self._traits = {}
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

    def traits(self, ids):
        """``{id: name}`` of the traits ``ids`` (and those read before)."""
        missing = sorted(set(ids) - set(self._traits))
        if missing:
            self._traits.update(self.conn.execute(
                _TRAIT_NAMES, {'ids': missing}).all())
        return self._traits
