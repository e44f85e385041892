"""Exit 0 when the database server at the URL given answers, else 1.

Used by .ci/run before the MySQL and PostgreSQL test runs.
"""

import sys

import sqlalchemy as sa


def main(url):
    url = sa.engine.make_url(url)
    if url.get_backend_name() == 'postgresql' and not url.database:
        url = url.set(database='postgres')
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql('SELECT 1')
    except sa.exc.OperationalError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
