"""Metrics of GET /allocation_candidates."""

from placement.metrics import definitions

#: Requests of more groups than this are counted together.
_MOST_GROUPS = 10


def answered(groups, found):
    """Count an answer of ``groups`` request groups, the
    :class:`~placement.objects.allocation_candidate.Found` ``found``
    once all its candidates are made."""
    label = str(groups) if groups < _MOST_GROUPS else f'{_MOST_GROUPS}+'
    definitions.CANDIDATE_REQUESTS.labels(
        label, 'true' if found.limited else 'false').inc()
    definitions.CANDIDATES_RETURNED.observe(found.count)
    if found.seconds_to_first is not None:
        definitions.FIRST_CANDIDATE_SECONDS.observe(found.seconds_to_first)
