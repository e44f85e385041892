#!/usr/bin/env bash
# Debian packages the test suite needs beyond Python: MariaDB and
# PostgreSQL server binaries for the fault tests, which start private
# servers of their own (pytest -m outage), chromium and its driver for
# the browser test of the reports page (pytest -m browser), and Redis,
# where the [profiler] test stores its trace (127.0.0.1:6379). Run as
# root; a no-op when they are installed already.
set -euo pipefail

packages=(mariadb-server postgresql chromium chromium-driver redis-server)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null \
        | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi
