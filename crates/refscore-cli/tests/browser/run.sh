#!/usr/bin/env bash
# Browser tests of the HTML report: installs Debian's chromium when it is
# missing and the npm dependencies, renders the shipped example's reports
# into target/browser-report/ and opens report.html in headless Chromium.
# Screenshots are left in that folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
if ! command -v chromium >/dev/null 2>&1; then
    sudo_cmd=""
    if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y chromium
fi
cd "$here"
npm ci --no-audit --no-fund --loglevel=error
out="${REFSCORE_REPORT_DIR:-$root/target/browser-report}"
rm -rf "$out" "$out-baseline"
# A first run as the baseline, then the run whose reports are tested.
(cd "$root" && cargo run -q -p refscore-cli -- run examples/invoices/suite.yaml -q --no-store -o "$out-baseline" >/dev/null)
(cd "$root" && cargo run -q -p refscore-cli -- run examples/invoices/suite.yaml -q --no-store \
    --baseline "$out-baseline" -o "$out" --report md,junit,html >/dev/null)
REFSCORE_REPORT_DIR="$out" CHROMIUM="$(command -v chromium)" node --test report.test.mjs
echo "browser tests passed; screenshots in $out"
