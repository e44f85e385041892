"""Schemas of the traits API (from microversion 1.6)."""

from placement.schemas import resource_class

# Custom traits follow the same naming rule as custom resource classes.
CUSTOM_TRAIT = resource_class.CUSTOM_NAME
