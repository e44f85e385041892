"""Windows of root ids: what a search for allocation candidates with a
limit walks, a window at a time (step 0 of
:mod:`placement.objects.allocation_candidate`).

Each window is as large as the rates seen so far say the rest of the
limit needs, so that the rows read follow the limit rather than the
size of the cloud.
"""

import random
import time
import typing

import sqlalchemy as sa

from placement.db import models

RP = models.ResourceProvider.__table__

#: Roots in the first window searched for a request with a limit (at
#: least: a limit of more roots takes as many). 16 rather than 64: the
#: nested same_subtree ``limit=10`` query's narrowings probed 704
#: providers for its ten answers, 10-25 % of its CPU; a request whose
#: roots rarely qualify takes two windows more (16, 32) to reach 64.
FIRST_WINDOW = 16
#: The id after which the first window of a search that is not
#: randomised starts: ids start at 1.
FIRST_AFTER = 0
#: More ids than a provider id (a 32-bit integer) can span: the most
#: roots a window or a sample is sized to, whatever the limit.
MOST_IDS = 2 ** 31
#: The hint that reads a window's last root from the index of the
#: providers' parent ids as a range: its entries of the roots (a NULL
#: parent) are in id order, so that the range holds as many as the
#: window. MariaDB chose a look-up of the NULL parent instead and read
#: every root before the window too, when it estimated more roots after
#: it than before (1,015 entries for the 16 roots of the resources-only
#: query's second window at 10,000 providers).
_ROOTS_INDEX = 'FORCE INDEX (resource_providers_parent_provider_id_idx)'


class Share(typing.NamedTuple):
    """Of the providers after a window's start, the share that may
    qualify (:meth:`Narrowing.members_share`), and how many ids they
    span (None: not known)."""
    fraction: float
    ids: int | None


class Progress:
    """How far the search went: what sizes the next window of roots."""

    def __init__(self):
        self.started = time.perf_counter()
        #: Seconds from the start to the first candidate taken.
        self.seconds_to_first = None
        #: Roots in the windows searched so far.
        self.searched = 0
        #: Of those, the roots that can serve every slot.
        self.qualified = 0
        #: Candidates taken so far.
        self.taken = 0

    def narrowed(self, roots, randomize):
        """``roots`` in id order, or shuffled; counted as qualified."""
        roots = sorted(roots)
        if randomize:
            random.shuffle(roots)
        self.qualified += len(roots)
        return roots

    def counted(self, found):
        for pair in found:
            if not self.taken:
                self.seconds_to_first = time.perf_counter() - self.started
            self.taken += 1
            yield pair

    def next_size(self, size, limit):
        """Roots in the next window: as many as should hold the
        candidates still needed for ``limit``, at the rates of roots
        qualifying and of candidates per qualifying root seen so far,
        plus a quarter; twice the last while nothing was taken."""
        if not self.taken:
            return size * 2
        roots = (limit - self.taken) * self.qualified // self.taken + 1
        expected = roots * self.searched // self.qualified
        return max(expected + expected // 4, FIRST_WINDOW)


def windows(conn, limit, randomize, progress, members_share):
    """The windows of root ids to search, in order, lazily.

    A window ``(after, last)`` holds the roots with ``after < id <=
    last`` (None: no bound). Without a limit one window holds every
    root. With one the first holds ``max(limit / share, FIRST_WINDOW)``
    roots, ``share`` being ``members_share(after, limit)``
    (:meth:`Narrowing.members_share`: a request naming aggregates that
    a quarter of the providers are in needs four times the roots; one
    that would probe more providers than the aggregates hold is every
    root), and
    each next as many as :meth:`Progress.next_size` expects to hold
    the candidates still needed: a limit met early reads few rows
    whatever the size of the cloud, a window does not load many more
    trees than the limit needs, and a rare match takes few windows.
    Randomised, the windows start at a random root and wrap around.
    """
    if limit is None:
        yield None, None
        return
    passes = [(FIRST_AFTER, None)]
    if randomize:
        lowest, highest = conn.execute(
            sa.select(sa.func.min(RP.c.id), sa.func.max(RP.c.id))
            .where(RP.c.parent_provider_id.is_(None))).one()
        if lowest is None:
            return
        start = random.randint(lowest, highest)
        passes = [(start - 1, None), (lowest - 1, start - 1)]
    share = members_share(passes[0][0], limit)
    size = max(int(min(limit / share.fraction, MOST_IDS)), FIRST_WINDOW)
    if (not randomize and share.ids is not None
            and size >= share.fraction * share.ids):
        # The whole cloud, searched as without a limit: its conditions
        # are then joined, and read the providers in the aggregates
        # (about fraction x ids), where the window's probes read its
        # providers (size). At 10,000 providers the member_of +
        # required query with limit=1000 took 82 ms in two windows, 57
        # without a limit.
        yield None, None
        return
    for after, until in passes:
        while until is None or after < until:
            last = conn.scalar(
                _LAST_ROOT if until is None else _LAST_ROOT_UNTIL,
                {'after': after, 'until': until, 'skipped': size - 1})
            last = until if last is None else last
            progress.searched += size
            yield after, last
            if last == until:
                break
            size = progress.next_size(size, limit)
            after = last


def _last_root(*conditions):
    """The id of the root ``skipped`` roots after the first after id
    ``after`` (a window's last), of those that meet ``conditions``."""
    return (sa.select(RP.c.id)
            .where(RP.c.parent_provider_id.is_(None),
                   RP.c.id > sa.bindparam('after'), *conditions)
            .with_hint(RP, _ROOTS_INDEX, 'mysql')
            .with_hint(RP, _ROOTS_INDEX, 'mariadb')
            .order_by(RP.c.id).offset(sa.bindparam('skipped')).limit(1))


#: The statements of a window's last root (without an end, and before
#: the id ``until``), built once: building one cost more of the
#: service's CPU than running it.
_LAST_ROOT = _last_root()
_LAST_ROOT_UNTIL = _last_root(RP.c.id <= sa.bindparam('until'))


def within(window, column):
    """Conditions: ``column`` (a root id) is in ``window``."""
    after, last = window
    conditions = []
    if after is not None:
        conditions.append(column > after)
    if last is not None:
        conditions.append(column <= last)
    return conditions


def holds(window, root_id):
    """Whether ``window`` holds the root of id ``root_id``."""
    after, last = window
    return ((after is None or root_id > after)
            and (last is None or root_id <= last))
