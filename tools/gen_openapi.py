"""Write api-ref/openapi.json from the operation table.

Run after changing placement/operations/ or a schema:
``python tools/gen_openapi.py`` (or ``tox -e genopenapi``);
tests/unit/test_openapi.py fails while the committed copy is stale.
"""

import pathlib

from placement import openapi
from placement import operations

PATH = pathlib.Path(__file__).resolve().parents[1] / 'api-ref' / 'openapi.json'


def main():
    PATH.write_text(openapi.dumps(operations.OPERATIONS, operations.REPORTS))
    print(f'wrote {PATH}')


if __name__ == '__main__':
    main()
