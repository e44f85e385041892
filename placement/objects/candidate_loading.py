"""Loading the provider trees of narrowed roots, a batch at a time, and
handing each tree's options to the assembly (step 2 of
:mod:`placement.objects.allocation_candidate`).

A batch is one query with a row per provider (folded,
:mod:`placement.objects.candidate_folding`), and one more for the
inventories and traits of those a worker has not kept
(:mod:`placement.objects.provider_texts`); the batches grow, so that a
small limit loads few trees and a large one takes few queries.
"""

import collections

import sqlalchemy as sa

from placement.db import models
from placement.objects import candidate_folding
from placement.objects import candidate_narrowing
from placement.objects import candidate_tree
from placement.objects import candidate_windows
from placement.objects import kept
from placement.objects import provider_texts
from placement.objects import tagged_union

RP = models.ResourceProvider.__table__

# Every provider row has its root id (the online data migration
# set_root_provider_ids fills it for rows older than nesting), so trees
# are found through the indexed column alone.
_ROOT_ID = RP.c.root_provider_id

#: Trees loaded by one batch of queries at most. The first batch of a
#: search with a limit loads as many as the limit (each next twice as
#: many); without one, every tree is loaded before the first candidate
#: is made (:func:`allocation_candidate.search`), so batches this large
#: from the first: batches of 16, 32 and 9 trees took the flat
#: member_of + required query's 57 trees four statements more than
#: with a limit.
MOST_BATCH = 1024


