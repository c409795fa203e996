"""Two runs writing one OUTPUT in place at once (python3 standard library only).

    pytest_main.py test_output_concurrent.py --apsp=APSP [--testcases=DIR] [--opt=pairs=N]

An OUTPUT with several hard links is written in place: the result goes to a temporary copy, which
is copied over the target at commit (fallocate, sendfile, ftruncate, fsync). Two runs committing
at once used to interleave those steps and leave a mixed file, both exiting 0 (issue 36.3). Now
the copy holds a lock on the target, so the file must be one whole result, either run's, or a
run must be refused with exit 4 and one line. Needs a build with -Dfault_injection=true
(APSP_FAULT_PAUSE, src/base/fault.h):

  - ordered: run A (testcases' v500-disconnected) stops at the point `copy`, its first bytes
    over the target; run B (v333-random, shorter) then commits, or waits for A's lock (seen in
    /proc/locks); A goes on. Before the lock: B's bytes, then zeros up to A's length, exit 0
    twice;
  - free-running: N pairs (default 50) started together, v500-disconnected and the same graph
    with every weight doubled (the same length and time, so their commits meet; its distances
    are the oracle's doubled);
  - as root, where no temporary copy can be made anywhere (a 0555 directory as uid 65534, /tmp
    read-only in a private mount namespace): the target is written directly, under the lock for
    the whole run, and a second run is refused with exit 4 while the first holds it.

Each test names what it tried and, when it fails, what it found. Skips without fault injection.
"""
import os
import signal
import struct
import subprocess
import tempfile
import time

import pytest
from files import read, write

TIMEOUT = 120
NOBODY = 65534
INF32 = 1073741823
OLD = b"the old output\n"
BIG, SMALL = "v500-disconnected", "v333-random"




def doubled_graph(hw3):
    """An hw3 graph with every weight doubled."""
    v, e = struct.unpack_from("<ii", hw3)
    edges = list(struct.unpack_from("<%di" % (3 * e), hw3, 8))
    edges[2::3] = [2 * w for w in edges[2::3]]
    return struct.pack("<ii%di" % (3 * e), v, e, *edges)


