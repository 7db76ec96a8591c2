#!/usr/bin/env bash
# End-to-end throughput of `refscore compare --metric M --pairs FILE`
# against the parse-only baseline measured in the same run on the same file.
#
#   crates/refscore-bench/scripts/e2e.sh [--count N] [--metrics a,b,..]
#       [--threads 1,2] [--seed S] [--repeat R] [--no-build] [--value-reader]
#
# Builds binaries (profile `release`, or $BENCH_PROFILE), generates N seeded pairs into bench/data/
# (reused when present), then times every metric with RAYON_NUM_THREADS=1
# and =2 (scores go to /dev/null) and prints one table row per run:
# seconds, pairs/s, MB/s, the share of the serde_json parse-only throughput
# at the same thread count, CPU seconds and peak RSS. The parse-only rows:
# serde_json into Value (the floor), serde_json validating only (its
# tokenizer alone) and refscore's fast reader building its tree. With
# --value-reader each metric also runs reading rows as serde_json values
# (the reader before the fast one). A metric the CLI does not know yet is
# skipped with a note.
set -euo pipefail

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

COUNT=200000
SEED=42
METRICS="json_distance,json_diff,json_similarity,json_structural,json_match"
THREADS="1,2"
REPEAT=1
BUILD=1
VALUE_READER=0

usage() { sed -n '2,12s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --count) COUNT=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --metrics) METRICS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --repeat) REPEAT=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --value-reader) VALUE_READER=1; shift ;;
        -h|--help) usage 0 ;;
        *) printf 'unknown option %s\n' "$1" >&2; usage 2 ;;
    esac
done
[[ $COUNT =~ ^[0-9]+$ && $COUNT -gt 0 ]] || die "--count wants a positive integer"
[[ $REPEAT =~ ^[0-9]+$ && $REPEAT -gt 0 ]] || die "--repeat wants a positive integer"

if [[ $BUILD == 1 ]]; then build_release; fi
for b in refscore gen-pairs parse-baseline; do
    [[ -x $BIN/$b ]] || die "$BIN/$b missing: build with cargo build --profile $PROFILE -p refscore-cli -p refscore-bench"
done

mkdir -p "$DATA"
FILE=$DATA/pairs-$COUNT-s$SEED.jsonl
if [[ ! -s $FILE ]]; then
    "$BIN/gen-pairs" --count "$COUNT" --seed "$SEED" --out "$FILE.tmp"
    mv "$FILE.tmp" "$FILE"
fi
BYTES=$(stat -L -c %s "$FILE")
ERR_FILE=$(mktemp)
PROBE=$(mktemp)
trap 'rm -f "$ERR_FILE" "$PROBE"' EXIT
head -n 20 "$FILE" >"$PROBE"

machine_info
printf '# file: %s (%s pairs, %.1f MB)\n' "$FILE" "$COUNT" "$(calc "$BYTES / 1e6")"
printf '| %-28s | %7s | %8s | %9s | %7s | %8s | %7s | %8s |\n' metric threads seconds 'pairs/s' 'MB/s' '% parse' 'CPU s' 'RSS MB'
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------------------------ --------- ---------- ----------- --------- ---------- --------- ----------

declare -A BASE
row() { # metric threads seconds rss_kb cpu_seconds
    local rate mbs pct
    rate=$(calc "$COUNT / $3")
    mbs=$(calc "$BYTES / 1e6 / $3")
    pct=$(calc "100 * ${BASE[$2]} / $3")
    printf '| %-28s | %7s | %8.2f | %9.0f | %7.1f | %7.1f%% | %7.2f | %8.0f |\n' "$1" "$2" "$3" "$rate" "$mbs" "$pct" "$5" "$(calc "$4 / 1024")"
}

IFS=, read -r -a THREAD_LIST <<<"$THREADS"
for t in "${THREAD_LIST[@]}"; do
    for parser in serde_json validate fast-tree; do
        best=""
        for _ in $(seq "$REPEAT"); do
            timed "$BIN/parse-baseline" "$FILE" --threads "$t" --parser "$parser"
            [[ $RUN_STATUS == 0 ]] || die "parse-baseline failed: $(head -n 3 "$ERR_FILE")"
            if [[ -z $best ]] || awk "BEGIN{exit !($RUN_SECONDS < $best)}"; then best=$RUN_SECONDS; rss=$RUN_RSS_KB; cpu=$RUN_CPU_SECONDS; fi
        done
        if [[ $parser == serde_json ]]; then BASE[$t]=$best; fi
        case $parser in
            serde_json) label="parse-only (serde_json Value)" ;;
            validate) label="tokenize only (serde_json)" ;;
            *) label="fast reader (tree)" ;;
        esac
        row "$label" "$t" "$best" "$rss" "$cpu"
    done
done

IFS=, read -r -a METRIC_LIST <<<"$METRICS"
for m in "${METRIC_LIST[@]}"; do
    if ! "$BIN/refscore" compare --metric "$m" --pairs "$PROBE" >/dev/null 2>"$ERR_FILE"; then
        note "skipping $m: the CLI rejects it here ($(head -n 1 "$ERR_FILE"))"
        continue
    fi
    readers=("")
    if [[ $VALUE_READER == 1 ]]; then readers+=("--value-reader"); fi
    for reader in "${readers[@]}"; do
        for t in "${THREAD_LIST[@]}"; do
            best=""
            for _ in $(seq "$REPEAT"); do
                RAYON_NUM_THREADS=$t timed "$BIN/refscore" compare --metric "$m" --pairs "$FILE" --threads "$t" $reader
                if [[ $RUN_STATUS != 0 ]]; then
                    note "$m with $t threads exited $RUN_STATUS: $(head -n 1 "$ERR_FILE")"
                    best=""
                    break
                fi
                if [[ -z $best ]] || awk "BEGIN{exit !($RUN_SECONDS < $best)}"; then best=$RUN_SECONDS; rss=$RUN_RSS_KB; cpu=$RUN_CPU_SECONDS; fi
            done
            label=$m
            if [[ -n $reader ]]; then label="$m (value reader)"; fi
            if [[ -n $best ]]; then row "$label" "$t" "$best" "$rss" "$cpu"; fi
        done
    done
done
