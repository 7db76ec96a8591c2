#!/usr/bin/env bash
# A profile-guided build of the CLI (and of the bench's binaries), for
# distributed binaries and for measuring what such a build gives.
#
#   crates/refscore-bench/scripts/pgo-build.sh [--profile P] [--install]
#       [--training-count N] [--keep-data]
#
# 1. Finds `llvm-profdata` of the LLVM that rustc is built on (rustc -vV):
#    llvm-profdata-MAJOR on PATH, /usr/lib/llvm-MAJOR/bin/llvm-profdata, or
#    rustup's llvm-tools. With --install, installs the Debian package
#    llvm-MAJOR with apt-get when none is found.
# 2. Builds refscore-cli and refscore-bench instrumented (profile P,
#    default `dist`) into $TARGET/pgo-generate.
# 3. Runs the training workload on seeded data that is not the bench's
#    (seed 7; the bench's files use seed 42): every JSON metric by
#    `compare --pairs`, `run` of a json_match suite on a generated dataset,
#    the shipped invoice example, and the parse-only baseline.
# 4. Merges the profiles and builds again with them into $TARGET/pgo-use.
# The binaries end in $TARGET/pgo-use/<host>/P/ (refscore, parse-baseline,
# gen-pairs, ...); the last line printed is that folder. The profile data
# is removed unless --keep-data. Outputs are the same as any build's: the
# profile changes only how the code is laid out and inlined.
set -euo pipefail

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PGO_PROFILE=dist
INSTALL=0
TRAIN_COUNT=6000
KEEP=0

usage() { sed -n '2,22s/^# \{0,1\}//p' "$0"; exit "${1:-0}"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --profile) PGO_PROFILE=$2; shift 2 ;;
        --install) INSTALL=1; shift ;;
        --training-count) TRAIN_COUNT=$2; shift 2 ;;
        --keep-data) KEEP=1; shift ;;
        -h|--help) usage 0 ;;
        *) printf 'unknown option %s\n' "$1" >&2; usage 2 ;;
    esac
done
[[ $TRAIN_COUNT =~ ^[0-9]+$ && $TRAIN_COUNT -gt 0 ]] ||
    die "--training-count wants a positive integer"

HOST=$(rustc -vV | sed -n 's/^host: //p')
MAJOR=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
[[ -n $HOST && -n $MAJOR ]] || die "cannot read the host or LLVM version from rustc -vV"

find_profdata() {
    local c sysroot
    for c in "llvm-profdata-$MAJOR" "/usr/lib/llvm-$MAJOR/bin/llvm-profdata"; do
        if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
    done
    sysroot=$(rustc --print sysroot)
    c=$sysroot/lib/rustlib/$HOST/bin/llvm-profdata
    if [[ -x $c ]]; then printf '%s\n' "$c"; return 0; fi
    return 1
}

PROFDATA=$(find_profdata || true)
if [[ -z $PROFDATA && $INSTALL == 1 ]]; then
    note "installing llvm-$MAJOR for llvm-profdata"
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "llvm-$MAJOR" >&2
    PROFDATA=$(find_profdata || true)
fi
[[ -n $PROFDATA ]] || die "no llvm-profdata for LLVM $MAJOR (rustc's): install llvm-$MAJOR, \
run rustup component add llvm-tools, or pass --install"
"$PROFDATA" --version >/dev/null 2>&1 || die "$PROFDATA does not run"
note "llvm-profdata: $PROFDATA"

WORK=$TARGET/pgo-data
rm -rf "$WORK"
mkdir -p "$WORK/raw"
build() {
    # --target keeps build scripts and proc macros out of the profile.
    (cd "$ROOT" && RUSTFLAGS="${RUSTFLAGS:-} $1" CARGO_TARGET_DIR="$2" \
        cargo build --profile "$PGO_PROFILE" --target "$HOST" -p refscore-cli -p refscore-bench) >&2
}

build "-Cprofile-generate=$WORK/raw" "$TARGET/pgo-generate"
GEN=$TARGET/pgo-generate/$HOST/$PGO_PROFILE

note "training on $TRAIN_COUNT pairs and rows (seed 7)"
PAIRS=$WORK/pairs.jsonl
ROWS=$WORK/rows.jsonl
"$GEN/gen-pairs" --count "$TRAIN_COUNT" --seed 7 --out "$PAIRS" >&2
"$GEN/gen-dataset" --count "$TRAIN_COUNT" --seed 7 --out "$ROWS" >&2
cat >"$WORK/suite.yaml" <<EOF
dataset: rows.jsonl
id: id
mapping: {output: output, reference: reference}
evaluators:
  - {name: fields, metric: json_match}
EOF
for threads in 1 2; do
    "$GEN/parse-baseline" "$PAIRS" --threads "$threads" >/dev/null
    for m in json_distance json_diff json_similarity json_structural json_match; do
        "$GEN/refscore" compare --metric "$m" --pairs "$PAIRS" --threads "$threads" >/dev/null
    done
    "$GEN/refscore" run "$WORK/suite.yaml" --no-store -o "$WORK/out" --threads "$threads" \
        --quiet >/dev/null
done
# The shipped example: its rules, repair, format and the other evaluators
# (its gate's verdict does not matter here).
"$GEN/refscore" run "$ROOT/examples/invoices/suite.yaml" --no-store -o "$WORK/example" \
    --quiet >/dev/null || true

"$PROFDATA" merge -o "$WORK/merged.profdata" "$WORK/raw"
build "-Cprofile-use=$WORK/merged.profdata" "$TARGET/pgo-use"
if [[ $KEEP == 0 ]]; then rm -rf "$WORK"; fi
printf '%s\n' "$TARGET/pgo-use/$HOST/$PGO_PROFILE"
