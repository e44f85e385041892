"""JSON schemas of the resource class API (from microversion 1.2)."""

# A custom resource class or trait name. ``\Z`` rather than ``$``: in
# Python's re, ``$`` also matches before a trailing newline.
CUSTOM_NAME = {
    'type': 'string',
    'pattern': r'^CUSTOM_[A-Z0-9_]+\Z',
    'maxLength': 255,
}

# POST /resource_classes and, up to 1.6, PUT /resource_classes/{name}.
NAME_BODY = {
    'type': 'object',
    'properties': {
        'name': CUSTOM_NAME,
    },
    'required': ['name'],
    'additionalProperties': False,
}
