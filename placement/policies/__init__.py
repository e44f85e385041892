"""Every policy rule of Placement, in the order of the policy reference."""

import itertools

from placement.policies import aggregate
from placement.policies import allocation
from placement.policies import allocation_candidate
from placement.policies import base
from placement.policies import inventory
from placement.policies import metrics
from placement.policies import reports
from placement.policies import reshaper
from placement.policies import resource_class
from placement.policies import resource_provider
from placement.policies import trait
from placement.policies import usage


def list_rules():
    """All rule defaults (also the oslo.policy.policies entry point)."""
    return list(itertools.chain(
        base.list_rules(),
        resource_provider.list_rules(),
        resource_class.list_rules(),
        inventory.list_rules(),
        aggregate.list_rules(),
        usage.list_rules(),
        trait.list_rules(),
        allocation.list_rules(),
        allocation_candidate.list_rules(),
        reshaper.list_rules(),
        reports.list_rules(),
        metrics.list_rules(),
    ))