class Trees:
    """Trees loaded batch by batch, and the options of each slot in each
    root's tree."""

    def __init__(self, conn, narrowing, names):
        self.conn = conn
        self.narrowing = narrowing
        self.rules = tree_rules(narrowing.request)
        self.by_root = collections.defaultdict(list)
        self.providers = {}
        self.names = names
        self.by_uuid = {}
        #: The uuids of the sharing providers loaded.
        self.sharing_uuids = set()

    def candidates_by_root(self, windows, limit):
        """``(root, generator of its candidates)`` for each root of
        ``windows`` (lists of root ids, each narrowed when it is reached,
        which sets the narrowing's slots and anchors).

        Candidates equal to one of another root (made of sharing
        providers only) are skipped too.
        """
        memo = candidate_tree.Memo(self.narrowing.sharing)
        size = MOST_BATCH if limit is None else min(limit, MOST_BATCH)
        for roots in windows:
            # The trees of the window's sharing providers, whole (their
            # summaries show them), come with the first batch.
            sharing_roots = [self.narrowing.sharing[provider_id]
                             for provider_id in self.narrowing.anchors]
            shared_with = self._shared_with()
            search = candidate_tree.Search(
                [candidate_tree.Slot(slot.group.suffix, slot.resources)
                 for slot in self.narrowing.slots],
                self.rules, self.providers, memo)
            for batch in batches(roots, size):
                self._load(batch, sharing_roots)
                sharing_roots = []
                for root in batch:
                    yield root, search.candidates(
                        root, self._options(root, shared_with[root]))
                size = min(len(batch) * 2, MOST_BATCH)

    def load_window(self, window):
        """The providers of the trees of ``window`` (``(after, last)``
        of :func:`candidate_windows.windows`) and the sharing ones,
        their trees loaded whole (in one query, those not loaded yet):
        what :meth:`candidate_narrowing.Narrowing.narrow` tests by
        capacity alone."""
        after, last = window
        sharing = self.narrowing.sharing
        others = {root for root in sharing.values()
                  if root not in self.by_root}
        self._remember({
            provider.id: provider for provider in load_providers(
                self.conn, candidate_folding.TreeRoots.of_window(
                    candidate_windows.FIRST_AFTER if after is None
                    else after + 1,
                    candidate_windows.MOST_IDS if last is None else last,
                    others), self.names).values()
            if provider.root_id not in self.by_root})
        providers = self.providers
        return [*(provider for root, tree in self.by_root.items()
                  if candidate_windows.holds(window, root)
                  for provider in tree),
                *(providers[provider_id]
                  for provider_id, root in sharing.items()
                  if not candidate_windows.holds(window, root))]

    def load_roots(self, roots, flat):
        """``{id: candidate_tree.Provider}`` of every provider loaded,
        the trees of ``roots`` among them (in one query, those not
        loaded yet): what :meth:`candidate_narrowing.Narrowing.narrow`
        tests the capacity of. ``flat``: the providers the narrowing
        found in them are all roots (see :func:`load_providers`)."""
        self._load(sorted(roots), [], flat)
        return self.providers

    def _shared_with(self):
        """``{root: [sharing provider id]}`` of the current window."""
        shared_with = collections.defaultdict(list)
        for provider_id, roots in sorted(self.narrowing.anchors.items()):
            for root in roots:
                shared_with[root].append(provider_id)
        return shared_with

    def _load(self, batch, sharing_roots, flat=False):
        """Load the trees of ``batch`` (roots of the window, a range if
        they are dense: :class:`candidate_folding.TreeRoots`) and
        ``sharing_roots`` that are not loaded yet (``flat``: as
        :func:`load_providers`)."""
        batch = [root for root in batch if root not in self.by_root]
        sharing_roots = [root for root in sharing_roots
                         if root not in self.by_root]
        if batch or sharing_roots:
            self._remember(load_providers(
                self.conn, candidate_folding.TreeRoots.of(
                    batch, sharing_roots), self.names, flat))

    def _remember(self, loaded):
        self.providers.update(loaded)
        self.by_uuid.update((p.uuid, p) for p in loaded.values())
        sharing = self.narrowing.sharing
        self.sharing_uuids.update(p.uuid for p in loaded.values()
                                  if p.id in sharing)
        for provider in sorted(loaded.values(), key=lambda p: p.id):
            self.by_root[provider.root_id].append(provider)

    def _options(self, root, shared):
        """The options of each slot of the request (unsuffixed first) in
        the tree of ``root`` or ``shared`` with it."""
        tree = [provider.id for provider in self.by_root[root]]
        options = []
        for slot in self.narrowing.slots:
            serving = slot.roots
            if shared and slot.group.resources:
                # A sharing provider of the tree is in both.
                options.append(tuple(dict.fromkeys(
                    [p for p in tree + shared if p in serving])))
            else:
                options.append(tuple([p for p in tree if p in serving]))
        return options

    def roots_of(self, root, candidate):
        """The roots of the trees a candidate of ``root``'s tree
        involves: its own, then those of the sharing providers it uses,
        as keys of a dict (in order, once each)."""
        uuids = candidate.uuids
        if self.sharing_uuids.isdisjoint(uuids):
            # Its providers are all of the tree of ``root``.
            return {root: None}
        by_uuid = self.by_uuid
        return dict.fromkeys(
            [root, *[by_uuid[uuid].root_id for uuid in uuids]])

    def summaries(self, roots):
        """Summaries of every provider of the trees of ``roots``."""
        return {provider.uuid: provider for root in roots
                for provider in self.by_root[root]}


def batches(items, first):
    """Consecutive slices of ``items``: ``first`` long, then each twice
    the one before (up to MOST_BATCH), so that a small limit loads few
    trees and a large one takes few queries."""
    start, size = 0, max(first, 1)
    while start < len(items):
        yield items[start:start + size]
        start, size = start + size, min(size * 2, MOST_BATCH)


def tree_rules(request):
    """The :class:`candidate_tree.Rules` a loaded tree is matched by;
    :mod:`placement.objects.explain` matches trees by them too."""
    return candidate_tree.Rules(
        isolate=request.group_policy == 'isolate',
        unsuffixed_required=candidate_narrowing.collective_traits(request),
        same_subtree=tuple(frozenset(suffixes)
                           for suffixes in request.same_subtree),
        nested=request.nested)


