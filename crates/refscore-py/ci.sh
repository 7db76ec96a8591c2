#!/usr/bin/env bash
# The Python package's CI: a fresh venv (pytest, pandas, polars, pyarrow, openai,
# pyspark, Ray), the package built and installed with pip (maturin), then
# its pytest suite. pytest's exit 5 ("no tests
# collected") fails too.
#
# REFSCORE_PY_PROFILE picks the cargo profile of the extension: `dev`
# (default here: it reuses the workspace's debug build, so CI stays fast)
# or `wheel` (what `pip install ./crates/refscore-py` uses: release speed).
set -euo pipefail
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
venv=${REFSCORE_PY_VENV:-$root/target/py-ci-venv}
profile=${REFSCORE_PY_PROFILE:-dev}

python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
    pytest pandas polars pyarrow pyspark "ray[data]" openai
# The CLI (compared against) and the scripted LLM server (judge tests).
cargo build -q -p refscore-cli -p refscore-scripted-llm
MATURIN_PEP517_ARGS="--profile $profile" \
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps .

set +e
REFSCORE_REQUIRE_RAY=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider tests "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "ci.sh: pytest collected no tests" >&2
    exit 1
fi
exit "$status"
