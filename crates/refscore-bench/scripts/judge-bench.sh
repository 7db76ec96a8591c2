#!/usr/bin/env bash
# Throughput of refscore's LLM-judge client against the scripted server.
#
#   crates/refscore-bench/scripts/judge-bench.sh [--count N] [--concurrency C]
#       [--threads T] [--server-seconds S] [--keep] [--no-build]
#
# Builds binaries (profile `release`, or $BENCH_PROFILE), starts refscore-scripted-llm on 127.0.0.1 (quiet,
# request bodies not recorded, stopping by itself after S seconds, default
# 600), writes N rows (default 10,000) of support replies whose text ends in
# a LABEL= marker (4 in 5 `good`, 1 in 5 `bad`) and a suite with one
# `classify` evaluator and `judge: {base_url: <server>, model: bench,
# max_concurrency: C, timeout: 30}` (C default 64), then times `refscore run`
# twice with a fresh cache file (the first run sends every request, the
# rerun answers every row from the cache) and once with --no-cache (every
# request sent, nothing stored). Prints one table row per run: seconds,
# rows/s, requests sent (summary.json judges[0].requests), requests/s,
# refscore's CPU seconds (user + system) and CPU per request, the server's
# CPU seconds over the run, and refscore's peak RSS; then refscore's user
# and system seconds and the judge's latency percentiles per run.
# --threads T is passed to `refscore run` (default: max(cores, C) workers);
# --keep leaves the work folder (rows, suite, cache, outputs) in place.
set -euo pipefail

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

COUNT=10000
CONCURRENCY=64
THREADS=""
SERVER_SECONDS=600
KEEP=0
BUILD=1

usage() { sed -n '2,22s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --count) COUNT=$2; shift 2 ;;
        --concurrency) CONCURRENCY=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --server-seconds) SERVER_SECONDS=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) usage 0 ;;
        *) printf 'unknown option %s\n' "$1" >&2; usage 2 ;;
    esac
done
[[ $COUNT =~ ^[0-9]+$ && $COUNT -gt 0 ]] || die "--count wants a positive integer"
[[ $CONCURRENCY =~ ^[0-9]+$ && $CONCURRENCY -ge 1 && $CONCURRENCY -le 1024 ]] \
    || die "--concurrency wants an integer in [1, 1024]"
