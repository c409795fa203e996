#!/usr/bin/env python3
"""The AMD compile check: cl/fw.cl compiled by clang-14 for AMD GPUs, no AMD GPU needed.

The OpenCL backend builds cl/fw.cl, followed by cl/graph_fill.cl in the same program
(src/opencl/program.c), at run time with a -D define for every kernel parameter. This
script asks amd-kernel-defines (tests/amd/kernel_defines.c, which runs the library's own
src/opencl/params.c) for the options of each parameter set below, compiles the kernels with
clang-14 for each AMD target, with OpenCL's builtins (min, vload16, get_local_id, barrier)
linked from libclc's amdgcn bitcode, assembles the code object, and prints per kernel the
registers, spills, scratch, local memory and occupancy that the compiler reports. It fails on a
compile error, on a parameter set the library refuses, and when the tuning table's AMD row
spills or needs scratch on gfx90a (its comment in src/opencl/params.c says it does not).

clang-14 cannot print -Rpass-analysis=kernel-resource-usage (LLVM 15 added it), so the figures
come from the assembly: the code object's metadata (.vgpr_count, .sgpr_count, .agpr_count,
.vgpr_spill_count, .sgpr_spill_count, .private_segment_fixed_size, .group_segment_fixed_size,
.wavefront_size, .reqd_workgroup_size) and the "; Occupancy: N" comment (waves per SIMD as LLVM
counts them from registers). LLVM 14 compares the waves that local memory allows per compute
unit against waves per SIMD, so the last column recounts that limit per SIMD (below: LDS).

Run:
    python3 tests/amd/compile.py BUILD/tests/amd/amd-kernel-defines cl/fw.cl cl/graph_fill.cl \
        [--markdown]
(the sources are compiled as one, in the order given, as the library joins them)
    meson test -C BUILD --suite amd --verbose      (the same, as a test)
Exit status 77 (skipped) when clang-14 or libclc's amdgcn bitcode is missing, unless
APSP_TEST_REQUIRE_DEVICE=1 (CI), which makes that a failure. Debian: apt-get install clang-14
libclc-14 (tools/setup.sh does).
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

CLANG = os.environ.get("APSP_CLANG", "clang-14")
LIBCLC = os.environ.get("APSP_LIBCLC_AMDGCN", "/usr/lib/clc/amdgcn--amdhsa.bc")

# Target: local memory per compute unit (gfx10: per work-group processor, in its default WGP
# mode) and SIMDs sharing it; LLVM knows the register file and the most waves per SIMD.
TARGETS = {
    "gfx90a": {"lds": 65536, "simds": 4, "what": "MI210/MI250 (CDNA2)"},
    "gfx942": {"lds": 65536, "simds": 4, "what": "MI300 (CDNA3)"},
    "gfx1030": {"lds": 131072, "simds": 4, "what": "RX 6800/6900 (RDNA2)"},
}

# Parameter sets: the arguments of amd-kernel-defines (its defaults describe an MI210 as ROCm
# reports it: vendor "Advanced Micro Devices, Inc.", 64 KiB local memory, work-groups <= 256).
SETS = [
    ("amd", "the table's AMD row at its round depth", []),
    ("amd-t64", "the AMD row at tile 64", ["--tile=64"]),
    ("amd-t32", "the AMD row at tile 32", ["--tile=32"]),
    ("gpu", "the table's GPU row (a non-AMD GPU) at its round depth",
     ["--vendor=NVIDIA Corporation"]),
    ("gpu-t64", "the GPU row at tile 64", ["--vendor=NVIDIA Corporation", "--tile=64"]),
    ("gpu-t32", "the GPU row at tile 32", ["--vendor=NVIDIA Corporation", "--tile=32"]),
    ("cpu", "the table's CPU row (CPU kernels) at its round depth", ["--type=cpu"]),
    ("fallback", "the fallbacks (a device no row matches) at their round depth",
     ["--type=custom"]),
]

# The sets whose kernels must not spill or use scratch on gfx90a: the AMD row's promise.
NO_SPILL = {("amd", "gfx90a")}


def skip_or_fail(message):
    print(message)
    sys.exit(1 if os.environ.get("APSP_TEST_REQUIRE_DEVICE") == "1" else 77)


def target_known(target):
    """Whether clang-14 accepts -mcpu=target (it does not know gfx942)."""
    probe = subprocess.run(
        [CLANG, "-x", "cl", "-target", "amdgcn-amd-amdhsa", "-mcpu=" + target, "-nogpulib",
         "-fsyntax-only", "-"], input="", capture_output=True, text=True)
    return probe.returncode == 0


def compile_set(source, defines, target, workdir):
    """Compiles to assembly and assembles it; returns (ok, assembly text, compiler output)."""
    asm = os.path.join(workdir, "fw-%s.s" % target)
    obj = os.path.join(workdir, "fw-%s.o" % target)
    # -nogpulib: no ROCm device library (Debian has none); libclc supplies the builtins.
    # libclc's bitcode says amdgcn-unknown-amdhsa, clang amdgcn-amd-amdhsa: the same target,
    # so that link warning is noise.
    common = ["-target", "amdgcn-amd-amdhsa", "-mcpu=" + target, "-nogpulib"]
    cmd = ([CLANG, "-x", "cl", "-cl-std=CL1.2"] + common +
           ["-Xclang", "-finclude-default-header", "-Xclang", "-mlink-builtin-bitcode",
            "-Xclang", LIBCLC, "-Wno-linker-warnings", "-O3", "-S", source, "-o", asm] +
           defines.split())
    run = subprocess.run(cmd, capture_output=True, text=True)
    log = run.stdout + run.stderr
    if run.returncode == 0:
        run = subprocess.run([CLANG] + common + ["-c", asm, "-o", obj], capture_output=True,
                             text=True)
        log += run.stdout + run.stderr
    if run.returncode != 0:
        return False, "", "$ " + " ".join(cmd) + "\n" + log
    with open(asm) as f:
        text = f.read()
    # Every builtin must have come from libclc: a call to a function the code object does not
    # define (how a missing builtin shows) would fail when the driver loads it.
    called = set(re.findall(r"([A-Za-z_.][A-Za-z_0-9.]*)@(?:rel32|gotpcrel)", text))
    defined = set(re.findall(r"^([A-Za-z_.][A-Za-z_0-9.]*):", text, re.M))
    if called - defined:
        return False, "", "undefined functions: %s\n%s" % (" ".join(sorted(called - defined)), log)
    return True, text, log


def parse_kernels(text, target):
    """Per kernel: the metadata's figures and LLVM's occupancy comment."""
    # The comments after each function's code: "; NumVgprs: N" and the like. (The metadata's
    # .vgpr_count is VGPRs and AGPRs together on gfx90a.)
    comments = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z_0-9]*):\s", line)
        if m:
            current = m.group(1)
        m = re.match(r"^\s*; (Occupancy|NumVgprs|NumAgprs): (\d+)", line)
        if m and current:
            comments.setdefault(current, {})[m.group(1)] = int(m.group(2))
    meta = text[text.index(".amdgpu_metadata"):text.index(".end_amdgpu_metadata")]
    kernels = []
    for block in re.split(r"\n  - ", meta.split("amdhsa.kernels:", 1)[1])[1:]:
        # Keys of the kernel itself are indented by 4; the arguments' by 8.
        fields = dict(re.findall(r"^    \.([a-z_]+):\s+(\S+)$", block, re.M))
        if "name" not in fields:
            continue  # amdhsa.version's list items, after the kernels
        reqd = re.search(r"^    \.reqd_workgroup_size:\s*\n((?:\s+- \d+\n?)+)", block, re.M)
        items = int(fields.get("max_flat_workgroup_size", 256))
        if reqd:
            items = 1
            for v in re.findall(r"\d+", reqd.group(1)):
                items *= int(v)
        name = fields["name"]
        said = comments.get(name, {})
        k = {
            "kernel": name,
            "vgpr": said.get("NumVgprs", int(fields.get("vgpr_count", 0))),
            "agpr": said.get("NumAgprs", 0),
            "sgpr": int(fields.get("sgpr_count", 0)),
            "vspill": int(fields.get("vgpr_spill_count", 0)),
            "sspill": int(fields.get("sgpr_spill_count", 0)),
            "scratch": int(fields.get("private_segment_fixed_size", 0)),
            "lds": int(fields.get("group_segment_fixed_size", 0)),
            "wave": int(fields.get("wavefront_size", 64)),
            "items": items,
            "occ_regs": said.get("Occupancy", 0),
        }
        # Local memory: work-groups per CU (WGP), their waves shared among its SIMDs.
        waves_per_group = -(-items // k["wave"])
        spec = TARGETS[target]
        if k["lds"]:
            groups = spec["lds"] // k["lds"]
            k["occ_lds"] = groups * waves_per_group / spec["simds"]
        else:
            k["occ_lds"] = float("inf")
        k["occ"] = min(k["occ_regs"], k["occ_lds"])
        kernels.append(k)
    return kernels


def fmt_occ(x):
    if x == float("inf"):
        return "-"
    return ("%.2f" % x).rstrip("0").rstrip(".")


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    markdown = "--markdown" in argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    tool, sources = args[0], args[1:]
    if not shutil.which(CLANG):
        skip_or_fail("%s not found (Debian: apt-get install clang-14)" % CLANG)
    if not os.path.exists(LIBCLC):
        skip_or_fail("%s not found (Debian: apt-get install libclc-14)" % LIBCLC)

    targets = []
    for t in TARGETS:
        if target_known(t):
            targets.append(t)
        else:
            print("note: %s does not know %s (%s); not checked" % (CLANG, t, TARGETS[t]["what"]))

    defines = {}
    for name, what, extra in SETS:
        run = subprocess.run([tool] + extra, capture_output=True, text=True)
        if run.returncode != 0:
            print("FAIL: parameter set %s (%s): %s" % (name, what, run.stderr.strip()))
            return 1
        defines[name] = run.stdout.strip()
        print("%-9s %s\n          %s" % (name, what, defines[name]))
    print()

    jobs = [(s[0], t) for s in SETS for t in targets]
    failed = []
    results = {}
    with tempfile.TemporaryDirectory(prefix="apsp-amd-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        source = os.path.join(tmp, "program.cl")
        with open(source, "w") as joined:
            for path in sources:
                with open(path) as part:
                    joined.write(part.read() + "\n")
        futures = {}
        for name, target in jobs:
            workdir = os.path.join(tmp, name)
            os.makedirs(workdir, exist_ok=True)
            futures[(name, target)] = pool.submit(compile_set, source, defines[name], target,
                                                  workdir)
        for key in jobs:
            ok, text, log = futures[key].result()
            if not ok:
                failed.append("compile error: set %s, %s:\n%s" % (key[0], key[1], log))
                continue
            results[key] = parse_kernels(text, key[1])

    head = ["set", "target", "kernel", "VGPR", "AGPR", "SGPR", "spills V/S", "scratch B",
            "LDS B", "items", "wave", "waves/SIMD regs", "waves/SIMD"]
    rows = []
    for key in jobs:
        for k in results.get(key, []):
            rows.append([key[0], key[1], k["kernel"], str(k["vgpr"]), str(k["agpr"]),
                         str(k["sgpr"]), "%d/%d" % (k["vspill"], k["sspill"]), str(k["scratch"]),
                         str(k["lds"]), str(k["items"]), str(k["wave"]), str(k["occ_regs"]),
                         fmt_occ(k["occ"])])
            if key in NO_SPILL and (k["vspill"] or k["sspill"] or k["scratch"]):
                failed.append("set %s on %s: %s spills or uses scratch (%d/%d spills, %d B), "
                              "which the AMD row's comment in src/opencl/params.c rules out"
                              % (key[0], key[1], k["kernel"], k["vspill"], k["sspill"],
                                 k["scratch"]))
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
                  for i, h in enumerate(head)]
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    print("\n(items: work-items per work-group, at most 256 for fw_pad, which has no required "
          "size; wave: wavefront size; waves/SIMD regs: LLVM's occupancy from registers; "
          "waves/SIMD: that and local memory, per SIMD)")
    for f in failed:
        print("FAIL: " + f)
    print("%d compiles (%d sets x %s), %d failures" % (len(jobs), len(SETS), ", ".join(targets),
                                                       len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
