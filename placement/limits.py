"""Limits of the stored numbers, which the schemas and the object layer
both check against (a module of its own: neither imports the other)."""

#: The largest value of the database's INTEGER columns (totals, units,
#: amounts, generations), and so the largest the API accepts.
MAX_INT = 2147483647
