"""Every metric the service updates as it works.

In ``prometheus_client``'s multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``
set before it is imported: :mod:`placement.metrics.multiprocess`) each
worker writes its values to files that a scrape sums; the gauges of the
processes alive are summed (``livesum``).
"""

import prometheus_client as prom

# The _created samples double the series and no dashboard reads them.
prom.disable_created_metrics()

_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
            60)
_BYTES = tuple(4 ** power for power in range(4, 14))  # 256 B to 64 MiB
_COUNTS = (0, 1, 10, 100, 1000, 10000, 100000)

HTTP_LABELS = ('method', 'route', 'status')

REQUESTS = prom.Counter(
    'placement_http_requests', 'HTTP requests answered.', HTTP_LABELS)
REQUEST_SECONDS = prom.Histogram(
    'placement_http_request_duration_seconds',
    'Time from the request to its response.', HTTP_LABELS, buckets=_SECONDS)
SQL_SECONDS = prom.Histogram(
    'placement_http_request_sql_seconds',
    'Time a request spent in SQL statements and fetching their rows.',
    HTTP_LABELS, buckets=_SECONDS)
REQUEST_BYTES = prom.Histogram(
    'placement_http_request_size_bytes', 'Request body sizes.',
    HTTP_LABELS, buckets=_BYTES)
RESPONSE_BYTES = prom.Histogram(
    'placement_http_response_size_bytes', 'Response body sizes.',
    HTTP_LABELS, buckets=_BYTES)
IN_FLIGHT = prom.Gauge(
    'placement_http_requests_in_flight', 'Requests being answered.',
    multiprocess_mode='livesum')

TRANSACTIONS = prom.Counter(
    'placement_db_transactions',
    'Database transactions by outcome: committed; rolled_back (the '
    'operation refused the request, nothing written); conflict (given '
    'up, 409 placement.concurrent_update); unavailable (given up, 503).',
    ('access', 'outcome'))
RERUNS = prom.Counter(
    'placement_db_transaction_reruns',
    'Transactions run again, by cause: deadlock, lock_wait, '
    'galera_certification, serialization, connection_lost, '
    'generation_conflict.', ('access', 'cause'))
POOL_IN_USE = prom.Gauge(
    'placement_db_pool_connections_in_use',
    'Connections checked out of the pools.', ('engine',),
    multiprocess_mode='livesum')
POOL_OVERFLOW = prom.Gauge(
    'placement_db_pool_overflow_connections',
    'Connections open beyond the pools\' max_pool_size.', ('engine',),
    multiprocess_mode='livesum')
POOL_SIZE = prom.Gauge(
    'placement_db_pool_size',
    'Connections the pools keep (max_pool_size).', ('engine',),
    multiprocess_mode='livesum')

RESPONSES_CUT = prom.Counter(
    'placement_responses_cut',
    'Streamed answers that failed after their first byte (the '
    'connection dropped, the client left with an incomplete body).')

CANDIDATE_REQUESTS = prom.Counter(
    'placement_allocation_candidates_requests',
    'GET /allocation_candidates answered, by number of request groups '
    'and whether the answer holds as many candidates as the limit '
    '(the request\'s or max_allocation_candidates).',
    ('groups', 'limited'))
CANDIDATES_RETURNED = prom.Histogram(
    'placement_allocation_candidates_returned',
    'Candidates in an answer.', buckets=_COUNTS)
FIRST_CANDIDATE_SECONDS = prom.Histogram(
    'placement_allocation_candidates_first_seconds',
    'Time from the start of the search to the first candidate found.',
    buckets=_SECONDS)
