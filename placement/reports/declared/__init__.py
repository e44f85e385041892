"""The reports: every module here declares ``REPORTS`` (a tuple of
:class:`placement.reports.declaration.Report`), collected in module
name order. A new report is a new module here, and its tests."""

import importlib
import pkgutil


def _collected():
    reports = []
    for module in sorted(pkgutil.iter_modules(__path__),
                         key=lambda module: module.name):
        reports.extend(importlib.import_module(
            f'{__name__}.{module.name}').REPORTS)
    return tuple(reports)


REPORTS = _collected()
