"""WSGI entry points."""
