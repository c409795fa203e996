#!/usr/bin/env python3
"""Writes the kernel cache file parser's fuzz seeds (tests/fuzz/cache_check.h): files laid out as
src/base/cache_file.h says, whole and broken in each field (python3 standard library only).

    make_cache_seeds.py OUTDIR [--stamp FILE]

OUTDIR is created if needed and its files overwritten. With --stamp, FILE is touched afterwards
(for Meson's custom_target)."""
import hashlib
import os
import sys

KEY = (b"apsp kernel cache 2\nplatform: OpenCL 3.0 PoCL\ndevice: cpu\ndriver: 3.1\n"
       b"version: OpenCL 3.0\noptions: -DTILE=32\nsource: 100 bytes, sha256 00\n")


def cache_file(key, binary, size=None, digest=None):
    size = len(binary) if size is None else size
    digest = hashlib.sha256(binary).digest() if digest is None else digest
    return key + b"\0" + size.to_bytes(8, "little") + digest + binary


def seeds():
    pocl = b"poclbin\0" + bytes(range(256)) * 4
    whole = cache_file(KEY, pocl)
    return {
        "whole": whole,
        "whole-one-byte": cache_file(b"k", b"\x01"),
        "whole-empty-key": cache_file(b"", b"binary"),
        "whole-nul-in-binary": cache_file(KEY, b"\0\0\0\0ptx\0"),
        "cut-in-binary": whole[:-1],
        "cut-in-digest": whole[: len(KEY) + 1 + 8 + 5],
        "cut-in-size": whole[: len(KEY) + 1 + 3],
        "key-only": KEY + b"\0",
        "no-nul": KEY,
        "empty": b"",
        "size-zero": cache_file(KEY, b"", size=0),
        "size-too-large": cache_file(KEY, pocl, size=len(pocl) + 1),
        "size-too-small": cache_file(KEY, pocl, size=len(pocl) - 1),
        "size-huge": cache_file(KEY, pocl, size=2**64 - 1),
        "digest-wrong": cache_file(KEY, pocl, digest=hashlib.sha256(pocl[1:]).digest()),
        "binary-flipped": whole[:-7] + bytes([whole[-7] ^ 4]) + whole[-6:],
    }


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--stamp"):
        sys.exit(__doc__)
    os.makedirs(argv[1], exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(argv[1], name), "wb") as f:
            f.write(data)
    if len(argv) == 4:
        with open(argv[3], "w") as f:
            f.write("")


if __name__ == "__main__":
    main(sys.argv)
