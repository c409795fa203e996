"""The output file against other processes, deterministically (python3 standard library only).

    pytest_main.py test_output_hostile.py --apsp=APSP [--testcases=DIR]

Needs a build with -Dfault_injection=true: APSP_FAULT_PAUSE=POINT stops apsp (SIGSTOP) at a
named point of its writing (src/base/fault.h), the test does what another process could do at
that moment, then sends SIGCONT. No race, no timing:

  - the temporary file truncated through /proc/PID/fd/N (which this user or root may open):
    before the first rows go into a shared mapping of it (tmpfs), inside the copy by stores
    into that mapping (its first row in, the SIGBUS of the next recovered as an error), after
    the first rows of a positioned write (the later rows grow it back around a hole), just before the commit. The
    run must end with exit 4 and one line, OUTPUT must still be the old file byte for byte, and
    no temporary file may be left (issue 24.2; before: death by SIGBUS with no message, and
    exit 0 with a short or hollow OUTPUT);
  - as root, with a second and a third user (uids 2001, 2002): in a sticky directory of the
    first, the first replaces the second's OUTPUT by a link to one of the second's files while
    the second's run computes, so that the rename at the commit is refused (EPERM); the file the
    link names must not be written (issue 25.3; before: overwritten, exit 0). And the first
    renames the directory away and puts a link to the second's home in its place: the output
    must still go to the directory named at the start, nothing to the home.

Each test names what it tried and, when it fails, what it found.
"""
import os
import signal
import struct
import subprocess
import tempfile

import pytest
from files import read, temp_fd, write

TIMEOUT = 300
ATTACKER, VICTIM = 2001, 2002
CASE = "v500-disconnected"  # 500 vertices: 1 MB of int32, 2 MB of int64, several writes
INF32, INF64 = 1073741823, 4611686018427387903
OLD = b"the old output, which a failed run must keep\n"


def as_user(uid):
    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return drop


def attacker(*argv):
    """Runs a command as the attacker, an ordinary user without privileges."""
    return subprocess.run(["setpriv", "--reuid=%d" % ATTACKER, "--regid=%d" % ATTACKER,
                           "--clear-groups"] + list(argv), capture_output=True, timeout=TIMEOUT)


def paused_run(cmd, point, act, **kw):
    """Runs cmd until it stops at `point`, calls act(pid), lets it go on. Returns (paused,
    exit code, stderr lines, what act returned)."""
    env = dict(os.environ, APSP_FAULT_PAUSE=point)
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, **kw)
    _, status = os.waitpid(proc.pid, os.WUNTRACED)
    acted = None
    if os.WIFSTOPPED(status):
        try:
            acted = act(proc.pid)
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        err = proc.stderr.read()
        proc.wait(timeout=TIMEOUT)
        code = proc.returncode
    else:  # it ended without reaching the point, and os.waitpid has reaped it
        err = proc.stderr.read()
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code
    proc.stderr.close()
    return os.WIFSTOPPED(status), code, err.decode(errors="replace").splitlines(), acted


def int64_npy(hw3):
    """The .npy that --dtype=int64 writes, from the oracle's hw3 bytes (testcases/*.out)."""
    cells = struct.unpack("<%di" % (len(hw3) // 4), hw3)
    v = int(round(len(cells) ** 0.5))
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d, %d), }" % (v, v)
    header += " " * (127 - 10 - len(header)) + "\n"
    body = struct.pack("<%dq" % len(cells), *(INF64 if c == INF32 else c for c in cells))
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body


@pytest.fixture
def shm():
    """A directory on tmpfs, where the output is written through a mapping (fallocate reserves
    its room on a local file system); None where there is none."""
    try:
        d = tempfile.TemporaryDirectory(prefix="apsp-test-hostile-", dir="/dev/shm")
    except OSError:
        yield None
        return
    with d:
        yield d.name


@pytest.fixture(scope="module")
def inputs(apsp_path, testcases):
    """(apsp, the input, its hw3 output); a failure where apsp has no fault injection."""
    inp = os.path.join(testcases, CASE + ".in")
    probe = subprocess.run([apsp_path, "--backend=cpu", inp, "/dev/null"], capture_output=True,
                           env=dict(os.environ, APSP_FAULT_COUNT="1"), timeout=TIMEOUT)
    assert b"apsp-fault:" in probe.stderr, (
        "this apsp has no fault injection (-Dfault_injection=true): APSP_FAULT_PAUSE does nothing")
    return apsp_path, inp, read(os.path.join(testcases, CASE + ".out"))


# Issue 24.2: another process truncates the temporary file while apsp writes it:
# (what, on tmpfs, OUTPUT's name, extra arguments, pause point, new length (None: half), .npy)
TRUNCATIONS = [
    ("the mapped writer (tmpfs), truncated to 0 before the first rows", "shm", "out.bin", [],
     "first-rows", 0, False),
    # (inside the copy by stores, which the command's SIGBUS handler recovers: the next row's
    # store faults, the copy fails with EFAULT; never reached by a process_vm_writev copy, so a
    # pass also says that the stores ran)
    ("the mapped writer's stores (tmpfs), truncated to 0 after the first row went in", "shm",
     "out.bin", [], "stores-begun", 0, False),
    # (--path: the whole matrix written after the solve, which int64 rows alone no longer
    # take: they go through the row writer as int32 rows do)
    ("the positioned writer (--dtype=int64 --path .npy), truncated to 0 after the first rows",
     "shm or work", "out.npy", ["--dtype=int64", "--path=0,1"], "rows-begun", 0, True),
    ("truncated to half its length just before the commit", "work", "out.bin", [], "commit",
     None, False),
]


