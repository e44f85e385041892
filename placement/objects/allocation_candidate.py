"""GET /allocation_candidates: the search behind the answer.

The cost must follow the number of candidates asked for, not the number
of providers or of combinations (see ARCHITECTURE.md, "Known traps"):

A request that cannot match anything, as one naming an amount no
inventory holds or a trait no provider has, is answered at once
(:meth:`candidate_narrowing.Narrowing.may_match`). Otherwise:

0. *Windows* (:mod:`candidate_windows`): with a limit, the roots are searched a
   window of ids at a time (the first as large as the limit, or as
   many more as the aggregates the request names are rare, each next
   as large as the rates seen so far say the rest of the limit needs;
   from a random root with
   ``randomize_allocation_candidates``), and the steps below run per
   window until the limit is met, so that the rows read follow the limit
   rather than the cloud. Without a limit one window holds every root.
1. *Narrowing* (:mod:`candidate_narrowing`): one query per request group
   finds the providers of the window (and the sharing providers
   anywhere) that pass the group's traits, aggregates and in_tree, with
   their roots and, per resource class of the unsuffixed group, whether
   they can serve it alone (capacity, min/max/step; see below); its
   conditions are probes of each provider's own rows, so a window costs
   what its providers cost, not what the cloud holds. A statement costs a round
   trip and about half a millisecond of CPU whatever it reads, so the
   queries of a window are one statement, with the roots the sharing
   providers are shared with (those of the window's providers in an
   aggregate with them); and the ids of the classes, traits and
   aggregates named (and every class's name), the sharing providers
   (MISC_SHARES_VIA_AGGREGATE) with their aggregates, inventories and
   usage, and the tests of
   ``may_match`` are one statement a request. The roots that can serve
   every slot are intersected in Python; the same queries tell which of
   the unsuffixed group's required traits each provider has, so that
   roots whose providers cannot meet them together are dropped before
   their trees are loaded; and ``root_required`` is one query on roots.
   A request whose groups ask for resources alone (root and forbidden
   traits aside:
   :func:`candidate_narrowing.by_capacity_alone`) makes none of these
   queries but the sharing ones: the trees of the window are loaded
   whole first (:meth:`candidate_loading.Trees.load_window`, as step 2
   would), and their providers tested in Python. Any other probes
   no capacity by SQL: that of the sharing providers is tested on
   their inventories and usage, read with the names; the trees of
   the roots that pass the rest are loaded
   (:meth:`candidate_loading.Trees.load_roots`, as step 2 would) and
   the capacity of their providers tested in Python, until a window
   most of whose trees loaded cannot serve (a busy cloud).
2. *Assembly*, lazily: the roots of a window are walked in order
   (shuffled when randomised), their trees loaded a batch at a
   time (:mod:`candidate_loading`, one statement per batch, with the
   usage and the trait names, a row per provider, parents and roots
   found among the rows of the tree), and
   each tree yields its candidates through the window's
   :class:`candidate_tree.Search` (slots that cannot interact, as those
   of the unsuffixed group alone, are combined directly, without the
   walk).
   ``depth-first`` exhausts a tree before the next; ``breadth-first``
   takes one candidate from each tree in turn. Everything stops at the
   limit.
3. *Summaries* of the trees of the candidates returned and of the
   trees of their sharing providers, from the data already loaded.

Without a limit, steps 0 and 1 and the loading of every narrowed tree
happen in :func:`search` (rows bounded by the providers), and the
candidates (bounded by their combinations) are made as the answer is
written: a worker holds the trees, never the candidates (:class:`Found`).
"""

import collections
import itertools

from placement.objects import candidate_loading
from placement.objects import candidate_narrowing
from placement.objects import candidate_request
from placement.objects import candidate_windows


def get_candidates(conn, request, conf):
    """The :class:`candidate_request.Candidates` answering ``request``,
    whole (:func:`search`, its candidates all made)."""
    return search(conn, request, conf).whole()


