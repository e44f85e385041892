"""Read-only reports for operators: capacity, usage and headroom.

Outside the microversioned API. Each report is a few set-based queries
over the placement tables (never one query per provider); the numbers
are live, as of the answer.
"""
