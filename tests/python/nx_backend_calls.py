"""A pytest plugin for NetworkX's own tests run with NETWORKX_TEST_BACKEND=apsp and fallback on:
counts the calls of each function that reached apsp and those that fell back to NetworkX, and
fails the session where a function apsp implements fell back for any reason but a weight
function (apsp reads a weight attribute's name only: NetworkX's protocol then runs its own)."""

import collections
import logging

import pytest

REACHED = collections.Counter()
FELL_BACK = collections.Counter()


class _Calls(logging.Handler):
    def emit(self, record):
        if not record.msg.startswith(("Using backend", "Falling back", "Backend '")):
            return
        name = record.args[1] if record.msg.startswith(("Using", "Backend")) else record.args[2]
        if record.msg.startswith("Using backend"):
            REACHED[name] += 1
        elif "falling back" in record.msg.lower():
            FELL_BACK[name] += 1


def pytest_configure(config):
    logger = logging.getLogger("networkx")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_Calls())


def pytest_sessionfinish(session, exitstatus):
    from apsp.nx import FUNCTIONS

    reached = {n: c for n, c in REACHED.items() if n in FUNCTIONS}
    print(f"\napsp: {sum(reached.values())} calls of {len(reached)} functions reached apsp")
    for name in sorted(reached):
        print(f"  {name}: {reached[name]}" + (f", {FELL_BACK[name]} fell back"
                                               if FELL_BACK[name] else ""))
    stray = {n: c for n, c in FELL_BACK.items() if n in FUNCTIONS}
    if stray:
        print(f"apsp: functions apsp implements fell back: {stray}")
