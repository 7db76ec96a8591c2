# Shared by e2e.sh and run-bench.sh: paths, build, timing, peak memory.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$TARGET/release
DATA=${BENCH_DATA:-$ROOT/bench/data}

note() { printf 'note: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 2; }

build_release() {
    (cd "$ROOT" && cargo build --release -p refscore-cli -p refscore-bench) >&2
}

machine_info() {
    local model
    model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
    printf '# machine: %s cores (nproc), %s; %s\n' "$(nproc)" "${model:-unknown CPU}" \
        "$(rustc --version 2>/dev/null || echo 'rustc ?')"
    printf '# commit: %s\n' "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
}

# Float arithmetic: calc 'expr'.
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

# Value of key=VALUE in a line of key=value pairs: kv KEY "LINE".
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1; }

# Runs a command with stdout to /dev/null, stderr to $ERR_FILE, and sets
# RUN_SECONDS, RUN_RSS_KB (peak resident set, 0 if unknown) and RUN_STATUS.
# Uses GNU time -v when present, else samples /proc/PID/status.
timed() {
    local start end tv
    tv=$(mktemp)
    start=$(date +%s%N)
    RUN_STATUS=0
    if [[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1; then
        /usr/bin/time -v -o "$tv" "$@" >/dev/null 2>"$ERR_FILE" || RUN_STATUS=$?
        end=$(date +%s%N)
        RUN_RSS_KB=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv")
    else
        "$@" >/dev/null 2>"$ERR_FILE" &
        local pid=$! peak=0 hwm
        while kill -0 "$pid" 2>/dev/null; do
            hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)
            [[ -n $hwm && $hwm -gt $peak ]] && peak=$hwm
            sleep 0.05
        done
        wait "$pid" || RUN_STATUS=$?
        end=$(date +%s%N)
        RUN_RSS_KB=$peak
    fi
    rm -f "$tv"
    RUN_SECONDS=$(calc "($end - $start) / 1e9")
    RUN_RSS_KB=${RUN_RSS_KB:-0}
}
