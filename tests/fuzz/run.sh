#!/bin/bash
# Fuzzes the hw3 reader (tests/fuzz/fuzz_hw3.c, checks in hw3_check.c) with libFuzzer, ASan and
# UBSan for SECONDS (default 60), then prints executions, coverage and the corpus size.
#
#   bash tests/fuzz/run.sh [SECONDS]
#
# Configures build-fuzz (clang, -Dfuzzing=true -Dopencl=disabled) if it does not exist and
# builds only the harness. The corpus grows in build-fuzz/fuzz/corpus across runs; the seeds
# (tests/fuzz/make_seeds.py, testcases/*.in) and tests/fuzz/regressions/ are read, never
# written. A crash is saved under build-fuzz/fuzz/crashes/ and makes this script fail: copy it
# to tests/fuzz/regressions/ (with a name saying what it is), fix the bug, and the normal suite
# replays it from then on. APSP_FUZZ_BUILD overrides the build directory; APSP_WERROR=1 adds
# -Dwerror=true to a new one. Needs clang and its runtime (Debian 12: apt-get install clang
# libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=${APSP_FUZZ_BUILD:-build-fuzz}

werror=false
[ "${APSP_WERROR:-0}" = 1 ] && werror=true
if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzzing=true -Db_lundef=false -Dopencl=disabled \
        -Dbuildtype=debugoptimized -Dwerror=$werror
fi
ninja -C "$build" tests/fuzz/fuzz-hw3

work=$build/fuzz
crashes=$work/crashes/$(date +%Y%m%d-%H%M%S)
mkdir -p "$work/corpus" "$crashes"
rm -rf "$work/seeds"
python3 tests/fuzz/make_seeds.py "$work/seeds"
cp testcases/*.in "$work/seeds/"
log=$work/fuzz.log

echo "fuzz: $seconds s, log in $log"
rc=0
UBSAN_OPTIONS=print_stacktrace=1 "$build/tests/fuzz/fuzz-hw3" \
    -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time="$seconds" \
    -dict=tests/fuzz/hw3.dict -use_value_profile=1 -print_final_stats=1 \
    -artifact_prefix="$crashes/" \
    "$work/corpus" "$work/seeds" tests/fuzz/regressions >"$log" 2>&1 || rc=$?

# The last status line: "#N DONE cov: C ft: F corp: K/SIZE lim: L exec/s: R rss: M".
status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
edges=$(sed -n 's/.*Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" |
    head -n 1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$status")
echo "fuzz: ${execs:-?} executions in $seconds s (${rate:-?}/s)"
echo "fuzz: coverage ${cov:-?} of ${edges:-?} instrumented edges (library and harness), ${ft:-?} features"
echo "fuzz: corpus ${corp:-?} (inputs/bytes kept in memory); $(find "$work/corpus" -type f |
    wc -l) files in $work/corpus"

found=$(find "$crashes" -type f | wc -l)
if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "fuzz: FAILED (libFuzzer exit $rc); the end of $log:"
    grep -v -E '^#[0-9]+ +(NEW|REDUCE|pulse)' "$log" | tail -n 40
    echo "fuzz: $found input(s) saved in $crashes:"
    find "$crashes" -type f -exec ls -l {} +
    echo "fuzz: replay one with $build/tests/fuzz/fuzz-hw3 FILE; keep it as a regression in" \
        "tests/fuzz/regressions/"
    exit 1
fi
rmdir "$crashes" 2>/dev/null || true
echo "fuzz: no crash"
