#!/usr/bin/env python3
"""base/sha256.c against hashlib: every length 0..300 (the one- and two-block paddings, 55, 56,
63, 64 bytes...) and one large message, the byte pattern of tests/api/test_sha256.c.

    test_sha256.py TEST_SHA256_EXECUTABLE
"""
import hashlib
import subprocess
import sys


def pattern(size):
    return bytes((i * 131 + (i >> 8) * 7 + 29) & 0xFF for i in range(size))


def main(argv):
    lines = subprocess.run([argv[1]], capture_output=True, check=True, text=True).stdout.split("\n")
    checked, failures = 0, 0
    for line in filter(None, lines):
        size, got = line.split()
        want = hashlib.sha256(pattern(int(size))).hexdigest()
        checked += 1
        if got != want:
            failures += 1
            print("FAIL: %s bytes: %s, hashlib says %s" % (size, got, want))
    print("%d digests checked, %d wrong" % (checked, failures))
    return 1 if failures or checked < 302 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
