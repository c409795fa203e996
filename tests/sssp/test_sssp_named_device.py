"""A device named on the command line is never swapped silently for the host threads
(src/solver/sources.c: check_declined, src/cli/sources.c: sources_say_declined), on PoCL's CPU
device (--backend=opencl -d cpu), whose batched Bellman-Ford takes every row type but no
negative fractional weight, and picks predecessors only where every weight is above 0:

- --method=bellman-ford with a negative fractional weight, or with --predecessors and a
  zero weight: refused, exit 2, one line naming the input and why, and no OUTPUT;
- auto with a negative fractional weight and --predecessors (auto takes the host's Johnson:
  the device's Johnson picks no predecessors where a weight is negative): the rows (equal to
  SciPy's) and one line on stderr saying what ran instead and why;
- --method=johnson with a negative weight and --predecessors: refused as bellman-ford is;
  without --predecessors it runs on the device and says nothing;
- --method=dijkstra (a host method only): it runs, and one line says so;
- --method=bellman-ford with --predecessors on a float32 graph whose sum absorbs an edge (the
  device picks no predecessor there, and hands the batch to the host threads): one line says
  that the last sources ran on the host threads;
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

    for name, graph, method, more in (
            ("negative fractions", graphs["signed"], "bellman-ford", []),
            ("predecessors", graphs["zero"], "bellman-ford", ["--predecessors=" + pred]),
            ("johnson, predecessors", graphs["signed"], "johnson", ["--predecessors=" + pred])):
        r, _, lines = run(apsp, DEVICE + ["--method=" + method, "--sources=" + sources] + more,
                          graph, out)
        expect(r.returncode == 2, "%s: %s on the named device: exit %d, not 2"
               % (name, method, r.returncode))
        expect(len(lines) == 1 and graph in lines[0] and "--method=" + method in lines[0],
               "%s: the refusal is not one line naming the input: %r" % (name, lines))
        expect(not os.path.exists(out), "%s: OUTPUT written after a refusal" % name)

    r, stats, lines = run(apsp, DEVICE + ["--method=johnson", "--sources=" + sources],
                          graphs["signed"], out)
    expect(r.returncode == 0 and not lines and stats["backend"] == "opencl",
           "johnson, negative fractions: not on the device, or said something: %d %r"
           % (r.returncode, r.stderr))
    r, stats, lines = run(apsp, DEVICE + ["--method=dijkstra", "--sources=" + sources],
                          graphs["small"], out)
    expect(r.returncode == 0 and len(lines) == 1 and "dijkstra" in lines[0]
           and "host threads" in lines[0], "dijkstra with a device named: %d %r"
           % (r.returncode, lines))

    # 1 + 2^-30 rounds to 1 in float32: vertex 2 has no in-edge the device can pick
    absorbed = os.path.join(work, "absorbed.el")
    write_graph(absorbed, [(0, 1, 1.0), (1, 2, 2.0 ** -30), (0, 3, 0.5), (3, 2, 0.75)])
    r, stats, lines = run(apsp, DEVICE + ["--method=bellman-ford", "--sources=0",
                                          "--dtype=float32", "--predecessors=" + pred],
                          absorbed, out)
    expect(r.returncode == 0 and len(lines) == 1 and "the last 1 of 1 sources ran on the "
           "host threads" in lines[0], "absorbed predecessors: %d %r" % (r.returncode, lines))

    r, stats, lines = run(apsp, DEVICE + ["--sources=" + sources, "--predecessors=" + pred],
                          graphs["signed"], out)
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
