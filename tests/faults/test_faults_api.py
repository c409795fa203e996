"""Fault injection over a test program of the library's API (test_faults.py walks the apsp
command): every allocation and OpenCL call that `PROGRAM --faults ARGS` reaches is made to fail
in turn. The program takes a failed call as the library's answer (and says "fault: ..." on
stderr) but checks every call that succeeds, so it must exit 0 each time: no crash, no wrong
result after a failure (tests/api/test_solver_matrix.c: a failed solve on kept device buffers, then
good ones), and under AddressSanitizer no leak.

usage: pytest_main.py test_faults_api.py --exe program PROGRAM [--opt="args=ARG ..."]
"""
import os
import re
import shlex
import subprocess

import pytest
from harness import EXIT_SKIPPED


def run(args, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run(args, capture_output=True, env=env, timeout=120)


def test_every_fault(exe, opt, check):
    args = [exe["program"]] + shlex.split(opt.get("args", "")) + ["--faults"]
    clean = run(args, {"APSP_FAULT_COUNT": "1"})
    if clean.returncode == EXIT_SKIPPED:
        pytest.skip(clean.stdout.decode())
    m = re.search(rb"apsp-fault: alloc=(\d+) cl=(\d+) io=(\d+)", clean.stderr)
    assert clean.returncode == 0 and m, (
        f"the clean run failed or this build has no fault injection:\n{clean.stderr.decode()}")
    counts = {"alloc": int(m.group(1)), "cl": int(m.group(2))}
    for kind, count in counts.items():
        for n in range(1, count + 1):
            r = run(args, {"APSP_FAULT": f"{kind}:{n}"})
            faults = [line for line in r.stderr.decode(errors="replace").splitlines()
                      if line.startswith("fault: ")]
            print(f"{kind}:{n}: exit {r.returncode}: {faults[0] if faults else 'survived'}")
            check(r.returncode == 0,
                  f"{kind}:{n}: exit {r.returncode}:\n{r.stderr.decode()[-2000:]}")
    print(f"{sum(counts.values())} sites walked ({counts})")
