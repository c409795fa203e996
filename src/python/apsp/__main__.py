"""python -m apsp: the apsp command, with its arguments (docs/usage.md).

It runs the command installed with the package: the binary wheel's, beside the package in
apsp.scripts/ (whose RPATH reaches the OpenCL loader the wheel bundles), else the one that
`pip install .` put in the interpreter's scripts folder, else the first `apsp` on PATH."""

import os
import shutil
import sys
import sysconfig


def command():
    """The path of the apsp command that belongs to this package, or None."""
    package = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        os.path.join(os.path.dirname(package), "apsp.scripts", "apsp"),
        os.path.join(sysconfig.get_path("scripts"), "apsp"),
        os.path.join(os.path.dirname(sys.executable), "apsp"),
    ]
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK) and _is_program(path):
            return path
    return shutil.which("apsp")


def _is_program(path):
    """Whether path is an executable file of machine code (the wheel's bin/apsp is a Python
    launcher that runs this package's command: it would do, but costs an interpreter)."""
    with open(path, "rb") as file:
        return file.read(4) == b"\x7fELF"


def main():
    path = command()
    if path is None:
        sys.stderr.write("python -m apsp: the apsp command is not installed beside the package "
                         "nor on PATH\n")
        return 2
    os.execv(path, ["apsp"] + sys.argv[1:])
    return 1  # (not reached: execv replaces the process or raises)


if __name__ == "__main__":
    sys.exit(main())
