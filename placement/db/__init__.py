"""Schema, engine, migrations and seed data of the Placement database."""
