"""The Placement API, one entry per operation (method + URL), assembled
from one table per entity (the modules of this package; the types are
:mod:`placement.contract`).

:data:`OPERATIONS` is the microversioned API, :data:`REPORTS` what is
outside it (the operators' reports and their page, the metrics).
"""

from placement import openapi
from placement.contract import Operation
from placement.contract import Response
from placement.handlers import api_document
from placement.operations import aggregate
from placement.operations import allocation
from placement.operations import allocation_candidate
from placement.operations import inventory
from placement.operations import metrics
from placement.operations import provider_trait
from placement.operations import reports
from placement.operations import reshaper
from placement.operations import resource_class
from placement.operations import resource_provider
from placement.operations import root
from placement.operations import trait
from placement.operations import usage

_DOCUMENT = Operation(
    'GET', '/openapi.json',
    api_document.serving(lambda: openapi.document(OPERATIONS, REPORTS)),
    'This OpenAPI document.', authenticated=False,
    responses=(Response(200, {'type': 'object'}),))

OPERATIONS = (
    *root.OPERATIONS,
    _DOCUMENT,
    *resource_provider.OPERATIONS,
    *aggregate.OPERATIONS,
    *provider_trait.OPERATIONS,
    *inventory.OPERATIONS,
    *allocation.OPERATIONS,
    *reshaper.OPERATIONS,
    *usage.OPERATIONS,
    *allocation_candidate.OPERATIONS,
    *resource_class.OPERATIONS,
    *trait.OPERATIONS,
)

REPORTS = (*reports.OPERATIONS, *metrics.OPERATIONS)

#: The URLs served without a token (``/`` also as the empty path); the
#: page assets under a template path are let through by the auth
#: middleware itself.
PUBLIC_PATHS = frozenset(
    {''} | {operation.path for operation in OPERATIONS + REPORTS
            if not operation.authenticated and '{' not in operation.path})
