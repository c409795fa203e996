"""Options and variables the apsp command must refuse, or take exactly as given (regressions of
the small validation holes found by a hostile read): each case runs the command on a testcase
and checks the exit code, the one error line and, for a run, the bytes.

    pytest_main.py test_options.py --apsp=APSP --testcases=TESTCASES_DIR
"""
import json
import os
import re
import resource
import subprocess

CASE = "v129-dense"

# A valid value for each option that takes one (--help=all lists them); a new one must be added.
VALUES = {"--input-format": "hw3", "--output-format": "hw3", "--vertices": "200",
          "--dtype": "int32", "--predecessors": "-", "--path": "0,1", "--backend": "cpu",
          "--device": "0", "--device-shares": "1", "--tile": "128", "--threads": "1",
          "--max-buffer-bytes": "1G", "--device-memory": "1G", "--kernel-params": "K_CHUNK=8",
          "--kernel-cache": "off", "--sources": "0-9", "--method": "dijkstra",
          "--columns": "from,to", "--limit": "5"}


def test_options(apsp_path, testcases, work, check):
    apsp, cases = apsp_path, testcases
    src = os.path.join(cases, CASE + ".in")
    with open(os.path.join(cases, CASE + ".out"), "rb") as f:
        want = f.read()
    has_opencl = "(opencl backend)" in subprocess.run(
        [apsp, "--list-devices"], capture_output=True, text=True).stdout
    out = os.path.join(work, "out.bin")

    def run(args, env=None, source=None, limit=None, stdin=None):
        if os.path.exists(out):
            os.unlink(out)
        full = dict(os.environ, **(env or {}))
        for k in ("APSP_DEVICE", "APSP_KERNEL_PARAMS", "APSP_MAX_BUFFER_BYTES"):
            if not env or k not in env:
                full.pop(k, None)
        preexec = (lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))) \
            if limit else None
        return subprocess.run([apsp] + args + [source or src, out], capture_output=True,
                              text=True, env=full, timeout=300, preexec_fn=preexec,
                              stdin=stdin)

    def expect(args, code, needle="", env=None, opencl=False, **more):
        if opencl and not has_opencl:
            print("skip (no OpenCL device): %s" % args)
            return
        p = run(args, env, **more)
        lines = p.stderr.strip().splitlines()
        what = "%s %s" % (" ".join("%s=%s" % kv for kv in (env or {}).items()), args)
        if code == 0:
            ok = p.returncode == 0 and open(out, "rb").read() == want
        else:
            ok = (p.returncode == code and len(lines) == 1 and lines[0].startswith("apsp: ")
                  and needle.lower() in lines[0].lower() and not os.path.exists(out))
        print("%-4s %s -> exit %d %s" % ("ok" if ok else "FAIL", what, p.returncode,
                                          lines[-1][:110] if lines else ""))
        check(ok, what)
        return p

    expect(["--tile= 16"], 2, "--tile")
    expect(["--threads= 2"], 2, "--threads")
    expect(["--threads=-2"], 2, "--threads")
    expect(["--max-buffer-bytes= -1"], 2, "--max-buffer-bytes")
    expect(["--backend=opencl"], 2, "APSP_MAX_BUFFER_BYTES", {"APSP_MAX_BUFFER_BYTES": " -1"},
           opencl=True)
    expect(["--backend=opencl", "--kernel-params=K_CHUNK= 16"], 2, "K_CHUNK", opencl=True)
    expect(["--backend=opencl", "--kernel-params=CPU_KERNELS=5"], 2, "CPU_KERNELS",
           opencl=True)
    expect(["--backend=opencl", "--kernel-params=CPU_KERNELS=1,GROUP_ROWS=4"], 2,
           "CPU_KERNELS=1 needs", opencl=True)
    # Taken as given, not silently replaced by the device's shape (VECTOR=1, which divides
    # 7, whatever the device's table row says: NVIDIA's reads 4 ints at a time). Built, not
    # taken from the user's kernel cache, where another test (or an earlier run) may have put
    # the same program: a cached program is not built, so its options are not shown.
    p = expect(["--backend=opencl", "--kernel-cache=off",
                "--kernel-params=CPU_KERNELS=0,THREAD_ROWS=7,VECTOR=1"], 0,
               env={"APSP_SHOW_BUILD": "1"}, opencl=True)
    if p is not None and "-DTHREAD_ROWS=7 " not in p.stderr:
        check.fail("THREAD_ROWS=7 was not built as given")
    expect(["--backend=cpu"], 2, "cpu_isa", {"APSP_CPU_ISA": "garbage"})
    expect(["--backend=opencl"], 4, "/nonexistent/x", {"APSP_DUMP_PROGRAM": "/nonexistent/x"},
           opencl=True)
    expect(["--backend=opencl"], 2, "-DINF", {"APSP_BUILD_OPTIONS": "-DINF=5"}, opencl=True)
    expect(["--backend=cpu", "--tile=64"], 2, "pthread backend")
    expect(["--backend=cpu", "--kernel-params=K_CHUNK=8"], 2, "pthread backend")
    expect(["--backend=cpu", "--tile=128"], 0)
    # The variable is OpenCL's: with --backend=cpu it does not apply.
    expect(["--backend=cpu"], 0, env={"APSP_KERNEL_PARAMS": "K_CHUNK=8"})
    # A reason names the round depth that was tried, not "tile 1".
    p = expect(["--backend=opencl", "--kernel-params=CPU_KERNELS=0,GROUP_ROWS=64,GROUP_COLS=64"],
               6, "tile 128", opencl=True)
    # An option of one value given twice is refused, not silently the last one taken.
    usage = subprocess.run([apsp, "--help=all"], capture_output=True, text=True).stdout
    valued = re.findall(r"^ +(?:-\w, )?(--[\w-]+)=", usage, re.M)
    if set(valued) != set(VALUES):
        check.fail("options that take a value: --help %s, VALUES %s"
                   % (sorted(valued), sorted(VALUES)))
    for option in valued:
        given = "%s=%s" % (option, VALUES.get(option, "x"))
        expect([given, given], 2, "%s is given twice" % option)
    expect(["-d", "0", "--device=0"], 2, "--device is given twice")

    # --stats-json: one JSON line with the -v figures; --progress: lines off a terminal.
    p = run(["--backend=cpu", "--stats-json", "--progress"])
    lines = p.stderr.strip().splitlines()
    try:
        stats = json.loads(lines[-1])
        ok = (p.returncode == 0 and stats["vertices"] == 129 and stats["padded"] == 256
              and stats["backend"] == "cpu" and stats["compute_s"] >= 0
              and any(l.startswith("apsp: round 2/2") for l in lines))
    except (ValueError, KeyError, IndexError):
        ok = False
    print("%-4s --stats-json --progress: %s" % ("ok" if ok else "FAIL", lines[-1:]))
    check(ok, "--stats-json --progress")
    # Chosen sources searched one by one are counted as sources, not rounds.
    p = run(["--backend=cpu", "--progress", "--sources=0-9", "--method=dijkstra"])
    ok = p.returncode == 0 and "apsp: source 10/10" in p.stderr
    print("%-4s --progress --sources: %s" % ("ok" if ok else "FAIL", p.stderr.strip()[-80:]))
    check(ok, "--progress --sources")

    # Refused before the V x V matrix exists: an 8-byte file claiming V = 40000 (6.4 GB)
    # under a 3 GB address-space limit, where allocating the matrix would fail (exit 5).
    # A sanitizer build cannot run under the limit at all: then this part is skipped.
    limit = 3 << 30
    probe = subprocess.run([apsp, "--version"], capture_output=True,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS,
                                                                 (limit, limit)))
    big = os.path.join(work, "v40000.in")
    with open(big, "wb") as f:
        f.write((40000).to_bytes(4, "little") + (0).to_bytes(4, "little"))
    if probe.returncode != 0:
        print("skip the address-space checks: this build cannot run under RLIMIT_AS")
    else:
        expect(["--backend=cpu", "--tile=3"], 2, "--tile=3", source=big, limit=limit)
        expect(["-d", "no-such-device-xyz"], 6, "no-such-device-xyz", source=big, limit=limit)
        expect(["--backend=opencl", "--kernel-params=garbage"], 2, "garbage", source=big,
               limit=limit, opencl=True)
        expect(["--backend=opencl", "--max-buffer-bytes=1"], 2, "one buffer may hold",
               source=big, limit=limit, opencl=True)
        # From a pipe: a 20-byte stream claiming V = 40000 and 5 edges is truncated.
        short = os.path.join(work, "short.in")
        with open(short, "wb") as f:
            f.write((40000).to_bytes(4, "little") + (5).to_bytes(4, "little") + bytes(12))
        read_end, write_end = os.pipe()
        with open(short, "rb") as f:
            os.write(write_end, f.read())
        os.close(write_end)
        expect(["--backend=cpu"], 3, "truncated: the file ends", source="/dev/stdin",
               limit=limit, stdin=read_end)
        os.close(read_end)
