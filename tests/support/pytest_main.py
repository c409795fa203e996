#!/usr/bin/env python3
"""Runs a test file under pytest with the tests' harness (tests/support/harness.py): what each
Python test's meson test() calls.

    python3 tests/support/pytest_main.py FILE [HARNESS OR PYTEST OPTION...]

The same as `python3 -m pytest -q -rs -p no:cacheprovider -p harness FILE ...` with
tests/support on the path, run by an interpreter that has pytest and the SciPy oracle: this one,
else Debian's /usr/bin/python3 (tools/setup.sh installs python3-pytest, -numpy and -scipy
there), as the python3 that meson finds first may be a pyenv or venv one without them. No
bytecode and no cache are written into the source tree."""
import importlib.util
import os
import sys

SUPPORT = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = "/usr/bin/python3"
WANTED = ("pytest", "numpy", "scipy")


def other_python():
    """SYSTEM_PYTHON when this interpreter lacks a WANTED module and that one is another."""
    if os.environ.get("APSP_TEST_PYTHON_REEXEC"):
        return None
    if all(importlib.util.find_spec(m) for m in WANTED):
        return None
    if not os.path.exists(SYSTEM_PYTHON):
        return None
    if os.path.realpath(sys.executable) == os.path.realpath(SYSTEM_PYTHON):
        return None
    return SYSTEM_PYTHON


def main(argv):
    python = other_python()
    if python:
        os.environ["APSP_TEST_PYTHON_REEXEC"] = "1"
        os.execv(python, [python, os.path.abspath(__file__)] + argv[1:])
    if importlib.util.find_spec("pytest") is None:
        print("FAIL: %s has no pytest (install python3-pytest: tools/setup.sh)" % sys.executable)
        return 1
    sys.dont_write_bytecode = True
    sys.path.insert(0, SUPPORT)
    import pytest

    return pytest.main(["-q", "-rs", "-p", "no:cacheprovider", "-p", "harness"] + argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