@pytest.mark.parametrize("what, where, name, extra, point, length, npy", TRUNCATIONS,
                         ids=[t[4] for t in TRUNCATIONS])
def test_truncated(inputs, work, shm, what, where, name, extra, point, length, npy):
    apsp, inp, want_hw3 = inputs
    want = int64_npy(want_hw3) if npy else want_hw3
    length = len(want_hw3) // 2 if length is None else length
    directory = {"shm": shm, "shm or work": shm or work, "work": work}[where]
    if directory is None:
        pytest.skip("no /dev/shm")
    d = tempfile.mkdtemp(prefix="t-", dir=directory)
    out = os.path.join(d, name)
    write(out, OLD)

    def truncate(pid):
        fd = temp_fd(pid, d)
        if fd:
            os.truncate(fd, length)
        return fd

    paused, code, lines, fd = paused_run(
        [apsp, "--backend=cpu", "--threads=2"] + extra + [inp, out], point, truncate)
    content = read(out)
    left = sorted(os.listdir(d))
    whole_or_old = content == OLD or content == want
    ok = (paused and fd is not None and code == 4 and len(lines) == 1
          and lines[0].startswith("apsp: ") and "truncated" in lines[0] and content == OLD
          and left == [name])
    assert whole_or_old, "%s: OUTPUT is neither the old file nor the whole new one" % what
    assert ok, "%s: exit 4, one line, OUTPUT the old file, no temporary file: %s" % (
        what, "paused %s, fd %s, exit %s, %r, OUTPUT %s, left %s" % (
            paused, fd, code, lines[:3],
            "old" if content == OLD else "new" if content == want else
            "NEITHER old nor new (%d bytes)" % len(content), left))


@pytest.fixture
def sticky(inputs, work):
    """(apsp, the victim's home, precious file and input, the right output); skipped but as
    root, which the other users need."""
    if os.geteuid() != 0:
        pytest.skip("another user swaps a link or a directory in: needs root")
    apsp, inp, want = inputs
    return (apsp,) + sticky_setup(work, inp) + (want,)


def sticky_setup(work, inp):
    """The victim's home with a precious file, and a copy of the input the victim may read."""
    home = os.path.join(work, "victim")
    os.mkdir(home, 0o755)
    precious = os.path.join(home, "precious.txt")
    write(precious, b"the victim's precious file\n")
    graph = os.path.join(home, "graph.in")
    write(graph, read(inp))
    for path in (home, precious, graph):
        os.chown(path, VICTIM, VICTIM)
    return home, precious, graph


def test_link_swapped(sticky, work):
    """Issue 25.3: a link swapped in for OUTPUT in a sticky directory of the attacker."""
    apsp, home, precious, graph, want = sticky
    shared = os.path.join(work, "shared")
    os.mkdir(shared)
    os.chown(shared, ATTACKER, ATTACKER)
    os.chmod(shared, 0o1777)
    out = os.path.join(shared, "out.bin")
    write(out, OLD)
    os.chown(out, VICTIM, VICTIM)  # the victim's own output of an earlier run

    def swap(pid):
        return attacker("sh", "-c", 'rm -f "$1" && ln -s "$2" "$1"', "sh", out, precious)

    paused, code, lines, swapped = paused_run([apsp, "--backend=cpu", graph, out], "commit",
                                              swap, preexec_fn=as_user(VICTIM))
    kept = read(precious) == b"the victim's precious file\n"
    temps = [n for n in os.listdir(shared) if ".apsp-" in n]
    ok = (paused and swapped.returncode == 0 and kept and code == 4 and len(lines) == 1
          and "no longer the file" in lines[0] and os.path.islink(out) and temps == [])
    assert ok, (
        "the attacker swaps a link to the victim's file in for OUTPUT in the attacker's sticky "
        "directory: the rename is refused and nothing is written through the link: "
        "paused %s, swap %r, precious %s, exit %s, %r, temporary files %s" % (
            paused, swapped.stderr, "kept" if kept else
            "OVERWRITTEN" if read(precious) == want else "changed", code, lines[:3], temps))


def test_directory_swapped(sticky, work):
    """The attacker renames OUTPUT's directory away and links the victim's home in its place."""
    apsp, home, precious, graph, want = sticky
    theirs = os.path.join(work, "attacker")
    os.mkdir(theirs)
    os.chown(theirs, ATTACKER, ATTACKER)
    d = os.path.join(theirs, "d")
    os.mkdir(d)
    os.chown(d, ATTACKER, ATTACKER)
    os.chmod(d, 0o1777)
    out = os.path.join(d, "out.bin")

    def swap(pid):
        return attacker("sh", "-c", 'mv "$1" "$1.old" && ln -s "$2" "$1"', "sh", d, home)

    paused, code, lines, swapped = paused_run([apsp, "--backend=cpu", graph, out], "commit",
                                              swap, preexec_fn=as_user(VICTIM))
    moved = os.path.join(d + ".old", "out.bin")
    in_home = os.path.exists(os.path.join(home, "out.bin"))
    ok = (paused and swapped.returncode == 0 and code == 0 and not in_home
          and os.path.exists(moved) and read(moved) == want)
    assert ok, (
        "the attacker moves OUTPUT's directory away and links the victim's home in its place: "
        "the output goes to the directory named at the start, nothing to the home: "
        "paused %s, swap %r, exit %s, %r, in the home: %s" % (
            paused, swapped.stderr, code, lines[:3], in_home))

