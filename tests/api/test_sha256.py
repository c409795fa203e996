"""base/sha256.c against hashlib: every length 0..300 (the one- and two-block paddings, 55, 56,
63, 64 bytes...) and one large message, the byte pattern of tests/api/test_sha256.c.

    pytest_main.py test_sha256.py --exe test-sha256 TEST_SHA256_EXECUTABLE
"""
import hashlib
import subprocess


def pattern(size):
    return bytes((i * 131 + (i >> 8) * 7 + 29) & 0xFF for i in range(size))


def test_digests(exe, check):
    lines = subprocess.run([exe["test-sha256"]], capture_output=True, check=True,
                           text=True).stdout.split("\n")
    checked = 0
    for line in filter(None, lines):
        size, got = line.split()
        want = hashlib.sha256(pattern(int(size))).hexdigest()
        checked += 1
        check(got == want, "%s bytes: %s, hashlib says %s" % (size, got, want))
    check(checked >= 302, "%d digests printed, expected 302" % checked)
