#!/usr/bin/env bash
# What the run store costs: `refscore run` with and without it, the store's
# size per row, and `refscore runs diff` of two large runs.
#
#   crates/refscore-bench/scripts/history-bench.sh [--count N] [--no-build] [--keep]
#
# Builds the CLI (profile `release`, or $BENCH_PROFILE), writes N small rows (default 1,000,000; an
# invoice total, a vendor and a 3-item array per side, one row in ten
# wrong) and a suite with json_match and json_distance, then times:
#   1. `run --no-store` (nothing recorded: the floor),
#   2. `run` into a fresh store (first run: no baseline),
#   3. `run` again (compared with run 2: the baseline's scores are loaded
#      from the store and every row matched by id),
#   4. `runs diff 1 2` (two N-row runs compared, text output).
# Prints wall seconds, CPU seconds (user + system: steadier than wall time
# on a busy machine), rows/s, peak RSS, the store's size in bytes per row,
# and the cost of the store as a share of the no-store time, wall and CPU.
set -euo pipefail

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

COUNT=1000000
BUILD=1
KEEP=0
usage() { sed -n '2,15s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --count) COUNT=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --keep) KEEP=1; shift ;;
        -h|--help) usage 0 ;;
        *) printf 'unknown option %s\n' "$1" >&2; usage 2 ;;
    esac
done
[[ $COUNT =~ ^[0-9]+$ && $COUNT -gt 0 ]] || die "--count wants a positive integer"
if [[ $BUILD == 1 ]]; then (cd "$ROOT" && cargo build --profile "$PROFILE" -p refscore-cli) >&2; fi
[[ -x $BIN/refscore ]] || die "$BIN/refscore missing: build with cargo build --profile $PROFILE -p refscore-cli"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/history-bench.XXXXXX")
ERR_FILE=$WORK/stderr.txt
cleanup() { [[ $KEEP == 1 ]] && note "work folder kept: $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT

awk -v n="$COUNT" 'BEGIN {
    for (i = 0; i < n; i++) {
        t = (i % 10 == 0) ? i + 1 : i
        printf "{\"id\":\"r%d\",\"output\":{\"total\":%d,\"vendor\":\"v%d\",\"items\":[1,2,3]},\"reference\":{\"total\":%d,\"vendor\":\"v%d\",\"items\":[1,2,3]}}\n", i, t, i, i, i
    }
}' > "$WORK/data.jsonl"
cat > "$WORK/suite.yaml" <<'YAML'
name: history-bench
dataset: data.jsonl
id: id
evaluators:
  - {name: fields, metric: json_match}
  - {name: distance, metric: json_distance}
gate: {max_failed_rows: 0}
YAML
MB=$(calc "$(stat -c %s "$WORK/data.jsonl") / 1e6")
machine_info
printf '# %s rows, %.1f MB of JSONL\n' "$COUNT" "$MB"
printf '%-28s %9s %9s %11s %9s %10s\n' step seconds cpu_s rows/s MB/s peak_MiB
row() {
    printf '%-28s %9.2f %9.2f %11.0f %9.1f %10.1f\n' "$1" "$RUN_SECONDS" "$RUN_CPU_SECONDS" \
        "$(calc "$COUNT / $RUN_SECONDS")" "$(calc "$MB / $RUN_SECONDS")" "$(calc "$RUN_RSS_KB / 1024")"
}
cd "$WORK"
STORE=$WORK/runs.db
timed "$BIN/refscore" run suite.yaml -q -o out0 --no-store
[[ $RUN_STATUS -le 1 ]] || die "run failed: $(cat "$ERR_FILE")"
row "run --no-store"; FLOOR=$RUN_SECONDS; FLOOR_CPU=$RUN_CPU_SECONDS
timed "$BIN/refscore" run suite.yaml -q -o out1 --store "$STORE"
[[ $RUN_STATUS -le 1 ]] || die "run failed: $(cat "$ERR_FILE")"
row "run (store, no baseline)"; FIRST=$RUN_SECONDS; FIRST_CPU=$RUN_CPU_SECONDS
SIZE=$(( $(stat -c %s "$STORE") + $(stat -c %s "$STORE-wal" 2>/dev/null || echo 0) ))
timed "$BIN/refscore" run suite.yaml -q -o out2 --store "$STORE"
[[ $RUN_STATUS -le 1 ]] || die "run failed: $(cat "$ERR_FILE")"
row "run (store + baseline)"; SECOND=$RUN_SECONDS; SECOND_CPU=$RUN_CPU_SECONDS
timed "$BIN/refscore" runs diff 1 2 --store "$STORE"
[[ $RUN_STATUS == 0 ]] || die "runs diff failed: $(cat "$ERR_FILE")"
row "runs diff 1 2"
printf '# store: %.1f bytes per row (%s bytes for one run; results.jsonl: %.1f bytes per row)\n' \
    "$(calc "$SIZE / $COUNT")" "$SIZE" "$(calc "$(stat -c %s out1/results.jsonl) / $COUNT")"
printf '# store cost, wall: %.1f%% of the no-store time (first run), %.1f%% with the baseline comparison\n' \
    "$(calc "($FIRST - $FLOOR) / $FLOOR * 100")" "$(calc "($SECOND - $FLOOR) / $FLOOR * 100")"
printf '# store cost, CPU:  %.1f%% (first run), %.1f%% with the baseline comparison\n' \
    "$(calc "($FIRST_CPU - $FLOOR_CPU) / $FLOOR_CPU * 100")" "$(calc "($SECOND_CPU - $FLOOR_CPU) / $FLOOR_CPU * 100")"