[[ -z $THREADS || $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads wants a positive integer"
[[ $SERVER_SECONDS =~ ^[0-9]+$ && $SERVER_SECONDS -gt 0 ]] || die "--server-seconds wants a positive integer"

if [[ $BUILD == 1 ]]; then build_release_judges; fi
for b in refscore refscore-scripted-llm; do
    [[ -x $BIN/$b ]] || die "$BIN/$b missing: build with cargo build --profile $PROFILE -p refscore-cli -p refscore-scripted-llm"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/judge-bench.XXXXXX")
ERR_FILE=$WORK/stderr.txt
SERVER_PID=""
cleanup() {
    if [[ -n $SERVER_PID ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ $KEEP == 1 ]]; then note "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# The server: automatic replies (the label after LABEL=), bodies not kept.
printf '{"rules": [], "record_bodies": false}\n' >"$WORK/script.json"
"$BIN/refscore-scripted-llm" --quiet --script "$WORK/script.json" \
    --max-seconds "$SERVER_SECONDS" --max-requests $((2 * COUNT + 1000)) >"$WORK/url.txt" &
SERVER_PID=$!
for _ in $(seq 100); do
    [[ -s $WORK/url.txt ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || die "refscore-scripted-llm exited before listening"
    sleep 0.05
done
URL=$(head -n 1 "$WORK/url.txt")
[[ $URL == http://127.0.0.1:*/v1 ]] || die "no URL from refscore-scripted-llm (got '$URL')"

# The rows: a question and a reply of 300-600 bytes ending in LABEL=good
# (4 in 5) or LABEL=bad; deterministic, every row distinct.
awk -v n="$COUNT" 'BEGIN {
    q[0] = "How long do I have to return a jacket I bought?"
    q[1] = "When will I get my refund for the boots I sent back?"
    q[2] = "Do I pay shipping on a $40 order?"
    q[3] = "Can I change the size on the order I placed this morning?"
    q[4] = "My parcel says delivered but it is not here. What do I do?"
    q[5] = "Is the Summit 40 backpack waterproof?"
    q[6] = "Do my reward points expire?"
    q[7] = "Can I use two gift cards on one order?"
    s[0] = "Thanks for getting in touch about this."
    s[1] = "You can start a return on the Orders page and print the free label we send by email."
    s[2] = "Refunds go back to the original payment method within 5-7 business days after the warehouse receives the parcel."
    s[3] = "Standard shipping is free from $50; below that it costs $5.95, and express is $14.95 on any order."
    s[4] = "Orders can be changed within 1 hour of being placed; after that they are packed and can only be returned."
    s[5] = "If a parcel shows as delivered but is missing, wait 48 hours, ask your neighbours, then report it to us."
    s[6] = "The bag is water-resistant rather than waterproof, and a rain cover comes in the lid pocket."
    s[7] = "Points expire 12 months after they are earned, and 100 points give $5 off your next order."
    s[8] = "Up to 3 gift cards can be combined on one order, with a card payment for any remainder."
    s[9] = "Let us know if there is anything else we can help with."
    for (i = 1; i <= n; i++) {
        x = (i * 2654435761) % 4294967296
        k = 2 + (x % 4)
        a = ""
        for (j = 0; j < k; j++) a = a s[(int(x / 16) + j * 3 + i) % 10] " "
        label = (i % 5 == 0) ? "bad" : "good"
        printf "{\"id\": \"r%06d\", \"question\": \"Order %d: %s\", \"answer\": \"%sReference %d. LABEL=%s\"}\n", i, 100000 + i, q[x % 8], a, i, label
    }
}' >"$WORK/rows.jsonl"
GOOD=$(grep -c 'LABEL=good' "$WORK/rows.jsonl" || true)

cat >"$WORK/suite.yaml" <<EOF
name: judge-bench
dataset: rows.jsonl
id: id
judge: {base_url: "$URL", model: bench, max_concurrency: $CONCURRENCY, timeout: 30}
evaluators:
  - name: verdict
    metric: classify
    options:
      template: "Does this support reply answer the customer's question?\n\nQuestion:\n{question}\n\nReply:\n{answer}"
      choices: {good: 1, bad: 0}
    threshold: 1
EOF

ARGS=(--quiet)
[[ -n $THREADS ]] && ARGS+=(--threads "$THREADS")

machine_info
printf '# load average before the runs: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '# %s rows (%.1f MB), one classify evaluator, max_concurrency %s, refscore threads %s, server %s\n' \
    "$COUNT" "$(calc "$(stat -c %s "$WORK/rows.jsonl") / 1e6")" "$CONCURRENCY" \
    "${THREADS:-default (max of cores and max_concurrency)}" "$URL"
printf '| %-12s | %6s | %7s | %7s | %8s | %8s | %6s | %10s | %10s | %6s |\n' \
    run rows seconds 'rows/s' requests 'req/s' 'CPU s' 'CPU ms/req' 'server CPU' 'RSS MB'
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------- -------- --------- --------- ---------- \
    ---------- -------- ------------ ------------ --------
HZ=$(getconf CLK_TCK)

SPLITS=()
bench_run() { # label outdir cache-args...
    local label=$1 out=$2 before after requests rows mean failures hits server_cpu
    shift 2
    before=$(proc_cpu_ticks "$SERVER_PID")
    timed_cpu "$BIN/refscore" run "$WORK/suite.yaml" -o "$out" "$@" "${ARGS[@]}"
    after=$(proc_cpu_ticks "$SERVER_PID")
    [[ $RUN_STATUS == 0 ]] || die "refscore run exited $RUN_STATUS: $(head -n 5 "$ERR_FILE")"
    [[ -n $before && -n $after ]] || die "the server stopped during the run"
    rows=$(json_value rows "$out/summary.json")
    requests=$(json_value requests "$out/summary.json" '"judges"')
    failures=$(json_value failures "$out/summary.json" '"judges"')
    hits=$(json_value cache_hits "$out/summary.json" '"judges"')
    mean=$(json_value mean "$out/summary.json" '"name": "verdict"')
    [[ $failures == 0 ]] || note "$label: $failures failed judgements"
    awk "BEGIN { exit !($mean * $COUNT > $GOOD - 0.5 && $mean * $COUNT < $GOOD + 0.5) }" \
        || note "$label: mean $mean, expected $GOOD good rows of $COUNT"
    server_cpu=$(calc "($after - $before) / $HZ")
    local per_request="-" rate
    if [[ $requests -gt 0 ]]; then per_request=$(printf '%.3f' "$(calc "1000 * $RUN_CPU_SECONDS / $requests")"); fi
    rate=$(calc "$requests / $RUN_SECONDS")
    printf '| %-12s | %6s | %7.2f | %7.0f | %8s | %8.0f | %6.2f | %10s | %10.2f | %6.0f |\n' \
        "$label" "$rows" "$RUN_SECONDS" "$(calc "$rows / $RUN_SECONDS")" "$requests" "$rate" \
        "$RUN_CPU_SECONDS" "$per_request" "$server_cpu" "$(calc "$RUN_RSS_KB / 1024")"
    local p50 p95
    p50=$(json_value latency_p50_ms "$out/summary.json" '"judges"')
    p95=$(json_value latency_p95_ms "$out/summary.json" '"judges"')
    if [[ $p50 == null ]]; then p50="-"; else p50=$(printf '%.2f ms' "$p50"); fi
    if [[ $p95 == null ]]; then p95="-"; else p95=$(printf '%.2f ms' "$p95"); fi
    SPLITS+=("$(printf '# %s: refscore user %s s, system %s s; cache hits %s; judge latency p50 %s, p95 %s' \
        "$label" "$RUN_USER_SECONDS" "$RUN_SYS_SECONDS" "$hits" "$p50" "$p95")")
}

bench_run "first run" "$WORK/out-1" --cache "$WORK/cache.db"
bench_run "cached rerun" "$WORK/out-2" --cache "$WORK/cache.db"
bench_run "no cache" "$WORK/out-3" --no-cache
printf '%s\n' "${SPLITS[@]}"
