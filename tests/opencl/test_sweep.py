"""Every accepted OpenCL configuration runs or is refused: round depths 8 to 1024 and each kernel
parameter at the ends of its range (from `apsp --kernel-params=help`), with both kernel
families, on the first OpenCL device (PoCL in CI). Each run must exit 0 with the right bytes,
or be refused with one error line and exit 2 (usage) or 6 (does not fit the device); a crash,
a hang or a wrong answer fails.

    test_sweep.py APSP TESTCASES_DIR
"""
import os
import subprocess
import sys
import tempfile

SKIP = 77
CASE = "v129-dense"  # padded at every round depth, several rounds at the small ones


def parameters(apsp):
    """(name, least, most) of every kernel parameter, from the library's own list."""
    out = subprocess.run([apsp, "--kernel-params=help"], capture_output=True, text=True).stdout
    rows = [line.split("|") for line in out.splitlines() if line.startswith("| ") and "-" in line]
    found = []
    for row in rows:
        name, rng = row[1].strip(), row[3].strip()
        if name != "name" and "-" in rng:
            least, most = rng.split("-")
            found.append((name, int(least), int(most)))
    return found


def main():
    apsp, cases = sys.argv[1], sys.argv[2]
    listing = subprocess.run([apsp, "--list-devices"], capture_output=True, text=True).stdout
    if "(opencl backend)" not in listing:
        print("no OpenCL device")
        return 1 if os.environ.get("APSP_TEST_REQUIRE_DEVICE") == "1" else SKIP
    runs = [["--tile=%d" % (1 << k)] for k in range(3, 11)]
    for name, least, most in parameters(apsp):
        if name == "TILE":
            continue
        for value in (least, most):
            for family in ("CPU_KERNELS=0", "CPU_KERNELS=1"):
                words = family if name == "CPU_KERNELS" else "%s,%s=%d" % (family, name, value)
                runs.append(["--tile=64", "--kernel-params=" + words])
    runs.append(["--tile=128", "--kernel-params=CPU_KERNELS=0,GROUP_ROWS=64,GROUP_COLS=64"])
    src = os.path.join(cases, CASE + ".in")
    with open(os.path.join(cases, CASE + ".out"), "rb") as f:
        want = f.read()
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "out.bin")
        for args in runs:
            cmd = [apsp, "--backend=opencl", "-d", "0"] + args + [src, out]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
                code, err = p.returncode, p.stderr.strip()
            except subprocess.TimeoutExpired:
                code, err = "timeout", ""
            right = code == 0 and os.path.exists(out) and open(out, "rb").read() == want
            lines = err.splitlines()
            refused = code in (2, 6) and lines and lines[-1].startswith("apsp: ")
            ok = right or refused
            failures += not ok
            print("%-4s %-60s exit %s%s" % ("ok" if ok else "FAIL", " ".join(args), code,
                                             (": " + lines[-1][:100]) if lines and not right else ""))
            if os.path.exists(out):
                os.unlink(out)
    print("%d runs, %d failures" % (len(runs), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
