"""What a test script does when this interpreter lacks the SciPy oracle (NumPy, SciPy and, for
some, NetworkX), shared by the scripts that compare apsp with them: run the script again under
Debian's python3, whose packages tools/setup.sh installs, when that is another interpreter;
else skip (exit 77), or fail where APSP_TEST_REQUIRE_DEVICE=1 (CI: every skip is a failure).

    try:
        import numpy as np ...
    except ImportError as error:
        need_scipy.missing(error, "python3-numpy python3-scipy")
"""
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


def missing(error, packages):
    """Never returns: re-executes the script under SYSTEM_PYTHON once, else skips or fails."""
    if (os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON)
            and not os.environ.get("APSP_TEST_SCIPY_REEXEC")):
        os.environ["APSP_TEST_SCIPY_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    if os.environ.get("APSP_TEST_REQUIRE_DEVICE") == "1":
        sys.exit("FAIL: %s (install %s)" % (error, packages))
    print("SKIP: %s (install %s)" % (error, packages))
    sys.exit(77)
