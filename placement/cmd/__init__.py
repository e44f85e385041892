"""Console scripts: placement-manage, placement-status, placement-api."""
