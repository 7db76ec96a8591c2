#!/usr/bin/env bash
# Runs every fuzz target for SECONDS_PER_TARGET seconds (default 20) on a
# copy of its committed seed corpus (fuzz/corpus/<target>/), one after the
# other; fails on the first crash, timeout or out-of-memory input.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
# FUZZ_SANITIZER=address builds with the address sanitizer (needs
# RUSTC_BOOTSTRAP, set here); the default is no sanitizer, which libFuzzer
# runs several times faster. FUZZ_DEV=1 builds without optimisation (a
# fraction of the build time; fewer executions per second). FUZZ_RUNS=N runs
# each target for N inputs from a fixed seed instead of for SECONDS (what
# .ci/run does). Logs go to fuzz/work/<target>.log, crashing inputs
# to fuzz/artifacts/<target>/, and the final statistics of each target are
# printed as one line: target, runs, cov, ft, corpus size.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-20}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(parse json_metrics json_match_rules suite dataset_jsonl dataset_csv dataset_parquet)
fi
sanitizer="${FUZZ_SANITIZER:-none}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1
profile=()
if [ "${FUZZ_DEV:-0}" = 1 ]; then profile=(--dev); fi
cargo fuzz build "${profile[@]}" -s "$sanitizer"
limit=("-max_total_time=$seconds")
if [ -n "${FUZZ_RUNS:-}" ]; then limit=("-runs=$FUZZ_RUNS" -seed=1); fi

status=0
for t in "${targets[@]}"; do
    work="work/$t"
    rm -rf "$work"
    mkdir -p "$work" "artifacts/$t"
    cp corpus/"$t"/* "$work"/
    log="work/$t.log"
    # -timeout: one input taking 30 s is a failure; -rss_limit_mb: so is
    # one needing 2 GiB. The corpus copy grows; the committed one does not.
    if ! cargo fuzz run "${profile[@]}" -s "$sanitizer" "$t" "$work" -- \
        "${limit[@]}" -timeout=30 -rss_limit_mb=2048 \
        -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" >"$log" 2>&1; then
        echo "fuzz: $t FAILED (log: fuzz/$log, inputs: fuzz/artifacts/$t/)" >&2
        grep -E "panicked|ERROR|SUMMARY|Test unit written" "$log" | head -20 >&2 || true
        status=1
        continue
    fi
    runs=$(grep -hE "^stat::number_of_executed_units" "$log" | awk '{s+=$2} END {print s+0}')
    last=$(grep -hE "^#[0-9]+.*(DONE|cov:)" "$log" | tail -1)
    cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<<"$last")
    ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.*corp: ([0-9]+).*/\1/p' <<<"$last")
    echo "fuzz: $t ok: ${FUZZ_RUNS:-${seconds}s} ${FUZZ_RUNS:+inputs}, $runs runs, cov $cov, ft $ft, corpus $corp"
done
exit "$status"
