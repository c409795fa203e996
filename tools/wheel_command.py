#!python
"""The wheel's apsp command: runs the executable that auditwheel moved beside the package
(apsp.scripts/apsp, whose RPATH reaches the bundled OpenCL loader in apsp.libs/).
tools/build-wheel.sh puts this in place of auditwheel's own launcher, which looks in sysconfig's
platlib and so misses a `pip install --user`: this one asks the import system where the package
is, without importing it (and NumPy with it)."""
import importlib.util
import os
import sys

if __name__ == "__main__":
    package = importlib.util.find_spec("apsp")
    site = os.path.dirname(os.path.dirname(package.origin))
    os.execv(os.path.join(site, "apsp.scripts", "apsp"), sys.argv)
