"""apsp --predecessors on an OpenCL device (PoCL here) against --backend=cpu: the same file byte
for byte, and -v / --stats-json saying where the derivation ran. The device derives when no
weight is negative and the zero-weight edges form no cycle (shapes random, dups, disconnected,
chain); the zeros shape (three weights in four are 0) has zero-weight cycles, so both derive on
the host.

usage: test_paths_cli.py APSP GEN_GRAPH
Exits 77 when there is no OpenCL device (unless APSP_TEST_REQUIRE_DEVICE=1)."""
import os
import re
import subprocess
import sys
import tempfile

apsp, gen_graph = sys.argv[1], sys.argv[2]
env = dict(os.environ, APSP_KERNEL_CACHE="off")
failures = 0


def run(args):
    return subprocess.run([apsp] + args, env=env, capture_output=True, text=True)


if "[cpu] (opencl backend)" not in run(["--list-devices"]).stdout:
    print("no OpenCL device")
    sys.exit(1 if os.environ.get("APSP_TEST_REQUIRE_DEVICE") == "1" else 77)

with tempfile.TemporaryDirectory() as tmp:
    cases = [("random", 129, 1000), ("dups", 257, 2000), ("disconnected", 200, 900),
             ("chain", 65, 100), ("zeros", 150, 1200)]
    for seed, (shape, v, e) in enumerate(cases, 1):
        graph = os.path.join(tmp, "g.in")
        subprocess.run([gen_graph, shape, str(v), str(e), str(seed), graph], check=True)
        files, stderr = {}, {}
        for name, where in (("cpu", ["--backend=cpu"]), ("opencl", ["-d", "cpu"])):
            pred = os.path.join(tmp, "pred-%s.npy" % name)
            out = os.path.join(tmp, "d.npy")
            p = run(["-v", "--stats-json"] + where + ["--predecessors=" + pred, graph, out])
            if p.returncode != 0:
                print("%s %s: exit %d: %s" % (shape, name, p.returncode, p.stderr))
                failures += 1
                continue
            files[name] = open(pred, "rb").read()
            stderr[name] = p.stderr
        if len(files) != 2:
            continue
        if files["cpu"] != files["opencl"]:
            print("%s V=%d: --predecessors differ between --backend=cpu and -d cpu" % (shape, v))
            failures += 1
        device = shape != "zeros"
        expect = {"cpu": "host", "opencl": "device" if device else "host"}
        for name in files:
            line = re.search(r"predecessors derived in [0-9.]+ s on the (\w+)", stderr[name])
            flag = re.search(r'"predecessors_on_device":(true|false)', stderr[name])
            on_device = flag and flag.group(1) == "true"
            if not line or line.group(1) != expect[name] or on_device != (expect[name] == "device"):
                print("%s %s: expected the derivation on the %s: %s"
                      % (shape, name, expect[name], stderr[name]))
                failures += 1

print("test_paths_cli: %d failures" % failures)
sys.exit(1 if failures else 0)
