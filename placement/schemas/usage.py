"""Schemas of the values of the GET /usages query parameters."""

# Project and user ids are the identity service's, stored as given.
EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# From 1.38: a consumer type name, or ``all`` (every consumer under one
# key) or ``unknown`` (the consumers without a type). ``\Z``: in Python's
# re, ``$`` also matches before a trailing newline.
CONSUMER_TYPE_FILTER = {
    'type': 'string',
    'pattern': r'^([A-Z0-9_]+|all|unknown)\Z',
    'maxLength': 255,
}

QUERY_VALUES = {
    'project_id': EXTERNAL_ID,
    'user_id': EXTERNAL_ID,
    'consumer_type': CONSUMER_TYPE_FILTER,
}