def load_providers(conn, roots, names, flat=False):
    """``{id: candidate_tree.Provider}`` for every provider of the trees
    of ``roots`` (a :class:`candidate_folding.TreeRoots`), in one
    statement while their inventories and traits are those kept
    (:mod:`placement.objects.provider_texts`), in two otherwise.

    A provider's place in its tree and its stamp come folded into
    strings of many providers by the database
    (:func:`candidate_folding.folded_rows`): the driver's cost is per
    row and per column; those of a few ``flat`` trees listed are a
    string each (:func:`_folded`). Their usage comes in the same
    statement (:func:`tagged_union.union`:
    :data:`candidate_folding.USAGE`), and their inventories and traits,
    ids and names folded into strings, from
    :func:`provider_texts.texts`. The uuids of parents and roots come
    from the rows themselves (the trees are loaded whole). ``names`` is
    a :class:`candidate_names.Names`.

    Kept built (:data:`_KEPT`) when it lists at most
    :data:`kept.MOST_IDS` roots (a range of roots counts as none): the
    narrowing tests the capacity of the trees it loads in Python, after
    the load, so the roots loaded are those that pass the request's
    aggregates and traits (and the windows and batches of a request
    are the same each time), the same while a scheduler asks the same
    request; the load then runs again from its SQL, prepared
    (:func:`placement.db.api.repeated`), like the look-up and the
    narrowing, not compiled with its IN list expanded each time. Loads
    of ever different roots (random windows, a cloud that changes)
    only replace one another in :data:`_KEPT` and among a connection's
    statements prepared, both bounded.
    """
    folded = _folded(roots, flat, conn.dialect.name)
    trees = (folded, roots.low, roots.high, *roots.others)
    strings = candidate_folding.strings_by_tag(
        kept.execute(conn, _KEPT.get(
            trees, lambda: (_LOAD_TREES if folded else _LOAD_FEW_TREES
                          ).params(roots.params()),
            len(roots.others))), (_PROVIDERS, _USAGE))
    used = candidate_folding.usage(strings[_USAGE])
    rows = [(int(provider_id), uuid, int(parent) if parent else None,
             int(root), provider_texts.stamp(uuid, generation, updated_at))
            for provider_id, uuid, parent, root, generation, updated_at
            in candidate_folding.unfolded_rows(strings[_PROVIDERS])]
    if roots.unasked:
        asked = roots.asked
        rows = [row for row in rows if row[3] in asked]
    rows = _hanging_from_roots(rows)
    texts = provider_texts.texts(
        conn, {row[0]: row[4] for row in rows},
        lambda: kept.execute(conn, _KEPT.get(
            ('texts', *trees),
            lambda: (_TEXTS_OF_TREES if folded else _FEW_TEXTS_OF_TREES
                     ).params(roots.params()),
            len(roots.others))).scalars())
    uuids = {row[0]: row[1] for row in rows}
    shared = names.shared
    inventories, traits = {}, {}
    loaded = {}
    for provider_id, uuid, parent, root, _stamp in rows:
        # One deleted since its tree was read: as read, without any.
        inventory_text, named = texts.get(provider_id, (None, None))
        # Most providers share their strings (one model, one usage):
        # looked up here first, without the key of Names.shared.
        key = inventory_text, used.get(provider_id, ())
        if (found := inventories.get(key)) is None:
            found = inventories[key] = shared(
                key, candidate_folding.decode_inventories)
        if (held := traits.get(named)) is None:
            held = traits[named] = shared(
                named, candidate_folding.decode_traits)
        loaded[provider_id] = candidate_tree.Provider(
            provider_id, uuid, parent, root,
            uuids[parent] if parent is not None else None, uuids[root],
            found, held)
    return loaded