def search(conn, request, conf):
    """The :class:`Found` answering ``request``.

    Every database read happens here (inside the caller's transaction):
    with a limit the candidates are chosen now (there are at most as many
    as the limit); without one every tree of the narrowed roots is loaded
    (as many rows as providers), and the candidates, as many as their
    combinations, are made from them as the answer is read. Unknown
    resource classes or traits are BadRequest; an in_tree provider that
    does not exist matches nothing.
    """
    limit = _limit(request, conf)
    randomize = conf.placement.randomize_allocation_candidates
    narrowing = candidate_narrowing.Narrowing(conn, request, limit=limit)
    names = narrowing.names
    progress = candidate_windows.Progress()
    if not narrowing.may_match():
        return Found((), None, None, progress)
    trees = candidate_loading.Trees(conn, narrowing, names)
    windows = (progress.narrowed(narrowing.narrow(window, trees),
                                 randomize)
               for window in candidate_windows.windows(
                   conn, limit, randomize, progress, narrowing.members_share))
    per_root = trees.candidates_by_root(windows, limit)
    if limit is None:
        per_root = list(per_root)
    found = progress.counted(_strategy(conf)(per_root))
    if limit is not None:
        found = list(itertools.islice(found, limit))
        narrowing.remember_start(progress)
    return Found(found, trees, limit, progress)


class Found:
    """The candidates answering a request, made as they are iterated
    (once), and the summaries of the providers they involve, known once
    they all are: the answer is written as it is made
    (:func:`placement.router.render`), and holds the providers of the
    trees involved, not the candidates."""

    def __init__(self, chosen, trees, limit, progress):
        self._chosen = chosen
        self._trees = trees
        self._limit = limit
        self._progress = progress
        #: The roots of the trees involved so far, in order.
        self._roots = {}

    def __iter__(self):
        roots = self._roots
        for root, candidate in self._chosen:
            roots.update(self._trees.roots_of(root, candidate))
            yield candidate

    @property
    def summaries(self):
        """``{uuid: Provider}`` of every provider of the trees of the
        candidates iterated (and of the trees of the sharing providers
        they use), once they all are."""
        if self._trees is None:
            return {}
        return self._trees.summaries(self._roots)

    @property
    def count(self):
        """Candidates iterated so far."""
        return self._progress.taken

    @property
    def limited(self):
        """Whether the answer holds as many candidates as the limit."""
        return self._limit is not None and self.count == self._limit

    @property
    def seconds_to_first(self):
        """How long the search took to find the first (None: none)."""
        return self._progress.seconds_to_first

    def whole(self):
        """The :class:`candidate_request.Candidates` of every candidate."""
        candidates = list(self)
        return candidate_request.Candidates(
            candidates=candidates, summaries=self.summaries,
            limited=self.limited, seconds_to_first=self.seconds_to_first)


def _limit(request, conf):
    """The smaller of the request's limit and max_allocation_candidates."""
    limits = [request.limit, conf.placement.max_allocation_candidates]
    limits = [limit for limit in limits if limit is not None and limit >= 0]
    return min(limits, default=None)


def _strategy(conf):
    if (conf.placement.allocation_candidates_generation_strategy
            == 'breadth-first'):
        return breadth_first
    return depth_first


def depth_first(per_root):
    """``(root, candidate)`` pairs: every candidate of a root, then the
    next root's."""
    for root, generator in per_root:
        for candidate in generator:
            yield root, candidate


def breadth_first(per_root):
    """``(root, candidate)`` pairs: one candidate of each root in turn.

    The first round walks the roots lazily, so a limit reached within it
    loads no more trees than depth-first would.
    """
    active = collections.deque()
    for root, generator in per_root:
        candidate = next(generator, None)
        if candidate is not None:
            yield root, candidate
            active.append((root, generator))
    while active:
        root, generator = active.popleft()
        candidate = next(generator, None)
        if candidate is not None:
            yield root, candidate
            active.append((root, generator))
