# Shared by e2e.sh and run-bench.sh: paths, build, timing, peak memory.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
# The cargo profile the scripts build and run: `release` (what the README's
# first command builds) unless BENCH_PROFILE names another, e.g. `wheel`.
PROFILE=${BENCH_PROFILE:-release}
# The binaries' folder; BENCH_BIN names another (with --no-build), e.g. the
# one pgo-build.sh prints.
BIN=${BENCH_BIN:-$TARGET/$PROFILE}
DATA=${BENCH_DATA:-$ROOT/bench/data}

note() { printf 'note: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 2; }

# Builds the given packages in $PROFILE: build_packages -p NAME...
build_packages() {
    # A build would not be what is timed: BENCH_BIN's binaries are.
    [[ -z ${BENCH_BIN:-} ]] || die "BENCH_BIN is set: add --no-build (its binaries are timed as they are)"
    (cd "$ROOT" && cargo build --profile "$PROFILE" "$@") >&2
}

build_release() { build_packages -p refscore-cli -p refscore-bench; }

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
# RUN_SECONDS, RUN_RSS_KB (peak resident set, 0 if unknown) and RUN_STATUS
# (timed_cpu, below, which also measures CPU time).
timed() { timed_cpu "$@"; }

# Release build of the CLI, the scripted OpenAI-compatible server and the
# bench crate (judge-bench.sh).
build_release_judges() { build_packages -p refscore-cli -p refscore-scripted-llm -p refscore-bench; }

# CPU time (user + system) of a live process so far, in clock ticks; empty
# when it is gone: proc_cpu_ticks PID.
proc_cpu_ticks() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    # Fields after the command name (which may hold spaces): utime and stime
    # are the 12th and 13th.
    stat=${stat##*) }
    awk '{ print $12 + $13 }' <<<"$stat"
}

# Like timed, and also sets RUN_CPU_SECONDS: user + system CPU seconds of
# the command, with RUN_USER_SECONDS and RUN_SYS_SECONDS (GNU time -v; else
# the last /proc sample, up to 50 ms short, and the split is unknown: "?").
timed_cpu() {
    local start end tv
    tv=$(mktemp)
    start=$(date +%s%N)
    RUN_STATUS=0
    if [[ -x /usr/bin/time ]] && /usr/bin/time -v true >/dev/null 2>&1; then
        /usr/bin/time -v -o "$tv" "$@" >/dev/null 2>"$ERR_FILE" || RUN_STATUS=$?
        end=$(date +%s%N)
        RUN_RSS_KB=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tv")
        RUN_USER_SECONDS=$(sed -n 's/.*User time (seconds): //p' "$tv")
        RUN_SYS_SECONDS=$(sed -n 's/.*System time (seconds): //p' "$tv")
        RUN_CPU_SECONDS=$(calc "${RUN_USER_SECONDS:-0} + ${RUN_SYS_SECONDS:-0}")
    else
        "$@" >/dev/null 2>"$ERR_FILE" &
        local pid=$! peak=0 hwm ticks=0 t
        while kill -0 "$pid" 2>/dev/null; do
            hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2>/dev/null || true)
            [[ -n $hwm && $hwm -gt $peak ]] && peak=$hwm
            t=$(proc_cpu_ticks "$pid")
            [[ -n $t ]] && ticks=$t
            sleep 0.05
        done
        wait "$pid" || RUN_STATUS=$?
        end=$(date +%s%N)
        RUN_RSS_KB=$peak
        RUN_CPU_SECONDS=$(calc "$ticks / $(getconf CLK_TCK)")
        RUN_USER_SECONDS="?"
        RUN_SYS_SECONDS="?"
    fi
    rm -f "$tv"
    RUN_SECONDS=$(calc "($end - $start) / 1e9")
    RUN_RSS_KB=${RUN_RSS_KB:-0}
}

# The first value of "KEY" in a pretty-printed JSON file (quotes and the
# trailing comma removed), searching after the first line that contains
# AFTER when it is given: json_value KEY FILE [AFTER].
json_value() {
    awk -v key="\"$1\":" -v after="${3:-}" '
        after != "" && !seen { if (index($0, after)) seen = 1; next }
        index($0, key) { sub(/^[^:]*:[[:space:]]*/, ""); sub(/,[[:space:]]*$/, ""); gsub(/"/, ""); print; exit }
    ' "$2"
}
