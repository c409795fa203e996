"""Fault injection over a test program of the library's API (test_faults.py walks the apsp
command): every place that allocates or calls OpenCL in `PROGRAM --faults ARGS` is made to fail
in turn, at its first three calls and its last (tests/support/fault_walk.py). The program takes a failed call as the library's answer (and says "fault: ..." on
stderr) but checks every call that succeeds, so it must exit 0 each time: no crash, no wrong
result after a failure (tests/api/test_solver_matrix.c: a failed solve on kept device buffers, then
good ones), and under AddressSanitizer no leak.

usage: pytest_main.py test_faults_api.py --exe program PROGRAM [--opt="args=ARG ..."]
"""
import os
import shlex
import subprocess

import pytest
from fault_walk import totals, walk_specs
from harness import EXIT_SKIPPED


def run(args, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run(args, capture_output=True, env=env, timeout=120)


def test_every_fault(exe, opt, check):
    args = [exe["program"]] + shlex.split(opt.get("args", "")) + ["--faults"]
    clean = run(args, {"APSP_FAULT_COUNT": "1"})
    if clean.returncode == EXIT_SKIPPED:
        pytest.skip(clean.stdout.decode())
    assert clean.returncode == 0 and totals(clean.stderr), (
        f"the clean run failed or this build has no fault injection:\n{clean.stderr.decode()}")
    specs = walk_specs(clean.stderr, ("alloc", "cl"))
    for where in specs:
        r = run(args, {"APSP_FAULT": where})
        faults = [line for line in r.stderr.decode(errors="replace").splitlines()
                  if line.startswith("fault: ")]
        print(f"{where}: exit {r.returncode}: {faults[0] if faults else 'survived'}")
        check(r.returncode == 0, f"{where}: exit {r.returncode}:\n{r.stderr.decode()[-2000:]}")
    print(f"{len(specs)} faults injected, of {totals(clean.stderr)} calls")
