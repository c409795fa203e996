"""One line per check, ok, FAIL or SKIP, and the tally that ends the run (python3 standard
library only). Shared by the scripts that print every check they make, passed or not:
tests/cli/test_output.py and tests/faults/test_output_hostile.py.

    sys.path.insert(0, ...tests/support); from outcomes import report, summary
    report("what was checked", ok, "detail")   # ok: True, False, or None (cannot run here)
    return summary()                           # the exit status: 1 if any check failed
"""

failures = []
counts = {"ok": 0, "FAIL": 0, "SKIP": 0}


def report(what, ok, detail=""):
    """ok: True, False, or None for a check that cannot run here. Returns ok."""
    word = "SKIP" if ok is None else "ok" if ok else "FAIL"
    counts[word] += 1
    if ok is False:
        failures.append(what)
    print("%s: %s%s" % (word, what, " (%s)" % detail if detail else ""), flush=True)
    return ok


def summary():
    """Prints the tally and each failure again; the exit status, 1 if a check failed."""
    print("%d ok, %d failed, %d skipped" % (counts["ok"], counts["FAIL"], counts["SKIP"]))
    for what in failures:
        print("FAIL: " + what)
    return 1 if failures else 0
