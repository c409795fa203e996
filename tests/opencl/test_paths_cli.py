"""apsp --predecessors on an OpenCL device (PoCL here) against --backend=cpu: the same file byte
for byte, and -v / --stats-json saying where the derivation ran. The device derives when no
weight is negative and the zero-weight edges form no cycle (shapes random, dups, disconnected,
chain); the zeros shape (three weights in four are 0) has zero-weight cycles, so both derive on
the host.

usage: pytest_main.py test_paths_cli.py --apsp=APSP --exe gen-graph GEN_GRAPH
Skips when there is no OpenCL CPU device (unless APSP_TEST_REQUIRE_DEVICE=1)."""
import os
import re
import subprocess

import pytest
from harness import has_device, skip

ENV = dict(os.environ, APSP_KERNEL_CACHE="off")
# (shape, V, E): gen-graph's seed is the case's place in the list, from 1
CASES = [("random", 129, 1000), ("dups", 257, 2000), ("disconnected", 200, 900),
         ("chain", 65, 100), ("zeros", 150, 1200)]


def run(apsp, args):
    return subprocess.run([apsp] + args, env=ENV, capture_output=True, text=True)


@pytest.mark.parametrize("seed, shape, v, e", [(i,) + c for i, c in enumerate(CASES, 1)],
                         ids=[c[0] for c in CASES])
def test_predecessors(apsp_path, exe, work, check, seed, shape, v, e):
    apsp = apsp_path
    if not has_device(apsp, "cpu"):
        skip("no OpenCL device")
    graph = os.path.join(work, "g.in")
    subprocess.run([exe["gen-graph"], shape, str(v), str(e), str(seed), graph], check=True)
    files, stderr = {}, {}
    for name, where in (("cpu", ["--backend=cpu"]), ("opencl", ["-d", "cpu"])):
        pred = os.path.join(work, "pred-%s.npy" % name)
        out = os.path.join(work, "d.npy")
        p = run(apsp, ["-v", "--stats-json"] + where + ["--predecessors=" + pred, graph, out])
        if check(p.returncode == 0, "%s %s: exit %d: %s" % (shape, name, p.returncode, p.stderr)):
            files[name] = open(pred, "rb").read()
            stderr[name] = p.stderr
    if len(files) != 2:
        return
    check(files["cpu"] == files["opencl"],
          "%s V=%d: --predecessors differ between --backend=cpu and -d cpu" % (shape, v))
    device = shape != "zeros"
    expect = {"cpu": "host", "opencl": "device" if device else "host"}
    for name in files:
        line = re.search(r"predecessors derived in [0-9.]+ s on the (\w+)", stderr[name])
        flag = re.search(r'"predecessors_on_device":(true|false)', stderr[name])
        on_device = flag and flag.group(1) == "true"
        check(line and line.group(1) == expect[name] and on_device == (expect[name] == "device"),
              "%s %s: expected the derivation on the %s: %s" % (shape, name, expect[name],
                                                                stderr[name]))
