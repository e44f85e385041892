"""JSON schemas of request bodies, one module per entity, by microversion."""
