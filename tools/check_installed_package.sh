#!/usr/bin/env bash
# The package as an operator installs it: build the sdist and the wheel
# from this checkout, and a wheel from the sdist; install each wheel
# (not editable) into a fresh virtualenv and, from that install, with no
# checkout on its path, run tests/functional/test_installed.py (every
# file of placement/ present, db sync, upgrade check, placement-api
# serving the API, the reports page and its assets and /openapi.json,
# gunicorn serving placement.wsgi.api:application, the sample
# generators) and every gabbit over HTTP against its placement-api.
#
#   tools/check_installed_package.sh [DATABASE_SERVER_URL]
#
# DATABASE_SERVER_URL is a server URL without a database name
# (default: MariaDB as root on 127.0.0.1:3306); the tests create and
# drop their databases there. Uses .venv (the README's test install) to
# build and to drive the tests. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

server_url=${1:-mysql+pymysql://root@127.0.0.1:3306}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "-- building the sdist and the wheel from the checkout"
.venv/bin/python -m build --sdist --outdir "$work/dist" . >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
.venv/bin/python -m build --wheel --outdir "$work/dist" . >>"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
echo "-- building a wheel from the sdist"
mkdir "$work/sdist"
tar -xzf "$work"/dist/*.tar.gz -C "$work/sdist"
.venv/bin/python -m build --wheel --outdir "$work/from-sdist" "$work"/sdist/* \
    >>"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }

check() {
    local name=$1 wheel=$2
    echo "-- $name: $(basename "$wheel") into a fresh virtualenv"
    python3 -m venv "$work/venv-$name"
    (cd "$work" && "$work/venv-$name/bin/pip" install -q "$wheel[postgresql]")
    PLACEMENT_TEST_INSTALLED="$work/venv-$name/bin" \
        PLACEMENT_TEST_DB_URL="$server_url" \
        .venv/bin/python -m pytest -m 'installed or db' \
        tests/functional/test_installed.py gabbits
}

check wheel "$(ls "$work"/dist/*.whl)"
check sdist-wheel "$(ls "$work"/from-sdist/*.whl)"
