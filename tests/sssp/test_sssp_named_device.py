"""A device named on the command line is never swapped silently for the host threads
(src/solver/sources.c: check_declined, src/cli/sources.c: sources_say_declined), on PoCL's CPU
device (--backend=opencl -d cpu), whose batched Bellman-Ford takes every row type but no
negative fractional weight, and picks predecessors only where every weight is above 0:

- --method=bellman-ford with a negative fractional weight, or with --predecessors and a
  zero weight: refused, exit 2, one line naming the input and why, and no OUTPUT;
- auto with a negative fractional weight (auto takes the host's Johnson): the rows (equal to
  SciPy's) and one line on stderr saying what ran instead and why;
- --method=bellman-ford within the device's rule: it runs there (--stats-json's backend is
  opencl) and says nothing;
- no device named (--backend=cpu): nothing said.

    pytest_main.py test_sssp_named_device.py --apsp=APSP

Skips without an OpenCL CPU device or without NumPy and SciPy.
"""
import json
import os
import random
import subprocess

from test_sssp_scipy import grid_pairs, np, read_output, scipy_graph, shortest_path

DEVICE = ["--backend=opencl", "-d", "cpu"]


def write_graph(path, edges):
    with open(path, "w") as f:
        f.writelines("%d %d %s\n" % e for e in edges)


def run(apsp, args, graph, out):
    r = subprocess.run([apsp, "-q", "--stats-json"] + args + [graph, out], capture_output=True,
                       text=True)
    lines = r.stderr.strip().splitlines()
    stats = json.loads(lines.pop()) if r.returncode == 0 and lines else None
    # apsp's own lines (PoCL's compiler may add its warnings on a cold kernel cache)
    return r, stats, [line for line in lines if line.startswith("apsp: ")]


def test_named_device(apsp_path, device, work, check):
    apsp, expect = apsp_path, check
    rng = random.Random(7)
    v = 30 * 30
    small = [(u, t, rng.randint(1, 100)) for u, t in grid_pairs(rng, v)]
    wide = small + [(0, v - 1, 5000000000), (v - 1, 0, 5000000000)]  # past int32's rule
    signed = [(u, t, w + 0.5) for u, t, w in small] + [(1, 0, -1.25)]  # no negative cycle
    zero = small + [(0, v - 1, 0)]
    graphs = {}
    for name, edges in (("small", small), ("wide", wide), ("signed", signed), ("zero", zero)):
        graphs[name] = os.path.join(work, name + ".el")
        write_graph(graphs[name], edges)
    out, pred = os.path.join(work, "out.npy"), os.path.join(work, "pred.npy")
    sources = "0-9"

    for name, graph, more in (("negative fractions", graphs["signed"], []),
                              ("predecessors", graphs["zero"], ["--predecessors=" + pred])):
        r, _, lines = run(apsp, DEVICE + ["--method=bellman-ford", "--sources=" + sources]
                          + more, graph, out)
        expect(r.returncode == 2, "%s: bellman-ford on the named device: exit %d, not 2"
               % (name, r.returncode))
        expect(len(lines) == 1 and graph in lines[0] and "bellman-ford" in lines[0],
               "%s: the refusal is not one line naming the input: %r" % (name, lines))
        expect(not os.path.exists(out), "%s: OUTPUT written after a refusal" % name)

    r, stats, lines = run(apsp, DEVICE + ["--sources=" + sources], graphs["signed"], out)
    expect(r.returncode == 0, "auto, negative fractions: exit %d: %s" % (r.returncode,
                                                                         r.stderr))
    if r.returncode == 0:
        expect(len(lines) == 1 and "host threads instead of the device named" in lines[0]
               and "negative" in lines[0], "auto, negative fractions: no line: %r" % lines)
        expect(stats["backend"] == "cpu", "auto: backend %r" % stats["backend"])
        want = shortest_path(scipy_graph(v, signed), method="J", indices=list(range(10)))
        expect(np.allclose(read_output(out, "npy", 10, v), want, rtol=1e-12),
               "auto, negative fractions: rows differ from SciPy's")

    for name, graph in (("within int32", graphs["small"]), ("int64", graphs["wide"])):
        r, stats, lines = run(apsp, DEVICE + ["--method=bellman-ford", "--sources=" + sources,
                                              "--predecessors=" + pred], graph, out)
        expect(r.returncode == 0 and not lines and stats["backend"] == "opencl",
               "bellman-ford %s: not on the device, or said something: %d %r"
               % (name, r.returncode, r.stderr))

    r, stats, lines = run(apsp, ["--backend=cpu", "--method=bellman-ford",
                                 "--sources=" + sources], graphs["wide"], out)
    expect(r.returncode == 0 and not lines, "no device named: exit %d, said %r"
           % (r.returncode, lines))
