#!/usr/bin/env bash
# Debian packages the test suite needs beyond Python: chromium and its
# driver for the browser test of the reports page
# (tests/functional/test_report_page.py). Run as root; a no-op when they
# are installed already.
set -euo pipefail

packages=(chromium chromium-driver)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null \
        | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi
