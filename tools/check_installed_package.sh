#!/usr/bin/env bash
# The package as an operator installs it: build the sdist and the wheel
# from this checkout, and a wheel from the sdist; install each wheel
# (not editable) into a fresh virtualenv and, from that install, with no
# checkout on its path, run tests/functional/test_installed.py (every
# file of placement/ present, db sync, upgrade check, placement-api
# serving the API, the reports page and its assets and /openapi.json,
# gunicorn serving placement.wsgi.api:application, the sample
# generators) and every gabbit over HTTP against its placement-api.
# The wheel built from the sdist must hold the same files with the same
# bytes as the checkout's wheel (its .dist-info aside): then the gabbits
# would prove nothing more on it, and only test_installed.py runs there.
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

same_files() {
    # Exit 0 when the two wheels hold the same files, byte for byte,
    # leaving out their .dist-info (RECORD and metadata dates differ).
    .venv/bin/python - "$1" "$2" <<'PYTHON'
import hashlib, sys, zipfile
def files(path):
    with zipfile.ZipFile(path) as wheel:
        return {name: hashlib.sha256(wheel.read(name)).hexdigest()
                for name in wheel.namelist() if '.dist-info/' not in name}
first, second = files(sys.argv[1]), files(sys.argv[2])
for name in sorted(first.keys() ^ second.keys()):
    print('only in one wheel:', name)
for name in sorted(n for n in first.keys() & second.keys() if first[n] != second[n]):
    print('differs:', name)
sys.exit(first != second)
PYTHON
}

check() {
    local name=$1 wheel=$2 tests=${3:-tests/functional/test_installed.py gabbits}
    echo "-- $name: $(basename "$wheel") into a fresh virtualenv"
    python3 -m venv "$work/venv-$name"
    (cd "$work" && "$work/venv-$name/bin/pip" install -q "$wheel[postgresql]")
    PLACEMENT_TEST_INSTALLED="$work/venv-$name/bin" \
        PLACEMENT_TEST_DB_URL="$server_url" \
        .venv/bin/python -m pytest -m 'installed or db' \
        $tests
}

check wheel "$(ls "$work"/dist/*.whl)"
echo "-- the sdist's wheel holds the checkout's wheel's files"
same_files "$(ls "$work"/dist/*.whl)" "$(ls "$work"/from-sdist/*.whl)"
check sdist-wheel "$(ls "$work"/from-sdist/*.whl)" tests/functional/test_installed.py
