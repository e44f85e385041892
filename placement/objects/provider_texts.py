"""The inventories and traits of the providers of loaded trees, kept by
a worker from one candidates request to the next.

A tree load (:func:`placement.objects.candidate_loading.load_providers`)
reads what places each provider in its tree and its stamp: its
generation, updated_at and uuid. Its inventories and traits, each
folded into a text by a correlated aggregate (most of the database's
work for the load: 0.9 of 1.25 ms for the 57 trees of the flat
member_of + required query), are read only for the providers whose
stamp is not the one kept with them.

Every write of a provider's inventories or traits swaps its generation
(:func:`placement.objects.resource_provider.increment_generations`, as
upstream's writers do too), which also sets its updated_at; the uuid
and updated_at make a provider of a database emptied and filled again
under a running service (ids and generations starting anew) another
stamp. What is kept is the texts, not their usage (deleting a
consumer's allocations swaps no generation, as upstream) nor anything
read from the names of resource classes (read once a request).
"""

import itertools
import sys
import threading
import weakref

import sqlalchemy as sa

from placement.db import models
from placement.objects import candidate_folding
from placement.objects import kept
from placement.objects import tagged_union

RP = models.ResourceProvider.__table__

#: The most providers whose texts a worker keeps per database engine
#: (about 180 bytes each, the texts shared by providers of one model).
MOST_PROVIDERS = 200_000

#: ``{engine: {provider id: (stamp, (inventories, traits))}}``, weakly:
#: the tests' engines (a database each) go with their databases.
_BY_ENGINE = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def stamp(uuid, generation, updated_at):
    """What changes when a provider's inventories or traits change, of
    the texts of its uuid and of :data:`STAMP` (compared, never
    parsed)."""
    return hash((uuid, generation, updated_at))


def texts(conn, stamps, load_trees):
    """``{provider id: (inventories, traits)}`` (the folded texts, None
    without any) of the providers ``{id: stamp}`` (but those deleted
    since).

    Those not kept with their stamp are read: by their ids, when they
    are at most :data:`kept.MOST_IDS`, else by ``load_trees()`` (the
    rows of :data:`OF_TREES` of the trees loaded, folded or not as the
    tree load's). What is read is kept under the stamp read with it.
    """
    known = _of_engine(conn.engine)
    found, missing = {}, []
    for provider_id, seen in stamps.items():
        entry = known.get(provider_id)
        if entry is not None and entry[0] == seen:
            found[provider_id] = entry[1]
        else:
            missing.append(provider_id)
    if not missing:
        return found
    rows = (conn.execute(_OF_PROVIDERS, {'ids': sorted(missing)}).scalars()
            if len(missing) <= kept.MOST_IDS else load_trees())
    read = {}
    for provider_id, uuid, generation, updated_at, inventories, traits in (
            candidate_folding.unfolded_rows(rows)):
        provider_id = int(provider_id)
        read[provider_id] = (stamp(uuid, generation, updated_at),
                             (sys.intern(inventories) if inventories
                              else None,
                              sys.intern(traits) if traits else None))
    _keep(known, read)
    found.update((provider_id, read[provider_id][1])
                 for provider_id in missing if provider_id in read)
    return found


def _of_engine(engine):
    known = _BY_ENGINE.get(engine)
    if known is None:
        with _LOCK:
            known = _BY_ENGINE.setdefault(engine, {})
    return known


def _keep(known, read):
    """Keep ``read`` in ``known``; past :data:`MOST_PROVIDERS`, the half
    kept first is dropped, at once (one at a time, each would walk past
    the places of those dropped before it). Under the lock: another
    thread's dropping would change the dict under the iterator."""
    with _LOCK:
        known.update(read)
        if len(known) > MOST_PROVIDERS:
            for provider_id in list(itertools.islice(
                    known, len(known) - MOST_PROVIDERS // 2)):
                del known[provider_id]


#: SQL: the texts of a provider's stamp (:func:`stamp`) besides its
#: uuid, its updated_at without the spaces that separate the fields of a
#: folded row.
STAMP = (RP.c.generation,
         sa.func.replace(candidate_folding.as_text(RP.c.updated_at),
                         tagged_union.constant(' '),
                         tagged_union.constant('T')))
#: A provider's id, stamp and folded texts, a row of each provider
#: (folded together or not by :data:`OF_TREES`' reader).
_TEXTS = sa.select(RP.c.id, RP.c.uuid, *STAMP,
                   candidate_folding.folded_inventories(),
                   candidate_folding.folded_named_traits())
#: The rows of :data:`_TEXTS` of listed providers, a string each.
_OF_PROVIDERS = candidate_folding.row_strings(
    _TEXTS.where(RP.c.id.in_(sa.bindparam('ids', expanding=True))))
#: The rows of :data:`_TEXTS` of the trees of a
#: :class:`candidate_folding.TreeRoots` (its parameters).
OF_TREES = _TEXTS.where(candidate_folding.of_trees(RP.c.root_provider_id))
