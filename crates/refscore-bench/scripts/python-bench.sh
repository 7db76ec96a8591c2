#!/usr/bin/env bash
# Throughput of the Python package: evaluate_dataframe with json_distance on
# N invoice pairs (pandas and polars) against Phoenix's JSON Distance code
# evaluator through phoenix-evals' evaluate_dataframe, against the CLI
# (`refscore compare --pairs`) on the same rows, and refscore.spark.score in
# Spark local mode (local[2]).
#
#   crates/refscore-bench/scripts/python-bench.sh                 # 100,000 pairs
#   crates/refscore-bench/scripts/python-bench.sh --count 5000 --no-spark
#
# Builds the wheel (cargo profile `wheel`) and the CLI and generator with the
# same profile (so both sides of the CLI comparison are compiled alike),
# makes a venv under target/ with the package, pandas, polars, pyarrow,
# pyspark and arize-phoenix-evals, then runs python_bench.py.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"

COUNT=100000
SEED=7
ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --count) COUNT=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        *) ARGS+=("$1"); shift ;;
    esac
done

VENV=${BENCH_VENV:-$TARGET/py-bench-venv}
(cd "$ROOT" && cargo build --profile wheel -p refscore-cli -p refscore-bench) >&2
WBIN=$TARGET/wheel
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    pandas polars pyarrow pyspark arize-phoenix-evals >&2
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    "$ROOT/crates/refscore-py" >&2

mkdir -p "$DATA"
FILE=$DATA/pairs-$COUNT-s$SEED.jsonl
if [ ! -s "$FILE" ]; then
    "$WBIN/gen-pairs" --count "$COUNT" --seed "$SEED" --out "$FILE.tmp"
    mv "$FILE.tmp" "$FILE"
fi
machine_info
"$VENV/bin/python" "$ROOT/crates/refscore-bench/scripts/python_bench.py" \
    --pairs "$FILE" --cli "$WBIN/refscore" "${ARGS[@]}"