def _hanging_from_roots(rows):
    """``rows`` (``(id, uuid, parent, root, stamp)``) of the providers
    that hang from their root by parents: a tree is that, whatever the
    rows' root ids say. The others are broken trees the audit reports
    (a child whose parent is in another tree, parents of each other, a
    root with a parent): they serve no candidate, and nothing is built
    on a parent that was not loaded.

    A tree is checked at the cost of a look-up per provider; only where
    one is broken are the trees walked from their roots.
    """
    root_of = {row[0]: row[3] for row in rows}
    if all(root_of.get(parent) == root if parent is not None
           else provider_id == root
           for provider_id, _uuid, parent, root, _stamp in rows):
        return rows
    children = {}
    for row in rows:
        if row[2] is not None and root_of.get(row[2]) == row[3]:
            children.setdefault(row[2], []).append(row[0])
    hanging = [row[0] for row in rows if row[2] is None and row[0] == row[3]]
    for provider_id in hanging:
        hanging.extend(children.pop(provider_id, ()))
    hanging = set(hanging)
    return [row for row in rows if row[0] in hanging]


def _folded(roots, flat, dialect):
    """Whether the providers of the trees of ``roots`` are read folded
    (:data:`_LOAD_TREES`), or a row each (:data:`_LOAD_FEW_TREES`): on
    MariaDB/MySQL (``dialect``), trees that are likely one provider
    each (``flat``: those the narrowing found in them are all roots),
    at most :data:`MOST_ROOTS_AS_ROWS` (listed, or ids of a range).

    Folding rows together costs MariaDB an on-disk (Aria) temporary
    table per statement: the GROUP_CONCAT of the rows takes each
    provider's inventories and traits, themselves GROUP_CONCATs as long
    as ``group_concat_max_len``, so BLOBs (as in
    :func:`candidate_folding.ids_among`, but with no bound), and keeps
    them in a table of its own. For the 57 trees of the flat member_of
    + required query: 1.40 ms of MariaDB's CPU against 1.12 a row each,
    the service 0.07 ms less folded. A row costs the service ~3 µs
    more: for the 16 trees (176 providers) of the nested same_subtree
    query ``limit=10`` 0.5 ms, what MariaDB saves; for the 1,000 of a
    window (a range) 3-7 ms more, and MariaDB as much. PostgreSQL
    makes no such table: the rows of the flat query cost it 0.3 ms and
    the service 0.4 ms more."""
    span = roots.high - roots.low + 1 if roots.ranged else 0
    return (not flat or dialect != 'mysql'
            or span + len(roots.others) > MOST_ROOTS_AS_ROWS)


#: The most trees (listed, or ids of a range) whose providers are read
#: a row each (:func:`_folded`).
MOST_ROOTS_AS_ROWS = 64

#: The tree loads kept built (:func:`load_providers`), the last 256:
#: apart from the narrowing's, so that loads of many different roots
#: do not push those out.
_KEPT = kept.Kept(256)
#: The tags of :data:`_LOAD_TREES`' rows.
_PROVIDERS, _USAGE = 'providers', 'usage'
#: The rows of :func:`load_providers` (folded in :data:`_LOAD_TREES`, a
#: string each in :data:`_LOAD_FEW_TREES`) and their usage; built once
#: (its roots are parameters), so that a request neither builds nor
#: coerces it.
_TREE_PROVIDERS = (
    sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id, _ROOT_ID,
              *provider_texts.STAMP)
    .where(candidate_folding.of_trees(_ROOT_ID)))
_LOAD_TREES = tagged_union.union({
    _PROVIDERS: candidate_folding.folded_rows(_TREE_PROVIDERS, 'id'),
    _USAGE: candidate_folding.USAGE})
#: :data:`_LOAD_TREES` with a row per provider (:func:`_folded`).
_LOAD_FEW_TREES = tagged_union.union({
    _PROVIDERS: candidate_folding.row_strings(_TREE_PROVIDERS),
    _USAGE: candidate_folding.USAGE})
#: The inventories and traits of the trees' providers, folded as their
#: rows (:func:`provider_texts.texts`).
_TEXTS_OF_TREES = candidate_folding.folded_rows(provider_texts.OF_TREES,
                                                'id')
_FEW_TEXTS_OF_TREES = candidate_folding.row_strings(provider_texts.OF_TREES)
