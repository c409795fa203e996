"""SciPy's own tests of shortest_path, dijkstra, johnson and bellman_ford, run on apsp's.

The file is SciPy's installed scipy/sparse/csgraph/tests/test_shortest_path.py, read as text
with its one import of the four functions and construct_dist_matrix from scipy.sparse.csgraph
replaced by an import from apsp; NegativeCycleError and whatever newer SciPys test beside them
(yen) stay SciPy's: apsp raises a subclass of SciPy's NegativeCycleError, so the tests' checks
of apsp's functions hold, and those of SciPy's own functions that SciPy's raise. Its tests then run in this
module's namespace, so pytest collects them here. The replacement is checked: a SciPy whose
import line reads otherwise fails this file rather than testing SciPy against itself.
"""
import os
import re

import scipy.sparse.csgraph.tests as scipy_tests

SCIPY_FILE = os.path.join(scipy_tests.__path__[0], "test_shortest_path.py")
SCIPY_IMPORT = re.compile(r"from scipy\.sparse\.csgraph import \(([^)]*)\)", re.S)
OURS = {"shortest_path", "dijkstra", "johnson", "bellman_ford", "construct_dist_matrix"}


def _substituted(source):
    found = SCIPY_IMPORT.search(source)
    assert found, "%s: the import of the functions was not found" % SCIPY_FILE
    names = {name.strip() for name in found.group(1).split(",") if name.strip()}
    assert OURS <= names, "%s imports %s" % (SCIPY_FILE, sorted(names))
    theirs = sorted(names - OURS)
    replacement = "from apsp import %s\n" % ", ".join(sorted(OURS))
    if theirs:
        replacement += "from scipy.sparse.csgraph import %s\n" % ", ".join(theirs)
    return source[:found.start()] + replacement + source[found.end():]


with open(SCIPY_FILE) as _file:
    exec(compile(_substituted(_file.read()), SCIPY_FILE, "exec"))

import apsp  # noqa: E402 (after the exec, whose names it must not shadow)


def test_the_functions_are_apsps():
    assert shortest_path is apsp.shortest_path  # noqa: F821 (defined by the exec)
    assert dijkstra is apsp.dijkstra  # noqa: F821
    assert construct_dist_matrix is apsp.construct_dist_matrix  # noqa: F821
