"""Schemas of the values of the GET /usages query parameters."""

from placement.schemas import allocation

# From 1.38: a consumer type name, or ``all`` (every consumer under one
# key) or ``unknown`` (the consumers without a type). ``\Z``: in Python's
# re, ``$`` also matches before a trailing newline.
CONSUMER_TYPE_FILTER = {
    'type': 'string',
    'pattern': r'^([A-Z0-9_]+|all|unknown)\Z',
    'maxLength': 255,
}

QUERY_VALUES = {
    # As in allocation bodies: no NUL, which PostgreSQL cannot compare.
    'project_id': allocation.EXTERNAL_ID,
    'user_id': allocation.EXTERNAL_ID,
    'consumer_type': CONSUMER_TYPE_FILTER,
}
