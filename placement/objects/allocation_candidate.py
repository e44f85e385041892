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
   they can serve it alone (capacity, min/max/step); its conditions are
   probes of each provider's own rows, so a window costs what its
   providers cost, not what the cloud holds. The ids of the classes,
   traits and aggregates named (and every class's name) take one query
   a request, the sharing providers (MISC_SHARES_VIA_AGGREGATE) and
   their aggregates one, the roots they are shared with (those of the
   window's providers in an aggregate with them) one a window: a
   statement costs about half a millisecond of CPU whatever it reads.
   The roots that can serve
   every slot are intersected in Python; the same queries tell which of
   the unsuffixed group's required traits each provider has, so that
   roots whose providers cannot meet them together are dropped before
   their trees are loaded; and ``root_required`` is one query on roots.
2. *Assembly*, lazily: the roots of a window are walked in order
   (shuffled when randomised), their trees loaded a batch at a
   time (:mod:`candidate_loading`, one query per batch, a row per
   provider, parents and roots found among the rows of the tree), and
   each tree yields its candidates through the window's
   :class:`candidate_tree.Search` (slots that cannot interact, as those
   of the unsuffixed group alone, are combined directly, without the
   walk).
   ``depth-first`` exhausts a tree before the next; ``breadth-first``
   takes one candidate from each tree in turn. Everything stops at the
   limit.
3. *Summaries* of the trees of the candidates returned and of the
   trees of their sharing providers, from the data already loaded.
"""

import collections
import itertools

from placement.objects import candidate_loading
from placement.objects import candidate_narrowing
from placement.objects import candidate_request
from placement.objects import candidate_windows


def get_candidates(conn, request, conf):
    """The :class:`candidate_request.Candidates` answering ``request``.

    Unknown resource classes or traits are BadRequest; an in_tree
    provider that does not exist matches nothing.
    """
    limit = _limit(request, conf)
    randomize = conf.placement.randomize_allocation_candidates
    narrowing = candidate_narrowing.Narrowing(conn, request)
    names = narrowing.names
    if not narrowing.may_match():
        return candidate_request.Candidates(candidates=[], summaries={})
    trees = candidate_loading.Trees(conn, narrowing, names)
    progress = candidate_windows.Progress()
    windows = (progress.narrowed(narrowing.narrow(window), randomize)
               for window in candidate_windows.windows(
                   conn, limit, randomize, progress, narrowing.members_share))
    found = _strategy(conf)(trees.candidates_by_root(windows, limit))
    chosen = list(itertools.islice(progress.counted(found), limit))
    return candidate_request.Candidates(
        candidates=[candidate for _, candidate in chosen],
        summaries=trees.summaries(chosen),
        limited=limit is not None and len(chosen) == limit,
        seconds_to_first=progress.seconds_to_first)


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
