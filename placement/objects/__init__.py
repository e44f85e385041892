"""The object layer: database reads and writes behind the handlers."""
