"""Policy rules of the operators' reports (outside the microversioned
API): declared with each report (:mod:`placement.reports.declared`),
one rule for the paths of every report that enforces it."""

from placement.policies import base
from placement.reports import declared


def list_rules():
    paths = {}
    for report in declared.REPORTS:
        paths.setdefault(report.policy, []).append(('GET', report.path))
    return [base.api_rule(policy.name, policy.check_str,
                          policy.description, operations)
            for policy, operations in paths.items()]
