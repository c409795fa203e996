#!/usr/bin/env python3
"""Writes the text readers' fuzz seeds: small DIMACS, Matrix Market and edge-list files, valid and
malformed, one per class that tests/reader/test_formats.c checks (python3 standard library only).

    make_text_seeds.py OUTDIR [--stamp FILE]

Writes OUTDIR/dimacs/, OUTDIR/mtx/ and OUTDIR/edgelist/ (created if needed, files overwritten).
With --stamp, FILE is touched afterwards (for Meson's custom_target)."""
import os
import sys

MM = "%%MatrixMarket matrix coordinate "

SEEDS = {
    "dimacs": {
        "ok": "c road\np sp 4 3\na 1 2 5\na 2 3 0\na 4 1 7\n",
        "crlf": "p sp 2 1\r\na 1 2 7\r\n",
        "no-newline": "p sp 2 1\na 2 1 4",
        "blank": "\n\np sp 2 1\n\n  \na 1 1 3\n\n",
        "empty-graph": "p sp 1 0\n",
        "dup-loop": "p sp 3 4\na 1 2 5\na 1 2 3\na 2 2 1\na 3 1 9\n",
        "few-arcs": "p sp 2 2\na 1 2 3\n",
        "many-arcs": "p sp 2 1\na 1 2 3\na 2 1 3\n",
        "arc-first": "a 1 2 3\np sp 2 1\n",
        "out-of-range": "p sp 2 1\na 0 3 3\n",
        "negative": "p sp 2 1\na 1 2 -3\n",
        "wide": "p sp 3 1\na 1 2 600000000\n",
        "overflow": "p sp 2 1\na 1 2 99999999999999999999\n",
        "huge-v": "p sp 2147483647 1\na 1 2147483647 1\n",
        "huge-e": "p sp 2 9223372036854775807\n",
    },
    "mtx": {
        "general": MM + "integer general\n% c\n3 3 3\n1 2 5\n3 1 7\n2 2 1\n",
        "symmetric": MM + "real symmetric\n3 3 2\n2 1 2.0\n3 2 3.000e+00\n",
        "pattern": MM + "pattern general\n2 2 1\n1 2\n",
        "pattern-symmetric": MM + "pattern symmetric\n3 3 2\n2 1\n3 3\n",
        "double": MM + "double general\r\n2 2 1\r\n2 1 4",
        "fraction": MM + "real general\n2 2 1\n1 2 1.5\n",
        "exponent": MM + "real general\n2 2 1\n1 2 1e2\n",
        "real-weights": MM + "real general\n3 3 2\n1 2 2.5e-3\n3 1 -0.75\n",
        "not-finite": MM + "real general\n2 2 1\n1 2 -inf\n",
        "array": "%%MatrixMarket matrix array real general\n2 2\n0\n1\n2\n3\n",
        "complex": MM + "complex general\n2 2 1\n1 2 1 0\n",
        "skew": MM + "real skew-symmetric\n2 2 1\n2 1 1\n",
        "upper": MM + "real symmetric\n2 2 1\n1 2 3\n",
        "not-square": MM + "integer general\n2 3 0\n",
        "few": MM + "integer general\n2 2 2\n1 2 3\n",
        "huge-nnz": MM + "integer general\n2 2 9223372036854775807\n1 2 3\n",
        "overflow": MM + "integer general\n3 3 1\n1 2 99999999999999999999\n",
    },
    "edgelist": {
        "plain": "# SNAP\n% also\n0 1\n1\t2\n\n4 0\n",
        "weighted": "0 1 5\n1 0 2.0\n2 2 0\n",
        "networkx": "0 1 2\n1 2 3.0\n",
        "crlf": "0 1 3\r\n1 2 4\r\n",
        "no-newline": "0 1 3",
        "mixed": "0 1 5\n1 2\n",
        "negative": "0 1 -2\n",
        "wide": "0 1 5\n1 2 600000000\n0 2 1\n",
        "overflow": "0 99999999999999999999\n",
        "big-id": "0 2147483646\n",
        "fraction": "0 1 0.5\n",
        "reals": "0 1 1.5\n1 2 2e-3\n2 0 -.25\n",
        "nan": "0 1 nan\n",
        "huge-real": "0 1 1e400\n",
        "empty": "",
    },
}


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    for fmt, seeds in SEEDS.items():
        d = os.path.join(sys.argv[1], fmt)
        os.makedirs(d, exist_ok=True)
        for name, text in seeds.items():
            with open(os.path.join(d, name), "w", newline="") as f:
                f.write(text)
    if len(sys.argv) == 4 and sys.argv[2] == "--stamp":
        open(sys.argv[3], "w").close()


if __name__ == "__main__":
    main()
