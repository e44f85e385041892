"""Sphinx configuration of the Placement service documentation.

Built offline: alabaster (Sphinx's default theme) ships its assets, and
the configuration and policy references are generated from the code's
``oslo.config.opts`` and ``oslo.policy.policies`` entry points, so the
package must be installed (``pip install -e '.[docs]'``). The API
reference is rendered from the committed ``api-ref/openapi.json`` by the
local extension ``_ext/openapi_reference.py``.
"""

import pathlib
import sys
from importlib import metadata

# Local extensions: the API reference rendered from api-ref/openapi.json.
sys.path.insert(0, str(pathlib.Path(__file__).parent / '_ext'))

project = 'Placement service'
copyright = 'the Placement service authors; Apache License 2.0'
release = metadata.version('placement-service')
version = release

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'reno.sphinxext',
    'openapi_reference',
    'report_table',
]


exclude_patterns = []
html_theme = 'alabaster'
html_theme_options = {
    'description': 'OpenStack Placement API, independently implemented',
    'fixed_sidebar': True,
    'show_powered_by': False,
}
html_sidebars = {
    '**': ['about.html', 'navigation.html', 'searchbox.html'],
}
html_static_path = []
html_last_updated_fmt = None
html_show_sphinx = False
