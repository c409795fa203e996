"""Every accepted OpenCL configuration runs or is refused: round depths 8 to 1024 and each kernel
parameter at the ends of its range (from `apsp --kernel-params=help`), with both kernel
families, on the first OpenCL device (PoCL in CI). Each run must exit 0 with the right bytes,
or be refused with one error line and exit 2 (usage) or 6 (does not fit the device); a crash,
a hang or a wrong answer fails.

    pytest_main.py test_sweep.py --apsp=APSP --testcases=TESTCASES_DIR [--opt=full=1]

Each run compiles a program of its own (about 10 s with PoCL on a cold cache), so the runs go on
as many processes as there are cores, at most 8. Without --full each end of each parameter runs
with one kernel family, the families taking turns (31 runs); --opt=full=1 (suite 'slow') runs
both. Skips without an OpenCL device, unless APSP_TEST_REQUIRE_DEVICE=1.
"""
import concurrent.futures
import os
import subprocess

from harness import skip

CASE = "v129-dense"  # padded at every round depth, several rounds at the small ones
# One run's limit. On a cold PoCL cache the work-group kernels of GROUP_ROWS=1 or GROUP_COLS=1 at
# tile 64 alone take 110-160 s to compile on the 2-core CI machine (2026-11-28), and more than 300
# s beside the sweep's other process and another test's; a hang still ends here.
RUN_TIMEOUT = 900


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


def configurations(apsp, full):
    runs = [["--tile=%d" % (1 << k)] for k in range(3, 11)]
    families = ("CPU_KERNELS=0", "CPU_KERNELS=1")
    turn = 0
    for name, least, most in parameters(apsp):
        if name == "TILE":
            continue
        for value in (least, most):
            for family in families if full or name == "CPU_KERNELS" else (families[turn % 2],):
                words = family if name == "CPU_KERNELS" else "%s,%s=%d" % (family, name, value)
                runs.append(["--tile=64", "--kernel-params=" + words])
            turn += 1
    runs.append(["--tile=128", "--kernel-params=CPU_KERNELS=0,GROUP_ROWS=64,GROUP_COLS=64"])
    return runs


def sweep_one(apsp, src, want, work, number, args):
    """(ok, line) for one configuration, written to an output of its own."""
    out = os.path.join(work, "out-%d.bin" % number)
    cmd = [apsp, "--backend=opencl", "-d", "0"] + args + [src, out]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        code, err = p.returncode, p.stderr.strip()
    except subprocess.TimeoutExpired:
        code, err = "timeout", ""
    right = code == 0 and os.path.exists(out) and open(out, "rb").read() == want
    lines = err.splitlines()
    refused = code in (2, 6) and lines and lines[-1].startswith("apsp: ")
    ok = right or refused
    if os.path.exists(out):
        os.unlink(out)
    return ok, "%-4s %-60s exit %s%s" % ("ok" if ok else "FAIL", " ".join(args), code,
                                          (": " + lines[-1][:100]) if lines and not right else "")


def test_sweep(apsp_path, testcases, opt, work, check):
    apsp, cases = apsp_path, testcases
    listing = subprocess.run([apsp, "--list-devices"], capture_output=True, text=True).stdout
    if "(opencl backend)" not in listing:
        skip("no OpenCL device")
    runs = configurations(apsp, opt.get("full") == "1")
    src = os.path.join(cases, CASE + ".in")
    with open(os.path.join(cases, CASE + ".out"), "rb") as f:
        want = f.read()
    workers = max(1, min(8, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda n: sweep_one(apsp, src, want, work, n, runs[n]),
                                range(len(runs))))
    for ok, line in results:
        print(line)
        check(ok, line)
    print("%d runs on %d processes" % (len(runs), workers))