def doubled_distances(out):
    """The distances of doubled_graph: every reachable one doubled."""
    cells = struct.unpack("<%di" % (len(out) // 4), out)
    return struct.pack("<%di" % len(cells), *(c if c == INF32 else 2 * c for c in cells))


def what_is(content, wants):
    """Which of the expected outputs `content` is, for the report."""
    for name, want in wants.items():
        if content == want:
            return name
    return "MIXED (%d bytes, %d zero)" % (len(content), content.count(0))


def hard_linked(directory):
    """OUTPUT with the old bytes and a second name: written in place."""
    out = os.path.join(directory, "out.bin")
    write(out, OLD, 0o644)
    os.link(out, os.path.join(directory, "other.bin"))
    return out


def waiting_for_lock(path):
    """Whether some process waits for a lock on `path` (a '->' line of /proc/locks)."""
    st = os.stat(path)
    key = " %02x:%02x:%d " % (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    with open("/proc/locks") as f:
        return any("->" in line and key in line for line in f)


def start(apsp, graph, out, pause=None):
    env = dict(os.environ)
    env.pop("APSP_FAULT_PAUSE", None)
    if pause:
        env["APSP_FAULT_PAUSE"] = pause
    return subprocess.Popen([apsp, "--backend=cpu", "--threads=1", graph, out],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)


def finish(proc):
    """(exit code, stderr lines without the in-place warning)."""
    err = proc.communicate(timeout=TIMEOUT)[1].decode(errors="replace").splitlines()
    return proc.returncode, [l for l in err if "written in place, not replaced" not in l]


def whole_or_refused(results, content, wants):
    """Every run exit 0, or exit 4 with one line; the file one whole run's output, and a
    run's that exited 0."""
    ok_runs = [name for name, (code, lines) in results.items() if code == 0 and not lines]
    refused = [name for name, (code, lines) in results.items() if code == 4 and len(lines) == 1]
    return (len(ok_runs) + len(refused) == len(results) and ok_runs
            and what_is(content, wants) in ok_runs)


@pytest.fixture(scope="module")
def graphs(apsp_path, testcases):
    """(apsp, the big graph, the small one, the right outputs by name); skipped where apsp has no
    fault injection."""
    probe = subprocess.run([apsp_path, "--backend=cpu", os.path.join(testcases, "example.in"),
                            "/dev/null"], capture_output=True, timeout=TIMEOUT,
                           env=dict(os.environ, APSP_FAULT_COUNT="1"))
    if b"apsp-fault:" not in probe.stderr:
        pytest.skip("this apsp has no fault injection (-Dfault_injection=true): "
                    "APSP_FAULT_PAUSE does nothing")
    big, small = (os.path.join(testcases, n + ".in") for n in (BIG, SMALL))
    want_big = read(os.path.join(testcases, BIG + ".out"))
    wants = {BIG: want_big, SMALL: read(os.path.join(testcases, SMALL + ".out")),
             "doubled": doubled_distances(want_big)}
    return apsp_path, big, small, wants


def test_ordered(graphs, work):
    """A stopped inside its copy; B commits meanwhile (or waits for A's lock); A goes on."""
    apsp, big, small, wants = graphs
    d = tempfile.mkdtemp(prefix="ordered-", dir=work)
    out = hard_linked(d)
    a = start(apsp, big, out, "copy")
    _, status = os.waitpid(a.pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        a.returncode = os.waitstatus_to_exitcode(status)
        pytest.fail("A stopped inside its in-place copy: A ended first: exit %s, %r"
                    % (a.returncode, a.stderr.read()[:300]), pytrace=False)
    b = start(apsp, small, out)
    deadline = time.monotonic() + TIMEOUT
    while b.poll() is None and not waiting_for_lock(out) and time.monotonic() < deadline:
        time.sleep(0.01)
    b_waited = b.poll() is None
    os.kill(a.pid, signal.SIGCONT)
    results = {BIG: finish(a), SMALL: finish(b)}
    content = read(out)
    same = read(os.path.join(d, "other.bin")) == content
    assert whole_or_refused(results, content, wants) and same, (
        "A stopped inside its in-place copy, B commits the same hard-linked OUTPUT: one whole "
        "output, either run's, or a refusal: B %s; A %s, B %s; OUTPUT %s%s" % (
            "waited for A's lock" if b_waited else "did not wait", results[BIG],
            results[SMALL], what_is(content, wants), "" if same else ", the names DIFFER"))


def test_pairs(graphs, work, opt, check):
    """Pairs of runs (--opt=pairs=N, default 50) started together on one hard-linked OUTPUT:
    each time one whole output."""
    apsp, big, _, wants = graphs
    doubled = os.path.join(work, "doubled.in")
    write(doubled, doubled_graph(read(big)), 0o644)
    d = tempfile.mkdtemp(prefix="pairs-", dir=work)
    out = hard_linked(d)
    t0 = time.monotonic()
    for i in range(int(opt.get("pairs", "50"))):
        procs = {BIG: start(apsp, big, out), "doubled": start(apsp, doubled, out)}
        results = {name: finish(p) for name, p in procs.items()}
        content = read(out)
        check(whole_or_refused(results, content, wants),
              "pair %d: %s, OUTPUT %s" % (i, results, what_is(content, wants)))
    print("%.1f s" % (time.monotonic() - t0))


def test_direct(graphs, work):
    """No temporary copy anywhere: the target written directly, a second writer refused."""
    apsp, big, small, wants = graphs
    want = wants[BIG]
    if os.geteuid() != 0:
        pytest.skip("written directly: a second writer refused: needs root")
    d = tempfile.mkdtemp(prefix="direct-", dir=work)
    out = os.path.join(d, "out.bin")
    write(out, OLD, 0o666)
    os.chmod(d, 0o555)
    script = """
        mount --bind "$4" "$4" && mount --rbind /tmp /tmp && mount -o remount,bind,ro /tmp \
            || exit 97
        user="setpriv --reuid=%d --regid=%d --clear-groups"
        APSP_FAULT_PAUSE=commit $user "$1" --backend=cpu "$2" "$5" 2>/dev/null &
        a=$!
        while [ -e /proc/$a ] && [ "$(cut -d' ' -f3 /proc/$a/stat)" != T ]; do sleep 0.01; done
        b_err=$($user "$1" --backend=cpu "$3" "$5" 2>&1 >/dev/null)
        echo "B $?"
        printf '%%s\n' "$b_err" | grep -v "written in place, not replaced" | sed 's/^/B: /'
        kill -CONT $a
        wait $a
        echo "A $?"
    """ % (NOBODY, NOBODY)
    try:
        p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                            apsp, big, small, d, out], capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip("written directly: a second writer refused: %s" % e)
    finally:
        os.chmod(d, 0o755)
    if p.returncode == 97:
        pytest.skip("written directly: a second writer refused: needs unshare -m")
    lines = p.stdout.decode(errors="replace").splitlines()
    b = [l[3:] for l in lines if l.startswith("B: ")]
    content = read(out)
    ok = (lines[-1:] == ["A 0"] and "B 4" in lines and len(b) == 1 and b[0].startswith("apsp: ")
          and "another process" in b[0] and content == want)
    assert ok, (
        "no temporary copy anywhere (a 0555 directory, /tmp read-only): A writes OUTPUT directly "
        "and holds its lock; B is refused with exit 4 and one line, A's output whole: %r, OUTPUT "
        "%s" % (lines, "A's" if content == want else "NOT A's (%d bytes)" % len(content)))

