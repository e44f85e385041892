"""``.. openapi-reference:: PATH``: render an OpenAPI document as pages.

Offline and without JavaScript: every operation becomes a section with
its microversions, policy rule, parameters, request body variants and
responses (success bodies per microversion, error statuses and codes),
generated as reStructuredText from the JSON document.
"""

import json
import pathlib

from docutils import nodes
from docutils import statemachine
from docutils.parsers.rst import Directive
from sphinx.util import nodes as sphinx_nodes


def _versions(extension):
    if extension is None:
        return ''
    if isinstance(extension, list):
        return ', '.join(_versions(item) for item in extension)
    return f"{extension['min']} - {extension['max']}"


def _json_block(schema):
    lines = ['.. code-block:: json', '']
    text = json.dumps(schema, indent=2)
    lines += ['   ' + line for line in text.splitlines()]
    return lines + ['']


def _schema_lines(schema):
    """A schema, or each microversion variant of it with its range."""
    if 'anyOf' in schema and all('x-openstack-microversion' in branch
                                 for branch in schema['anyOf']):
        lines = []
        for branch in schema['anyOf']:
            branch = dict(branch)
            versions = _versions(branch.pop('x-openstack-microversion'))
            lines += [f'Microversions {versions}:', '']
            lines += _json_block(branch)
        return lines
    return _json_block(schema)


def _parameter_rows(parameters, components):
    rows = []
    for parameter in parameters:
        if '$ref' in parameter:
            parameter = components['parameters'][
                parameter['$ref'].rsplit('/', 1)[1]]
        versions = _versions(parameter.get('x-openstack-microversion'))
        required = 'yes' if parameter.get('required') else 'no'
        description = ' '.join(parameter.get('description', '').split())
        rows += [f"   * - ``{parameter['name']}``",
                 f"     - {parameter['in']}",
                 f'     - {required}',
                 f'     - {versions or "all"}',
                 f'     - {description}']
    return ['.. list-table::', '   :header-rows: 1',
            '   :widths: 15 8 8 12 57', '',
            '   * - Name', '     - In', '     - Required',
            '     - Microversions', '     - Description',
            *rows, '']


def _response_lines(responses):
    lines = []
    for status, response in responses.items():
        codes = response.get('x-openstack-error-codes')
        versions = _versions(response.get('x-openstack-microversion'))
        text = f"**{status}** {response['description']}"
        if versions:
            text += f' (microversions {versions})'
        if codes:
            text += ' Codes: ' + ', '.join(f'``{code}``' for code in codes)
        lines += [f'- {text}', '']
        schema = response.get('content', {}).get(
            'application/json', {}).get('schema')
        if schema and '$ref' not in schema and not codes:
            lines += ['  Body:', '']
            lines += ['  ' + line if line else ''
                      for line in _schema_lines(schema)]
    return lines


def _operation_lines(path, method, operation, components):
    title = f'{method.upper()} {path}'
    lines = [title, '-' * len(title), '', operation['summary'], '',
             f"Microversions: "
             f"{_versions(operation['x-openstack-microversion'])}.", '']
    if operation.get('security') == []:
        lines += ['No authentication needed.', '']
    else:
        lines += [f"Policy rule: ``{operation['x-openstack-policy']}``.", '']
    lines += ['Parameters:', '']
    lines += _parameter_rows(operation['parameters'], components)
    body = operation.get('requestBody')
    if body:
        for media_type, content in body['content'].items():
            lines += [f'Request body ({media_type}):', '']
            lines += _schema_lines(content['schema'])
    lines += ['Responses:', '']
    lines += _response_lines(operation['responses'])
    return lines


def reference_lines(document):
    lines = []
    components = document['components']
    for path, methods in document['paths'].items():
        for method, operation in methods.items():
            lines += _operation_lines(path, method, operation, components)
    lines += ['Error document', '--------------', '',
              'Every error response has this body:', '']
    lines += _json_block(components['schemas']['Error'])
    return lines


def parsed(state, lines, source):
    """The nodes of the reStructuredText ``lines`` (sections allowed)."""
    content = statemachine.StringList(lines, source=source)
    container = nodes.section()
    container.document = state.document
    sphinx_nodes.nested_parse_with_titles(state, content, container)
    return container.children


class OpenAPIReference(Directive):
    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        relative, absolute = env.relfn2path(self.arguments[0])
        env.note_dependency(relative)
        document = json.loads(pathlib.Path(absolute).read_text())
        return parsed(self.state, reference_lines(document), absolute)


def setup(app):
    app.add_directive('openapi-reference', OpenAPIReference)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
