"""What a report is: one declaration, from which its route and query
parameters (:mod:`placement.operations.reports`, :meth:`Report.query`),
its handler
(:mod:`placement.handlers.reports`), its ``placement-manage report``
command (:mod:`placement.cmd.report`) and its OpenAPI schema derive.

Each module of :mod:`placement.reports.declared` declares ``REPORTS``,
a tuple of :class:`Report`; adding a report is adding such a module.
"""

import dataclasses
import re
import typing

from placement import contract
from placement import errors
from placement import microversion as mv
from placement import provider_query
from placement import query_params


@dataclasses.dataclass(frozen=True)
class Argument:
    """An argument: a query parameter over HTTP, an option on the
    command line (``--name-with-dashes``)."""
    name: str
    help: str
    #: Given several times, every value counts (else the last one does,
    #: and HTTP refuses a repetition).
    repeatable: bool = False
    #: Its value on the command line (None: a flag, given or not).
    metavar: str | None = 'VALUE'
    #: Required on the command line (HTTP says so in the builder's
    #: words, see :func:`placement.reports.arguments.shape`).
    required: bool = False
    #: The JSON schema of its value over HTTP, and the error code of a
    #: value that fails it.
    schema: dict = dataclasses.field(
        default_factory=lambda: {'type': 'string'})
    code: str = errors.DEFAULT
    #: What ``schema`` accepts, in words ("an integer from 0 to 999"),
    #: where it refuses some strings: the command line refuses another
    #: value as a usage error in one line saying so, rather than with
    #: jsonschema's text (which the API's 400 keeps).
    accepts: str | None = None


@dataclasses.dataclass(frozen=True)
class Policy:
    """The oslo.policy rule of a report (reports may share one):
    :mod:`placement.policies.reports` registers it, with the paths of
    the reports that enforce it."""
    name: str
    check_str: str
    description: str


@dataclasses.dataclass(frozen=True)
class Report:
    """One JSON report at ``path``."""
    path: str
    #: One line: the OpenAPI summary and the command's help.
    summary: str
    #: The oslo.policy rule enforced.
    policy: Policy
    #: ``build(conn, conf, params, **path variables)``: the document,
    #: ``params`` being ``{argument name: [values]}``.
    build: typing.Callable
    #: The JSON schema of the document (the contract test checks every
    #: answer of the gabbits against it).
    schema: dict
    arguments: tuple = ()
    #: ``tables(document)``: what ``placement-manage report`` prints of
    #: it (tables and lines); None: no command.
    tables: typing.Callable | None = None
    #: The ``placement-manage report`` command; reports of one command
    #: differ by the path variables given as options.
    command: str | None = None
    #: ``{path variable: (option, help)}`` on the command line.
    path_options: dict = dataclasses.field(default_factory=dict)
    #: ``target(path variables)``: the policy target (None: the
    #: requester's own project).
    target: typing.Callable = lambda variables: None
    #: It also reads the query of GET /allocation_candidates, as that
    #: operation reads it at the request's microversion (the command
    #: takes it as a query string and ``--microversion``): ``build``
    #: gets the :class:`CandidateRequest` it makes as ``request``.
    candidate_query: bool = False
    #: For a report without arguments: the end of the 400's detail when
    #: one is given anyway (rather than ignored).
    refuses_arguments: str | None = None

    def variables(self):
        """The names of the variables of the path."""
        return re.findall(r'{(\w+)}', self.path)

    def query(self):
        """Its query parameters (:class:`placement.contract.QueryParam`):
        the candidates' if it reads them, then its arguments."""
        return (
            *(query_params.CANDIDATES if self.candidate_query else ()),
            *(contract.QueryParam(
                argument.name, argument.help, argument.schema,
                code=argument.code,
                repeatable_since=mv.BASE if argument.repeatable else None)
              for argument in sorted(self.arguments,
                                     key=lambda argument: argument.name)))

    def inputs(self, version, given):
        """``(params, variables)`` of ``build`` from the validated query
        ``given`` (:class:`placement.query_values.Params`) read at
        ``version``: ``{argument: [values]}``, and the candidates'
        request if it reads them."""
        variables = {}
        if self.candidate_query:
            variables['request'] = provider_query.candidate_request(
                version, given)
        return {name: given.every(name) for name in given}, variables
