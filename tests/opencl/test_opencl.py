"""Device listing, selection and failure behaviour of the apsp command's OpenCL backend.

    pytest_main.py test_opencl.py::test_NAME --apsp=APSP --testcases=TESTCASES_DIR
        [--opt=kernels=KERNEL_DIR]

meson.build runs each test alone (opencl-NAME). A test that needs an OpenCL device skips without
one, unless APSP_TEST_REQUIRE_DEVICE=1 makes that a failure. test_no_platform needs no device:
it hides every OpenCL platform from the ICD loader.
"""
import os
import re
import shutil
import struct
import subprocess

import pytest
from harness import EXIT_DEVICE, EXIT_USAGE, skip

CASE = "v333-random"  # several rounds at every tile, and several bands under a 64K buffer cap


def clean_env(**extra):
    """The environment without the variables that steer device choice and kernels."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("APSP_DEVICE", "APSP_KERNEL_DIR", "APSP_MAX_BUFFER_BYTES", "APSP_KERNEL_PARAMS")
    }
    env.update(extra)
    return env


class Ctx:
    def __init__(self, apsp, cases, kernels, work, check):
        self.apsp, self.check = apsp, check
        self.cases = cases
        self.kernels = kernels
        self.work = work

    def run(self, args, env=None):
        p = subprocess.run(
            [self.apsp] + args,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=env or clean_env(),
            timeout=300,
        )
        p.err = p.stderr.decode(errors="replace")
        p.out = p.stdout.decode(errors="replace")
        return p

    def devices(self, env=None):
        """--list-devices as dicts: index, name, type, backend, platform, driver, numbers."""
        p = self.run(["--list-devices"], env)
        self.check(p.returncode == 0, "--list-devices exits %d: %s" % (p.returncode, p.err))
        found = []
        for line in p.out.splitlines():
            m = re.match(r"^(\d+): (.*) \[(\w+)\] \((\w+) backend\)$", line)
            if m:
                found.append(
                    dict(index=int(m[1]), name=m[2], type=m[3], backend=m[4], lines=[])
                )
                continue
            self.check(found and line.startswith("    "), "--list-devices: stray line %r" % line)
            if not found:
                continue
            found[-1]["lines"].append(line.strip())
            m = re.match(r"^platform: (.*); driver: (.*)$", line.strip())
            if m:
                found[-1]["platform"], found[-1]["driver"] = m[1], m[2]
            m = re.match(
                r"^compute units: (\d+); global memory: (\d+) MiB; max allocation: (\d+) MiB; "
                r"local memory: (\d+) KiB; max work-group: (\d+)$",
                line.strip(),
            )
            if m:
                found[-1]["numbers"] = [int(x) for x in m.groups()]
        return found

    def opencl_devices(self):
        return [d for d in self.devices() if d["backend"] == "opencl"]

    def case(self, name=CASE):
        return os.path.join(self.cases, name + ".in"), os.path.join(self.cases, name + ".out")

    def solve(self, args, env=None, name=CASE):
        """Runs apsp -v on a testcase; returns (process, backend, device name, output correct)."""
        src, want = self.case(name)
        out = os.path.join(self.work, "out.bin")
        if os.path.exists(out):
            os.unlink(out)
        p = self.run(["-v"] + args + [src, out], env)
        m = re.search(r"^apsp: backend (\w+) on (.*); V = ", p.err, re.M)
        correct = False
        if p.returncode == 0 and os.path.exists(out):
            with open(out, "rb") as f, open(want, "rb") as g:
                correct = f.read() == g.read()
        return p, m[1] if m else None, m[2] if m else None, correct


@pytest.fixture
def ctx(apsp_path, testcases, source_root, opt, work, check):
    return Ctx(apsp_path, testcases, opt.get("kernels", os.path.join(source_root, "cl")), work,
               check)


def need_device(ctx):
    devices = ctx.opencl_devices()
    if devices:
        return devices
    skip("no OpenCL device")


def expect_solved_on(ctx, args, want, what, env=None):
    p, backend, name, correct = ctx.solve(args, env)
    ctx.check(p.returncode == 0, "%s: exit %d: %s" % (what, p.returncode, p.err.strip()))
    # The pthread backend reports its thread count rather than its list entry's name.
    if want["backend"] == "cpu":
        name = want["name"] if backend == "cpu" else name
    ctx.check(
            (backend, name) == (want["backend"], want["name"]),
            "%s: ran on %s '%s', expected %s '%s'"
            % (what, backend, name, want["backend"], want["name"]),
        )
    ctx.check(correct, "%s: wrong output" % what)


def test_list(ctx):
    devices = ctx.devices()
    if need_device(ctx) is None:
        return
    ctx.check(
            [d["index"] for d in devices] == list(range(len(devices))),
            "indices are not 0, 1, 2, ...: %s" % [d["index"] for d in devices],
        )
    cpu = [d for d in devices if d["backend"] == "cpu"]
    ctx.check(len(cpu) == 1 and devices[-1] is cpu[0], "the pthread entry is not last and alone")
    for d in devices:
        if d["backend"] != "opencl":
            continue
        print("found %d: %s [%s] on %s" % (d["index"], d["name"], d["type"], d.get("platform")))
        ctx.check(d["name"] != "", "device %d has no name" % d["index"])
        ctx.check(d["type"] in ("gpu", "cpu", "accelerator", "other"),
                  "device %d type" % d["index"])
        ctx.check(d.get("platform", "") != "", "device %d: no platform line" % d["index"])
        ctx.check(d.get("driver", "") != "", "device %d: no driver version" % d["index"])
        n = d.get("numbers")
        if ctx.check(n is not None, "device %d: no limits line" % d["index"]):
            units, glob, alloc, local, group = n
            ctx.check(units > 0 and glob > 0 and alloc > 0 and local > 0 and group > 0,
                      "device %d: a zero limit: %s" % (d["index"], n))
            ctx.check(alloc <= glob, "device %d: max allocation above global memory" % d["index"])


def test_select_index(ctx):
    devices = need_device(ctx)
    if devices:
        d = devices[-1]  # the last OpenCL device: not merely the default
        expect_solved_on(ctx, ["--device=%d" % d["index"]], d, "--device=%d" % d["index"])
        expect_solved_on(ctx, ["-d", str(d["index"])], d, "-d %d" % d["index"])


def first_match(devices, word):
    word = word.lower()
    for d in devices:
        if word in d["name"].lower() or word in d.get("platform", "").lower():
            return d
    return None


def test_select_name(ctx):
    devices = need_device(ctx)
    if not devices:
        return
    everything = ctx.devices()
    d = devices[-1]
    # A piece of the name in the other case, so that matching must ignore case.
    words = [
        w
        for w in re.split(r"[^A-Za-z0-9]+", d["name"])
        if len(w) >= 3 and not w.isdigit() and w.lower() not in ("gpu", "cpu", "accelerator", "host")
    ]
    piece = (words[-1] if words else d["name"]).swapcase()
    want = first_match(everything, piece)
    expect_solved_on(ctx, ["--device=" + piece], want, "--device=" + piece)


def test_select_type(ctx):
    devices = need_device(ctx)
    if not devices:
        return
    everything = ctx.devices()
    types = sorted({d["type"] for d in devices if d["type"] != "other"})
    for t in types:
        want = next(d for d in everything if d["type"] == t)
        expect_solved_on(ctx, ["--device=" + t.upper()], want, "--device=" + t.upper())
    host = next(d for d in everything if d["type"] == "host")
    expect_solved_on(ctx, ["--device=host"], host, "--device=host")
    # --backend=opencl picks an OpenCL device even when it is a CPU one (PoCL).
    gpus = [d for d in devices if d["type"] == "gpu"]
    expect_solved_on(ctx, ["--backend=opencl"], gpus[0] if gpus else devices[0], "--backend=opencl")
    # auto prefers a GPU and never takes an OpenCL CPU device by itself. The graph is one the
    # pthread backend on one thread would not finish before a platform starts (V = 2000, no
    # edges): a smaller one goes to the pthread backend whatever the devices (test_auto_small).
    src, out = os.path.join(ctx.work, "v2000.in"), os.path.join(ctx.work, "v2000.out")
    with open(src, "wb") as f:
        f.write(struct.pack("<ii", 2000, 0))
    p = ctx.run(["-v", "--threads=1", src, out])
    m = re.search(r"^apsp: backend (\w+) on (.*); V = ", p.err, re.M)
    ran = (m[1], m[2]) if m and p.returncode == 0 else (None, p.err.strip())
    want = ("opencl", gpus[0]["name"]) if gpus else ("cpu", None)
    ctx.check(ran[0] == want[0] and (want[1] is None or ran[1] == want[1]),
              "auto on V = 2000: ran on %s, expected %s" % (ran, want))


def test_select_env(ctx):
    devices = need_device(ctx)
    if devices:
        d = devices[-1]
        expect_solved_on(
            ctx, [], d, "APSP_DEVICE=%d" % d["index"], clean_env(APSP_DEVICE=str(d["index"]))
        )
        # An explicit --device wins over the variable.
        host = ctx.devices()[-1]
        expect_solved_on(
            ctx, ["--device=host"], host, "APSP_DEVICE with --device",
            clean_env(APSP_DEVICE=str(d["index"])),
        )


def expect_failure(ctx, args, code, what, env=None, needles=()):
    p, _, _, _ = ctx.solve(args, env)
    ctx.check(p.returncode == code,
              "%s: exit %d, expected %d: %s" % (what, p.returncode, code, p.err))
    ctx.check(not os.path.exists(os.path.join(ctx.work, "out.bin")),
              "%s: output left behind" % what)
    last = p.err.strip().splitlines()[-1] if p.err.strip() else ""
    ctx.check(last.startswith("apsp: "), "%s: no 'apsp: ' error line: %r" % (what, p.err))
    for needle in needles:
        ctx.check(needle.lower() in p.err.lower(),
                  "%s: stderr lacks %r: %s" % (what, needle, p.err))
    return p


def test_unknown_device(ctx):
    devices = need_device(ctx)
    if not devices:
        return
    everything = ctx.devices()
    p = expect_failure(ctx, ["--device=no-such-device-xyz"], EXIT_DEVICE, "unknown device",
                       needles=["no-such-device-xyz"] + [d["name"] for d in everything[:2]])
    ctx.check(len(p.err.strip().splitlines()) == 1,
              "unknown device: more than one line: %s" % p.err)
    expect_failure(ctx, ["--device=%d" % len(everything)], EXIT_DEVICE, "index past the end")
    # The pthread entry is no OpenCL device.
    expect_failure(ctx, ["--backend=opencl", "--device=host"], EXIT_DEVICE, "opencl + host")


def test_no_platform(ctx):
    empty = os.path.join(ctx.work, "no-vendors")
    os.mkdir(empty)
    env = clean_env(OCL_ICD_VENDORS=empty)
    env.pop("OCL_ICD_FILENAMES", None)
    devices = ctx.devices(env)
    if any(d["backend"] == "opencl" for d in devices):
        pytest.skip("the ICD loader ignores OCL_ICD_VENDORS; cannot hide the platforms")
    ctx.check(
            len(devices) == 1 and devices[0]["backend"] == "cpu" and devices[0]["index"] == 0,
            "without platforms the list is not just the pthread entry: %s" % devices,
        )
    if devices:
        expect_solved_on(ctx, [], devices[0], "auto without platforms", env)
        expect_solved_on(ctx, ["--backend=auto"], devices[0], "--backend=auto", env)
    expect_failure(ctx, ["--backend=opencl"], EXIT_DEVICE, "--backend=opencl without platforms",
                   env, needles=["opencl"])
    expect_failure(ctx, ["--device=gpu"], EXIT_DEVICE, "--device=gpu without platforms", env)


def test_tile_misfit(ctx):
    if not need_device(ctx):
        return
    expect_failure(ctx, ["--backend=opencl", "--tile=1024"], EXIT_DEVICE, "--tile=1024",
                   needles=["--tile=1024", "does not fit"])
    expect_failure(ctx, ["--backend=opencl", "--tile=48"], EXIT_USAGE, "--tile=48",
                   needles=["--tile=48", "power of two"])


def test_build_failure(ctx):
    if not need_device(ctx):
        return
    broken = os.path.join(ctx.work, "broken")
    os.mkdir(broken)
    with open(os.path.join(broken, "fw.cl"), "w") as f:
        f.write("__kernel void fw_phase1(__global int *d) {\n    d[0] = deliberately_undefined;\n}\n")
    # (the Floyd-Warshall program is fw.cl and graph_fill.cl: the folder holds both)
    shutil.copy(os.path.join(ctx.kernels, "graph_fill.cl"), broken)
    p = expect_failure(
        ctx, ["--backend=opencl", "--tile=32"], EXIT_DEVICE, "broken kernel",
        clean_env(APSP_KERNEL_DIR=broken),
        needles=["clBuildProgram", "CL_BUILD_PROGRAM_FAILURE", "-DTILE=32", "deliberately_undefined"],
    )
    lines = p.err.strip().splitlines()
    first = next((i for i, l in enumerate(lines) if "clBuildProgram" in l), None)
    log = next((i for i, l in enumerate(lines) if "deliberately_undefined" in l), None)
    ctx.check(first is not None and "-DTILE=32" in lines[first] and log is not None and log > first,
              "broken kernel: the line with the options does not come before the log: %s" % p.err)
    expect_failure(ctx, ["--backend=opencl"], EXIT_DEVICE, "missing kernel folder",
                   clean_env(APSP_KERNEL_DIR=os.path.join(ctx.work, "nowhere")),
                   needles=["kernel folder", "fw.cl"])
    # The source folder itself builds and solves.
    devices = ctx.opencl_devices()
    expect_solved_on(ctx, ["--backend=opencl", "--device=%d" % devices[0]["index"]], devices[0],
                     "APSP_KERNEL_DIR=cl", clean_env(APSP_KERNEL_DIR=ctx.kernels))


def test_buffer_cap(ctx):
    devices = need_device(ctx)
    if not devices:
        return
    d = devices[0]
    args = ["--device=%d" % d["index"], "--tile=16"]
    expect_solved_on(ctx, args, d, "APSP_MAX_BUFFER_BYTES=64K",
                     clean_env(APSP_MAX_BUFFER_BYTES="64K"))
    # 16 rows of 384 ints: exactly one band of the least height per buffer.
    expect_solved_on(ctx, args + ["--max-buffer-bytes=24K"], d, "--max-buffer-bytes=24K")
    expect_failure(ctx, args, EXIT_USAGE, "APSP_MAX_BUFFER_BYTES=1K",
                   clean_env(APSP_MAX_BUFFER_BYTES="1K"), needles=["one buffer may hold at most"])
    expect_failure(ctx, args, EXIT_USAGE, "APSP_MAX_BUFFER_BYTES=junk",
                   clean_env(APSP_MAX_BUFFER_BYTES="junk"), needles=["APSP_MAX_BUFFER_BYTES"])
    expect_failure(ctx, args + ["--max-buffer-bytes=1K"], EXIT_USAGE, "--max-buffer-bytes=1K",
                   needles=["--max-buffer-bytes"])


def test_kernel_params(ctx):
    """--kernel-params overrides the table and $APSP_KERNEL_PARAMS; a bad one is a usage error."""
    devices = need_device(ctx)
    if not devices:
        return
    d = devices[0]
    args = ["--device=%d" % d["index"]]
    expect_solved_on(ctx, args + ["--kernel-params=CPU_KERNELS=0,K_CHUNK=16"], d,
                     "--kernel-params=CPU_KERNELS=0,K_CHUNK=16")
    expect_solved_on(ctx, args + ["--kernel-params=K_CHUNK=16"], d,
                     "--kernel-params over a bad APSP_KERNEL_PARAMS",
                     clean_env(APSP_KERNEL_PARAMS="NOPE=1"))
    expect_failure(ctx, args + ["--kernel-params=NOPE=1"], EXIT_USAGE, "--kernel-params=NOPE=1",
                   needles=["--kernel-params=NOPE=1"])
    expect_failure(ctx, args, EXIT_USAGE, "APSP_KERNEL_PARAMS=NOPE=1",
                   clean_env(APSP_KERNEL_PARAMS="NOPE=1"), needles=["NOPE=1", "expected NAME=N"])


def test_concurrent(ctx):
    """Several apsp processes at once on the same OpenCL device, each on its own testcase and
    two tile sizes, all with the right bytes."""
    devices = need_device(ctx)
    if not devices:
        return
    d = devices[0]
    cases = sorted(f[:-3] for f in os.listdir(ctx.cases) if f.endswith(".in"))[-4:]
    running = []
    for i, name in enumerate(cases * 2):
        src, want = ctx.case(name)
        out = os.path.join(ctx.work, "concurrent-%d.out" % i)
        tile = "--tile=%d" % (32 if i < len(cases) else 64)
        cmd = [ctx.apsp, "--backend=opencl", "--device=%d" % d["index"], tile, src, out]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=clean_env())
        running.append((proc, out, want, " ".join(cmd[1:])))
    for proc, out, want, what in running:
        _, err = proc.communicate(timeout=300)
        ctx.check(proc.returncode == 0, "%s: exit %d: %s" % (what, proc.returncode, err.decode()))
        with open(out, "rb") as f, open(want, "rb") as g:
            ctx.check(f.read() == g.read(), "%s: wrong output" % what)
    print("%d concurrent runs" % len(running))


def test_device_list(ctx):
    """-d with several devices: a list, a plural, shares; and what it refuses."""
    env = clean_env(POCL_DEVICES="pthread pthread")
    devices = [d for d in ctx.devices(env) if d["backend"] == "opencl"]
    if len(devices) < 2:
        need_device(ctx)
        ctx.check(False, "POCL_DEVICES='pthread pthread' gives %d OpenCL devices" % len(devices))
        return
    a, b = devices[0]["index"], devices[1]["index"]
    for spec in ("%d,%d" % (a, b), "%d,%d" % (b, a), "cpus"):
        p, backend, name, correct = ctx.solve(["-d", spec], env)
        ctx.check(p.returncode == 0 and correct, "-d %s: exit %d, correct %s: %s"
                  % (spec, p.returncode, correct, p.err.strip()))
        ctx.check(name and name.startswith("2 devices: ") and "rows 0-" in name,
                  "-d %s: -v does not name both devices and their rows: %r" % (spec, name))
    # n = 512 in row units of 64: 6 and 2 of them.
    p, _, name, correct = ctx.solve(["-d", "cpus", "--device-shares=3,1", "--tile=32"], env,
                                    name="v500-disconnected")
    ctx.check(p.returncode == 0 and correct and "(75%)" in (name or "") and "(25%)" in (name or ""),
              "--device-shares=3,1: %r, correct %s: %s" % (name, correct, p.err.strip()))
    p = ctx.run(["-v", "-d", "host", ctx.case()[0], os.path.join(ctx.work, "o.bin")],
                dict(env, APSP_DEVICE="cpus"))
    ctx.check(p.returncode == 0, "--device wins over APSP_DEVICE: %s" % p.err.strip())
    p, _, name, correct = ctx.solve([], dict(env, APSP_DEVICE="%d,%d" % (a, b)))
    ctx.check(correct and (name or "").startswith("2 devices: "),
              "APSP_DEVICE=%d,%d: %r" % (a, b, name))
    for args, code, needle in (
        (["-d", "%d,%d" % (a, a)], EXIT_USAGE, "named twice"),
        (["-d", "%d,host" % a], EXIT_USAGE, "cannot share"),
        (["-d", "%d,,%d" % (a, b)], EXIT_USAGE, "empty item"),
        (["-d", "cpus", "--device-shares=1"], EXIT_USAGE, "2 positive numbers"),
        (["-d", "cpus", "--device-shares=1,0"], EXIT_USAGE, "positive"),
        (["-d", "cpus", "--device-shares=1,x"], EXIT_USAGE, "device-shares"),
        (["-d", "%d,no-such-device-xyz" % a], EXIT_DEVICE, "no-such-device-xyz"),
    ) + ((["-d", "pthread"], EXIT_USAGE, "name one by its index"),) * (
            "pthread" in devices[0]["name"]):  # PoCL's device and the pthread backend
        expect_failure(ctx, args, code, "-d %s" % " ".join(args), env, needles=[needle])


def test_two_platforms(ctx):
    """A PoCL device and Oclgrind's simulated device share a solve: two platforms, two
    contexts, so each panel between them waits on the host (src/opencl/panels.c)."""
    icd = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"
    pocl = "/etc/OpenCL/vendors/pocl.icd"
    if not (os.path.exists(icd) and os.path.exists(pocl)):
        skip("needs Oclgrind (Debian: oclgrind) and PoCL")
    vendors = os.path.join(ctx.work, "vendors")
    os.mkdir(vendors)
    with open(os.path.join(vendors, "oclgrind.icd"), "w") as f:
        f.write(icd + "\n")
    # The library's name on a line of its own: ocl-icd drops an .icd file's last character as
    # its newline, so a copy of a file without one (PoCL's on the GPU host) would name no library.
    with open(pocl) as f, open(os.path.join(vendors, "pocl.icd"), "w") as g:
        g.write(f.read().strip() + "\n")
    env = clean_env(OCL_ICD_VENDORS=vendors)
    env.pop("OCL_ICD_FILENAMES", None)
    for spec in ("cpu,oclgrind", "oclgrind,cpu"):
        p, _, name, correct = ctx.solve(
            ["-d", spec, "--device-shares=1,1", "--tile=16"], env, name="v65-disconnected")
        ctx.check(p.returncode == 0 and correct and "(50%)" in (name or ""),
                  "-d %s: exit %d, correct %s, %r: %s" % (spec, p.returncode, correct, name,
                                                          p.err.strip()))


def pocl_registration(ctx):
    """The name of PoCL's library as an .icd file must give it, so that the ICD loader alone
    (OCL_ICD_VENDORS naming a directory, no OCL_ICD_FILENAMES) starts it; None when no name
    does. Debian's /etc/OpenCL/vendors/pocl.icd names it; the lent GPU machine's image starts
    PoCL through OCL_ICD_FILENAMES (libpocl.so.2), and a copy of its pocl.icd
    (libpocl.so.2.12.0) started no platform from a vendors directory there (2026-11-25)."""
    names = []
    if os.path.exists("/etc/OpenCL/vendors/pocl.icd"):
        with open("/etc/OpenCL/vendors/pocl.icd") as f:
            names.append(f.read().strip())
    names += [n for n in os.environ.get("OCL_ICD_FILENAMES", "").split(":") if "pocl" in n]
    for number, name in enumerate(n for n in names if n):
        trial = os.path.join(ctx.work, "pocl-only-%d" % number)
        os.mkdir(trial)
        with open(os.path.join(trial, "pocl.icd"), "w") as f:
            f.write(name + "\n")
        env = clean_env(OCL_ICD_VENDORS=trial)
        env.pop("OCL_ICD_FILENAMES", None)
        if "(opencl backend)" in ctx.run(["--list-devices"], env).out:
            return name
    return None


def test_platform_missing(ctx):
    """A registered platform that cannot load (a missing library, a library that is no OpenCL
    platform) is named with the reason: in --list-devices, in a selection that fails, and an
    index is refused because the indices have shifted; a name still selects the platforms that
    did start."""
    pocl = pocl_registration(ctx)
    if not pocl:
        pytest.skip("needs PoCL, registered so that the ICD loader starts it from a vendors "
                    "directory")
    vendors = os.path.join(ctx.work, "vendors")
    os.mkdir(vendors)
    with open(os.path.join(vendors, "0-gone.icd"), "w") as f:
        f.write("libapsp-no-such-platform.so.1\n")
    with open(os.path.join(vendors, "1-not-opencl.icd"), "w") as f:
        f.write("libz.so.1\n")
    with open(os.path.join(vendors, "pocl.icd"), "w") as g:
        g.write(pocl + "\n")
    env = clean_env(OCL_ICD_VENDORS=vendors)
    env.pop("OCL_ICD_FILENAMES", None)
    listing = ctx.run(["--list-devices"], env)
    ctx.check(listing.returncode == 0, "--list-devices: exit %d" % listing.returncode)
    for needle in ("libapsp-no-such-platform.so.1", "0-gone.icd", "cannot open shared object",
                   "libz.so.1", "not an OpenCL ICD"):
        ctx.check(needle in listing.out,
                  "--list-devices does not say %r: %s" % (needle, listing.out))
    ctx.check("pocl" in listing.out.lower(),
              "PoCL, which did start, is not listed: %s" % listing.out)
    expect_failure(ctx, ["-d", "0"], EXIT_DEVICE, "-d 0 with a platform missing", env,
                   needles=["libapsp-no-such-platform.so.1", "name the device"])
    expect_failure(ctx, ["--backend=opencl", "-d", "nvidia-xyz"], EXIT_DEVICE,
                   "no match with a platform missing", env,
                   needles=["nvidia-xyz", "libapsp-no-such-platform.so.1", "did not start"])
    p, backend, _, correct = ctx.solve(["--backend=opencl", "-d", "cpu", "--tile=16"], env)
    ctx.check(p.returncode == 0 and backend == "opencl" and correct,
              "-d cpu with a platform missing: exit %d, %s, correct %s: %s"
              % (p.returncode, backend, correct, p.err.strip()))
    ctx.check("did not start" in p.err, "-v does not note the missing platform: %s" % p.err)
    # Where every registration starts, nothing is said and an index selects as before.
    p, backend, _, correct = ctx.solve(["-d", "0", "--tile=16"], clean_env())
    ctx.check(p.returncode == 0 and correct and "did not start" not in p.err,
              "healthy -d 0: exit %d, correct %s: %s" % (p.returncode, correct, p.err.strip()))


def test_auto_small(ctx):
    """Auto mode solves a graph too small to wait for OpenCL on the pthread backend without
    loading any platform (the dynamic loader's log names every library it starts), whatever its
    format (hw3, edge list, DIMACS, Matrix Market), and a larger
    one after asking OpenCL for a GPU; --backend=cpu never loads OpenCL. Chosen sources are
    weighed by their own work: a few of a small graph load nothing, many of a larger one ask."""
    import struct

    def hw3(name, vertices):
        path = os.path.join(ctx.work, name)
        with open(path, "wb") as f:
            f.write(struct.pack("<ii", vertices, 0))
        return path

    def loaded_platforms(args):
        out = os.path.join(ctx.work, "auto-small.out")
        p = ctx.run(["-v"] + args + [out], clean_env(LD_DEBUG="files"))
        ctx.check(p.returncode == 0, "%s: exit %d: %s" % (args, p.returncode, p.err[-2000:]))
        starts = [line for line in p.err.splitlines() if "calling init:" in line]
        chosen = re.search(r"^apsp: chosen by (.*)$", p.err, re.M)
        return any("pocl" in line for line in starts), chosen[1] if chosen else None

    def text(name, body):
        path = os.path.join(ctx.work, name)
        with open(path, "w") as f:
            f.write(body)
        return path

    small, large = hw3("v6.in", 6), hw3("v2000.in", 2000)
    # Every format, not only hw3's header: the graph is read first, then the solver chosen.
    path6 = "".join("%d %d %d\n" % (i, i + 1, i + 2) for i in range(5))
    smalls = [small, text("v6.txt", path6),
              text("v6.gr", "p sp 6 5\n" + "".join("a %d %d %d\n" % (i + 1, i + 2, i + 2)
                                                   for i in range(5))),
              text("v6.mtx", "%%MatrixMarket matrix coordinate integer general\n6 6 5\n"
                   + "".join("%d %d %d\n" % (i + 1, i + 2, i + 2) for i in range(5)))]
    for graph in smalls:
        platform, chosen = loaded_platforms(["--threads=1", graph])
        ctx.check(not platform, "%s: V = 6 in auto mode loaded PoCL" % os.path.basename(graph))
        ctx.check(chosen and chosen.startswith("auto: V = 6") and "no OpenCL platform" in chosen,
                  "%s: V = 6: chosen by %r" % (os.path.basename(graph), chosen))
    # Chosen sources: auto weighs their Dijkstra, S (E + V) log2 V, not V^3 (which for V = 6000
    # is seconds: the rule for a whole solve would load OpenCL).
    wide = hw3("v6000.in", 6000)
    platform, _ = loaded_platforms(["--threads=1", "--sources=0-2", wide])
    ctx.check(not platform, "3 sources of V = 6000 in auto mode loaded PoCL")
    platform, chosen = loaded_platforms(["--backend=cpu", large])
    ctx.check(not platform and chosen == "--backend=cpu", "--backend=cpu: PoCL %s, chosen by %r"
              % (platform, chosen))
    if not os.path.exists("/etc/OpenCL/vendors/pocl.icd"):
        return
    platform, chosen = loaded_platforms(["--threads=1", large])
    ctx.check(platform, "V = 2000 on one thread in auto mode did not ask OpenCL for a GPU")
    ctx.check(chosen and chosen.startswith("auto: "), "V = 2000: chosen by %r" % chosen)
    platform, _ = loaded_platforms(["--threads=1", "--sources=0-999", wide])
    ctx.check(platform, "1000 sources of V = 6000 on one thread in auto mode did not ask OpenCL")


def test_kernel_cache(ctx):
    """The compiled program is kept between runs and reused; a corrupt, cut or foreign cache
    file, an unwritable cache directory and --kernel-cache=off all still give the right answer,
    rebuilding from source."""
    devices = need_device(ctx)
    if not devices:
        return
    index = str(devices[0]["index"])
    cache = os.path.join(ctx.work, "cache", "apsp")

    def builds(args, what, env=None):
        p, _, _, correct = ctx.solve(["-d", index, "--tile=32"] + args, env or clean_env())
        m = re.search(r"programs built (\d+)", p.err)
        ctx.check(p.returncode == 0 and correct and m,
                  "%s: exit %d, correct %s: %s" % (what, p.returncode, correct, p.err.strip()))
        return int(m[1]) if m else None

    def files():
        return sorted(os.listdir(cache)) if os.path.isdir(cache) else []

    use = ["--kernel-cache=" + cache]
    ctx.check(builds(use, "cold cache") == 1, "a cold cache did not build")
    ctx.check(len(files()) == 1 and files()[0].endswith(".clbin"), "no cache file: %s" % files())
    ctx.check(builds(use, "warm cache") == 0, "a warm cache still built the program")
    ctx.check(builds([], "APSP_KERNEL_CACHE", clean_env(APSP_KERNEL_CACHE=cache)) == 0,
              "APSP_KERNEL_CACHE was not used")
    path = os.path.join(cache, files()[0])
    with open(path, "rb") as f:
        good = f.read()
    damaged = {
        "cut short": good[: len(good) // 2],
        "a flipped byte in the binary": good[:-100] + bytes([good[-100] ^ 0x40]) + good[-99:],
        "another key": good.replace(b"apsp kernel cache", b"apsp kernel cachf", 1),
        "empty": b"",
    }
    for what, content in damaged.items():
        with open(path, "wb") as f:
            f.write(content)
        ctx.check(builds(use, what) == 1, "%s: the cache file was used" % what)
        # Replaced by a good one: the next run takes it. (Not compared with `good` byte for
        # byte: PoCL's binary also holds the work-group sizes compiled so far, which its own
        # cache, shared with tests running beside this one, can change.)
        with open(path, "rb") as f:
            ctx.check(f.read() != content, "%s: the cache file was not replaced" % what)
        ctx.check(builds(use, what + ", then again") == 0,
                  "%s: the replacement was not used" % what)
    ctx.check(builds(use + ["--kernel-params=K_CHUNK=8"], "other parameters") == 1,
              "other kernel parameters reused the cached program")
    ctx.check(len(files()) == 2, "other parameters did not get their own file: %s" % files())
    # The predecessors' program (cl/paths.cl) is kept beside fw.cl's.
    pred = ["--predecessors=" + os.path.join(ctx.work, "pred.npy")]
    ctx.check(builds(use + pred, "predecessors, cold") == 1, "paths.cl was not built once")
    ctx.check(len(files()) == 3, "paths.cl did not get its own file: %s" % files())
    ctx.check(builds(use + pred, "predecessors, warm") == 0, "paths.cl was built again")
    blocked = os.path.join(ctx.work, "a-file")
    with open(blocked, "w") as f:
        f.write("not a directory\n")
    ctx.check(builds(["--kernel-cache=" + os.path.join(blocked, "apsp")], "unwritable") == 1,
              "an unwritable cache did not build")
    home = os.path.join(ctx.work, "home")
    # PoCL keeps its own compiles under the same XDG directories: pointed at the usual place so
    # that a fresh HOME does not make it compile again (inside an ASan build LLVM's compile
    # reports leaks of its own).
    pocl_cache = os.environ.get("POCL_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pocl",
        "kcache")
    env = clean_env(HOME=home, POCL_CACHE_DIR=pocl_cache)
    env.pop("XDG_CACHE_HOME", None)
    ctx.check(builds([], "default ~/.cache/apsp", env) == 1 and
              os.listdir(os.path.join(home, ".cache", "apsp")), "~/.cache/apsp was not the default")
    ctx.check(builds(["--kernel-cache=off"], "off", env) == 1,
              "--kernel-cache=off reused a program")
    leftovers = [f for f in files() if not f.endswith(".clbin")]
    ctx.check(not leftovers, "temporary cache files left: %s" % leftovers)

