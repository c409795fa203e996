#!/usr/bin/env python3
"""Writes the fuzzer's hand-made seed inputs: tiny hw3 files, valid and malformed, one per class
of docs/reliability.md (python3 standard library only).

    make_seeds.py OUTDIR [--stamp FILE]

OUTDIR is created if needed; existing seed files are overwritten. With --stamp, FILE is touched
afterwards (for Meson's custom_target). tests/fuzz/run.sh adds testcases/*.in beside these.
"""
import os
import struct
import sys

INF = 1073741823
INT_MAX = 2**31 - 1


def hw3(v, e, edges=(), tail=b""):
    return struct.pack("<2i", v, e) + b"".join(struct.pack("<3i", *t) for t in edges) + tail


def limit(v):
    return (INF - 1) // (v - 1) if v > 1 else INF - 1


SEEDS = {
    # Valid graphs.
    "v1-e0": hw3(1, 0),
    "v1-self-loop": hw3(1, 1, [(0, 0, 5)]),
    "v2-one-edge": hw3(2, 1, [(0, 1, 7)]),
    "v3-cycle": hw3(3, 3, [(0, 1, 1), (1, 2, 2), (2, 0, 3)]),
    "v4-dups-self-loops": hw3(4, 6, [(0, 1, 9), (0, 1, 4), (0, 1, 6), (2, 2, 1), (1, 3, 0),
                                     (3, 2, 0)]),
    "v5-zero-cycle": hw3(5, 4, [(0, 1, 0), (1, 2, 0), (2, 0, 0), (2, 4, 1000)]),
    "v3-weight-at-limit": hw3(3, 2, [(0, 1, limit(3)), (1, 2, limit(3))]),
    "v64-edge-corner": hw3(64, 2, [(0, 63, 1), (63, 0, 2)]),
    "v65-edge-corner": hw3(65, 2, [(0, 64, 1), (64, 0, 2)]),
    "v1100-e0": hw3(1100, 0),
    "v1100-edge": hw3(1100, 1, [(1099, 0, 3)]),
    # Malformed: the header.
    "empty": b"",
    "header-4-bytes": struct.pack("<i", 3),
    "header-7-bytes": hw3(3, 0)[:7],
    "v0": hw3(0, 0),
    "v-negative": hw3(-1, 0),
    "v-int-min": hw3(-(2**31), 0),
    "e-negative": hw3(3, -1),
    "e-int-max": hw3(3, INT_MAX),
    "v-int-max": hw3(INT_MAX, 0),
    "v-46341": hw3(46341, 0),  # V*V overflows int32
    "v-2147483584-edge": hw3(2**31 - 64, 1, [(0, 1, 0)]),
    # Malformed: the edge list.
    "e1-no-edge": hw3(3, 1),
    "e2-one-edge": hw3(3, 2, [(0, 1, 1)]),
    "edge-cut": hw3(3, 1, [(0, 1, 1)])[:-5],
    "trailing-byte": hw3(3, 1, [(0, 1, 1)], b"\0"),
    "trailing-edge": hw3(3, 0, [(0, 1, 1)]),
    "src-out-of-range": hw3(3, 1, [(3, 0, 1)]),
    "src-negative": hw3(3, 1, [(-1, 0, 1)]),
    "dst-out-of-range": hw3(3, 1, [(0, 3, 1)]),
    "dst-int-max": hw3(3, 1, [(0, INT_MAX, 1)]),
    "weight-negative": hw3(3, 1, [(0, 1, -1)]),
    "weight-over-limit": hw3(3, 1, [(0, 1, limit(3) + 1)]),
    "weight-int-max": hw3(2, 1, [(0, 1, INT_MAX)]),
    "v1-weight-inf": hw3(1, 1, [(0, 0, INF)]),
    "bad-edge-after-good": hw3(4, 3, [(0, 1, 1), (1, 2, 2), (2, 9, 3)]),
}


def main():
    args = sys.argv[1:]
    stamp = None
    if "--stamp" in args:
        i = args.index("--stamp")
        stamp = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    if stamp:
        with open(stamp, "w") as f:
            f.write("%d seeds in %s\n" % (len(SEEDS), out))


if __name__ == "__main__":
    main()
