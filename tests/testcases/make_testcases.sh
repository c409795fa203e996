#!/bin/bash
# Regenerates testcases/: every NAME.in from gen-graph (or, for example.in, the edge list
# below) and every NAME.out from apsp-oracle, the tests' independent triple-loop
# Floyd-Warshall. Nothing from the library under test is involved.
#
#   tests/testcases/make_testcases.sh [--check] [GEN_GRAPH APSP_ORACLE]
#
# The tools default to build/tests/gen-graph and build/tests/apsp-oracle. --check writes into
# a temporary directory instead and fails unless it matches testcases/ byte for byte (and
# testcases/ holds no other case): the meson test 'testcases' runs that.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
gen="${1:-$root/build/tests/gen-graph}"
oracle="${2:-$root/build/tests/apsp-oracle}"
for tool in "$gen" "$oracle"; do
    [ -x "$tool" ] || { echo "make_testcases.sh: $tool is not built (ninja -C build)" >&2; exit 1; }
done

if [ $check = 1 ]; then
    out="$(mktemp -d "${TMPDIR:-/tmp}/apsp-testcases-XXXXXX")"
    trap 'rm -rf "$out"' EXIT
else
    out="$root/testcases"
fi

# NAME SHAPE V E SEED, documented in testcases/README.md (keep the two in step).
cases=(
    "v1-empty        empty         1    0     1"
    "v2-random       random        2    2     2"
    "v5-dups         dups          5    30    5"
    "v63-zeros       zeros         63   200   63"
    "v64-random      random        64   256   64"
    "v65-disconnected disconnected 65   300   65"
    "v100-chain      chain         100  5     100"
    "v127-empty      empty         127  0     127"
    "v129-dense      dense         129  0     129"
    "v130-chain      chain         130  20    130"
    "v200-dups       dups          200  1200  200"
    "v250-zeros      zeros         250  750   250"
    "v333-random     random        333  1332  333"
    "v500-disconnected disconnected 500 2500  500"
)

# Little-endian int32s from decimal arguments.
le32() {
    for v in "$@"; do
        local u=$((v & 0xffffffff))
        printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((u & 255)) $((u >> 8 & 255)) \
            $((u >> 16 & 255)) $((u >> 24 & 255)))"
    done
}

# example.in, the README's example: 6 vertices, 8 edges (src dst weight); nothing reaches 5.
example_edges=(
    0 1 4
    0 2 1
    2 1 2
    1 3 1
    2 3 5
    3 4 3
    4 0 7
    5 4 2
)
le32 6 $((${#example_edges[@]} / 3)) "${example_edges[@]}" >"$out/example.in"
"$oracle" "$out/example.in" "$out/example.out"

names=(example)
for line in "${cases[@]}"; do
    read -r name shape v e seed <<<"$line"
    "$gen" "$shape" "$v" "$e" "$seed" "$out/$name.in"
    "$oracle" "$out/$name.in" "$out/$name.out"
    names+=("$name")
done

if [ $check = 1 ]; then
    status=0
    for name in "${names[@]}"; do
        for ext in in out; do
            if ! cmp -s "$out/$name.$ext" "$root/testcases/$name.$ext"; then
                echo "testcases/$name.$ext differs from what gen-graph and apsp-oracle make now" >&2
                status=1
            fi
        done
    done
    for f in "$root"/testcases/*.in "$root"/testcases/*.out; do
        [ -e "$out/$(basename "$f")" ] || {
            echo "testcases/$(basename "$f") is not made by tests/testcases/make_testcases.sh" >&2
            status=1
        }
    done
    [ $status = 0 ] && echo "testcases/: ${#names[@]} cases match their seeds and the oracle"
    exit $status
fi
echo "make_testcases.sh: wrote ${#names[@]} cases to $out"
