"""The schemathesis run is a CI phase of its own (``.ci/run``), not part
of the default test run: it is collected only when
``PLACEMENT_CONFORMANCE=1``."""

import os

collect_ignore = ([] if os.environ.get('PLACEMENT_CONFORMANCE') == '1'
                  else ['test_schemathesis.py'])
