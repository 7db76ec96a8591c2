#!/usr/bin/env bash
# Browser tests of the HTML report: installs Debian's chromium when it is
# missing and the npm dependencies, renders the shipped example's reports
# into target/browser-report/ (and a run over hostile data into
# target/browser-report-hostile/) and opens report.html in headless Chromium.
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
# A run over hostile data: a 5,000-character id, control and bidirectional
# characters, a tab and a carriage return in ids and values.
hostile="$out-hostile"
rm -rf "$hostile" && mkdir -p "$hostile"
node -e '
const fs = require("fs"), dir = process.argv[1];
const rows = [
  { id: "https://example.com/datasets/" + "x".repeat(5000), output: { v: "a" }, reference: { v: "b" } },
  { id: "a\u0000b\u001b[31mRED\u202eevil", output: { v: "x\u0000y\u202ez\u2028" }, reference: { v: "q" } },
  { id: "tab\there\rcr", output: { v: "t\tu" }, reference: { v: "q" } },
  { id: "no-reference", output: { v: "a" } },
];
fs.writeFileSync(dir + "/data.jsonl", rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
fs.writeFileSync(dir + "/suite.yaml", "name: hostile\ndataset: data.jsonl\nid: id\nevaluators:\n  - {name: f, metric: json_similarity, threshold: 1}\n");
' "$hostile"
(cd "$hostile" && cargo run -q --manifest-path "$root/Cargo.toml" -p refscore-cli -- run suite.yaml -q --no-store \
    -o out --report junit,html >/dev/null) || [ $? = 1 ] # the gate fails
REFSCORE_REPORT_DIR="$out" REFSCORE_HOSTILE_DIR="$hostile/out" CHROMIUM="$(command -v chromium)" \
    node --test report.test.mjs
echo "browser tests passed; screenshots in $out"
