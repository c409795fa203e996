"""Which calls a fault-injection test makes fail, one run each (src/base/fault.h).

A clean run with APSP_FAULT_COUNT=1 lists, at its exit, how many calls of each kind it made and
every place in the source (file:line) that made them, with its number of calls:
    apsp-fault: alloc=A cl=C io=I
    apsp-fault: site KIND CALLS FILE:LINE
`walk_specs` turns that listing into the APSP_FAULT values to run: every site's first three calls
and its last (KIND@FILE:LINE#K). A site's first call fails with nothing of the loop around it
done, the second and third with earlier rounds' resources to release, the last at the loop's
end; the calls between take the same path with more of the same behind them. The walk is 5 to 20
times shorter than one run per call (a streamed solve's 462 OpenCL calls come from 13 sites),
and the site, not the call's place in the run, names the fault, whatever order the threads make
their calls in. APSP_TEST_FAULT_WALK=every walks every call of each kind in turn (KIND:N) instead.
"""
import os
import re

TOTALS = re.compile(r"apsp-fault: alloc=(\d+) cl=(\d+) io=(\d+)")
SITE = re.compile(r"^apsp-fault: site (\w+) (\d+) (\S+)$", re.M)
KINDS = ("alloc", "cl", "io")
FIRST_CALLS = 3


def totals(stderr):
    """{kind: calls} of the first totals line, or None when there is none (no fault injection)."""
    m = TOTALS.search(decode(stderr))
    return dict(zip(KINDS, map(int, m.groups()))) if m else None


def walk_specs(stderr, kinds=KINDS, besides=None):
    """The APSP_FAULT values to run, in the order the clean run first met their sites. Several
    processes' listings (MPI's ranks) merge: a site's calls are the most any of them made.
    `besides`: another run's listing, whose own faults are left out (walked already)."""
    if besides is not None:
        walked = set(walk_specs(besides, kinds))
        return [spec for spec in walk_specs(stderr, kinds) if spec not in walked]
    text = decode(stderr)
    if os.environ.get("APSP_TEST_FAULT_WALK") == "every":
        counts = {}
        for m in TOTALS.finditer(text):
            for kind, n in zip(KINDS, map(int, m.groups())):
                counts[kind] = max(counts.get(kind, 0), n)
        return [f"{kind}:{n}" for kind in kinds for n in range(1, counts.get(kind, 0) + 1)]
    calls = {}
    for kind, n, site in SITE.findall(text):
        calls[(kind, site)] = max(calls.get((kind, site), 0), int(n))
    return [f"{kind}@{site}#{k}" for kind in kinds for (of, site), n in calls.items() if of == kind
            for k in sorted(set(range(1, min(n, FIRST_CALLS) + 1)) | {n})]


def without_listing(lines):
    """The lines of a run's stderr that are not fault injection's own."""
    return [line for line in lines if not line.startswith("apsp-fault:")]


def decode(stderr):
    return stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
