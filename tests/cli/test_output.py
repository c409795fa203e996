"""Output paths and signals, end to end (python3 standard library only).

    pytest_main.py test_output.py --apsp=APSP --exe gen-graph GEN_GRAPH [--testcases=DIR]

Runs the apsp command on testcases/*.in with known .out files and checks what docs/usage.md ("The
hw3 format") promises about OUTPUT: a symbolic link is written through (the link stays a link);
/proc/self/fd/N and /dev/stdout reach the open file; a dangling link creates its target; a file
that cannot be replaced (a directory that refuses new files, a file of the sticky directory's
owner, several hard links, a rename refused at commit) is written in place with one warning
line, and a file of any other user in a sticky directory is refused (the planted links are
test_output_sticky.py's); mode and owner are kept; names up to 255 bytes work; and a run ended by any signal, or by
`ulimit -f`, leaves neither a temporary file nor an output, with an exit status that says the
signal. GEN_GRAPH (tests/support/gen_graph.c) makes a graph large enough to still be computing when the
signal comes. Tests that need root (another user, a private mount namespace) skip otherwise;
the real /dev is never touched.

Each check prints what it tried and its result.
"""
import os
import resource
import signal
import stat
import subprocess
import tempfile
import time

import pytest
from files import read, write

TIMEOUT = 300
NOBODY, OTHER = 65534, 65533  # unprivileged ids for the runs that need another user
SIGNALS = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGALRM", "SIGPIPE", "SIGUSR1", "SIGUSR2",
           "SIGXCPU", "SIGXFSZ", "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGKILL"]
BIG_V = 8000  # seconds of work for either backend, so that the signal comes mid-solve
OLD_BYTES = b"an old output\n"

def no_core():
    """SIGQUIT, SIGSEGV and friends dump core by default: not into the test's directories."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def as_user(uid, gid):
    def drop():
        no_core()
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    return drop




def remove(path):
    if os.path.lexists(path):
        os.unlink(path)


def listing(directory):
    return sorted(os.listdir(directory))


def err_lines(p):
    return p.stderr.decode(errors="replace").splitlines()


def one_line(p, words=""):
    lines = err_lines(p)
    return len(lines) == 1 and lines[0].startswith("apsp: ") and words in lines[0]


def describe(p):
    return "exit %d, stderr %r" % (p.returncode, p.stderr.decode(errors="replace")[:300])


class Apsp:
    def __init__(self, exe, cases):
        self.exe = exe
        self.cases = cases

    def case(self, name):
        return os.path.join(self.cases, name + ".in"), read(os.path.join(self.cases, name + ".out"))

    def run(self, args, preexec_fn=no_core, **kw):
        kw.setdefault("stdin", subprocess.DEVNULL)
        kw.setdefault("capture_output", "stdout" not in kw)
        if "stdout" in kw:
            kw.setdefault("stderr", subprocess.PIPE)
        return subprocess.run([self.exe, "--backend=cpu"] + args, timeout=TIMEOUT,
                              preexec_fn=preexec_fn, **kw)


@pytest.fixture(scope="module")
def apsp(apsp_path, testcases):
    """This file's runner: --backend=cpu, no core file, the testcases at hand."""
    return Apsp(apsp_path, testcases)


@pytest.fixture(scope="module")
def big(exe):
    """A graph of BIG_V vertices (gen-graph), still being solved when a signal comes."""
    with tempfile.TemporaryDirectory(prefix="apsp-test-output-") as d:
        os.chmod(d, 0o755)  # the runs as another user read it
        path = os.path.join(d, "big.in")
        subprocess.run([exe["gen-graph"], "random", str(BIG_V), str(8 * BIG_V), "7", path],
                       check=True, timeout=TIMEOUT)
        yield path


def fresh_dir(work, name, mode=0o755):
    path = os.path.join(work, name)
    os.mkdir(path)
    os.chmod(path, mode)
    return path


def test_symlinks(apsp, work, check):
    inp, want = apsp.case("example")
    d = fresh_dir(work, "links")
    target, link = os.path.join(d, "target.bin"), os.path.join(d, "link.bin")
    write(target, b"an old output\n")
    os.symlink("target.bin", link)
    p = apsp.run([inp, link])
    check.report("link.bin -> target.bin: the target is written, the link stays",
                 p.returncode == 0 and read(target) == want and os.readlink(link) == "target.bin"
                 and listing(d) == ["link.bin", "target.bin"], describe(p))

    # A chain across directories, relative links, ending in a name that does not exist yet.
    for sub in ("a", "b", "b/c"):
        os.mkdir(os.path.join(d, sub))
    os.symlink("../b/hop", os.path.join(d, "a", "start"))
    os.symlink("c/new.bin", os.path.join(d, "b", "hop"))
    p = apsp.run([inp, os.path.join(d, "a", "start")])
    created = os.path.join(d, "b", "c", "new.bin")
    check.report("a/start -> ../b/hop -> c/new.bin (dangling): the final target is created",
                 p.returncode == 0 and os.path.exists(created) and read(created) == want
                 and os.path.islink(os.path.join(d, "a", "start"))
                 and os.path.islink(os.path.join(d, "b", "hop")), describe(p))

    os.symlink("missing-dir/x.bin", os.path.join(d, "nowhere"))
    before = listing(d)
    p = apsp.run([inp, os.path.join(d, "nowhere")])
    check.report("dangling link into a missing directory: exit 4, one line, nothing made",
                 p.returncode == 4 and one_line(p, "nowhere") and listing(d) == before, describe(p))

    os.symlink("loop2", os.path.join(d, "loop1"))
    os.symlink("loop1", os.path.join(d, "loop2"))
    p = apsp.run([inp, os.path.join(d, "loop1")])
    check.report("a symlink loop: exit 4, one line", p.returncode == 4 and one_line(p, "loop1"),
                 describe(p))


def test_descriptors(apsp, work, check):
    inp, want = apsp.case("example")
    d = fresh_dir(work, "fds")
    s = os.path.join(d, "s")
    os.symlink("/proc/self/fd/1", s)
    f = os.path.join(d, "f")
    with open(f, "wb") as out:
        p = apsp.run([inp, s], stdout=out)
    check.report("s -> /proc/self/fd/1 with stdout a file: the file gets the output, s stays a "
                 "link",
                 p.returncode == 0 and read(f) == want and os.readlink(s) == "/proc/self/fd/1"
                 and listing(d) == ["f", "s"], describe(p))
    p = apsp.run([inp, s])
    check.report("s -> /proc/self/fd/1 with stdout a pipe: the pipe gets the output",
                 p.returncode == 0 and p.stdout == want, describe(p))
    with open(f, "wb") as out:
        p = apsp.run([inp, "/proc/self/fd/1"], stdout=out)
    check.report("/proc/self/fd/1 with stdout a file", p.returncode == 0 and read(f) == want,
                 describe(p))


def in_namespace(script, *args):
    """Runs `sh -c script` as root in a private mount namespace; None where that cannot be."""
    if os.geteuid() != 0:
        return None
    try:
        p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh"]
                           + list(args), capture_output=True, timeout=TIMEOUT, preexec_fn=no_core)
    except (OSError, subprocess.SubprocessError):
        return None
    return None if p.returncode == 97 else p  # 97: the namespace could not be set up


def test_dev_stdout(apsp, work, check):
    """As root, `apsp IN /dev/stdout > f` replaced the system's /dev/stdout symlink with a file.
    Tried only on a copy: a private mount namespace with a tmpfs over /dev."""
    inp, want = apsp.case("example")
    d = fresh_dir(work, "devstdout")
    f = os.path.join(d, "f")
    script = """
        mount -t tmpfs tmpfs /dev 2>/dev/null || exit 97
        mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5
        mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/random c 1 8; mkdir /dev/shm
        ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin
        ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
        "$1" --backend=cpu "$2" /dev/stdout > "$3"; rc=$?
        [ -L /dev/stdout ] && echo "still a link" >&2
        exit $rc
    """
    p = in_namespace(script, apsp.exe, inp, f)
    if p is None:
        pytest.skip("/dev/stdout with stdout a file, as root: needs root and unshare -m")
    check.report("/dev/stdout with stdout a file, as root (private /dev): the file gets the "
                 "output, "
                 "/dev/stdout stays a link", p.returncode == 0 and read(f) == want
                 and b"still a link" in p.stderr, describe(p))


def test_attributes(apsp, work, check):
    inp, want = apsp.case("v100-chain")
    d = fresh_dir(work, "attrs")
    t = os.path.join(d, "t.bin")
    write(t, b"old", 0o640)
    p = apsp.run([inp, t])
    mode = stat.S_IMODE(os.stat(t).st_mode)
    check.report("mode 0640 kept by the replacement", p.returncode == 0 and read(t) == want
                 and mode == 0o640, "mode %o, %s" % (mode, describe(p)))
    if os.geteuid() == 0:
        os.chown(t, NOBODY, NOBODY)
        p = apsp.run([inp, t])
        st = os.stat(t)
        check.report("owner %d:%d kept by the replacement (root)" % (NOBODY, NOBODY),
                     p.returncode == 0 and (st.st_uid, st.st_gid) == (NOBODY, NOBODY),
                     "owner %d:%d, %s" % (st.st_uid, st.st_gid, describe(p)))
    else:
        check.report("owner kept by the replacement", None, "needs root")

    h = os.path.join(d, "h.bin")
    os.link(t, h)
    p = apsp.run([inp, t])
    st_t, st_h = os.stat(t), os.stat(h)
    check.report("a file with 2 hard links: written in place, both names see it, one warning",
                 p.returncode == 0 and read(h) == want and read(t) == want
                 and st_t.st_ino == st_h.st_ino and one_line(p, "written in place"), describe(p))
    check.report("the warning names the file and the reason", one_line(p, t)
                 and "hard links" in p.stderr.decode(), describe(p))


def test_unwritable_dir(apsp, work, check):
    """A writable file in a directory that refuses new files: written in place, with a warning.
    Root ignores permissions, so as root the run drops to another user."""
    inp, want = apsp.case("v100-chain")
    d = fresh_dir(work, "ro")
    t = os.path.join(d, "out.bin")
    write(t, b"old", 0o666)
    os.chmod(d, 0o555)
    drop = as_user(NOBODY, NOBODY) if os.geteuid() == 0 else no_core
    p = apsp.run([inp, t], preexec_fn=drop)
    check.report("writable file in a read-only directory: written in place, one warning",
                 p.returncode == 0 and read(t) == want and listing(d) == ["out.bin"]
                 and one_line(p, "cannot create a temporary file"), describe(p))
    p = apsp.run([inp, os.path.join(d, "new.bin")], preexec_fn=drop)
    check.report("a new file in a read-only directory: exit 4, one line, nothing made",
                 p.returncode == 4 and one_line(p, "new.bin") and listing(d) == ["out.bin"],
                 describe(p))
    os.chmod(d, 0o755)


def test_sticky(apsp, work, check):
    """Another user's file in a sticky directory. One of the directory's owner: a rename over it
    fails with EPERM, so it is written in place. One of a third user (neither the directory's
    owner nor this one): not written at all, as the kernel's fs.protected_regular has it (issue
    36.1; before, it was written in place like the owner's)."""
    if os.geteuid() != 0:
        pytest.skip("another user's file in a sticky directory: needs root")
    inp, want = apsp.case("v100-chain")
    d = fresh_dir(work, "sticky", 0o1777)
    os.chown(d, NOBODY, NOBODY)
    t = os.path.join(d, "theirs.bin")
    write(t, b"old", 0o666)
    os.chown(t, NOBODY, NOBODY)
    p = apsp.run([inp, t], preexec_fn=as_user(OTHER, OTHER))
    st = os.stat(t)
    check.report("a writable file of the sticky directory's owner: written in place, one warning, "
                 "owner kept", p.returncode == 0 and read(t) == want and st.st_uid == NOBODY
                 and listing(d) == ["theirs.bin"] and one_line(p, "sticky"), describe(p))
    os.chown(d, 0, 0)
    write(t, b"old", 0o666)
    p = apsp.run([inp, t], preexec_fn=as_user(OTHER, OTHER))
    check.report("a writable file of a third user in a sticky directory: exit 4, one line, "
                 "unchanged",
                 p.returncode == 4 and read(t) == b"old" and one_line(p, "not opened for writing"),
                 describe(p))


def negative_cycle(work):
    """A graph whose solve fails (exit 7) after the output was opened and its rows begun."""
    path = os.path.join(work, "cycle.txt")
    if not os.path.exists(path):
        write(path, b"0 1 1\n1 2 -3\n2 0 1\n2 3 1\n", 0o644)
    return path


def test_in_place_kept(apsp, work, big, check):
    """A file written in place keeps its old bytes until the result is complete: a run that
    fails (a negative cycle) or is killed by SIGTERM mid-solve leaves every name of it as it was.
    Before: the file was emptied and its rows streamed into it, so a negative cycle left V*V*4
    zero bytes under both names of a hard-linked OUTPUT."""
    cycle = negative_cycle(work)
    d = fresh_dir(work, "kept")
    t, h = os.path.join(d, "t.bin"), os.path.join(d, "h.bin")
    write(t, OLD_BYTES)
    os.link(t, h)
    p = apsp.run([cycle, t])
    check.report("a hard-linked OUTPUT and a negative cycle: exit 7, both names keep the old bytes",
                 p.returncode == 7 and read(t) == OLD_BYTES and read(h) == OLD_BYTES
                 and listing(d) == ["h.bin", "t.bin"], "%s, t.bin %r" % (describe(p), read(t)[:40]))
    running, code, err = signal_run([apsp.exe, "--backend=cpu", "--threads=1", big, t],
                                    signal.SIGTERM, d)
    check.report("a hard-linked OUTPUT, SIGTERM mid-solve: dies by it, both names keep the old "
                 "bytes",
                 running and code == -signal.SIGTERM and read(t) == OLD_BYTES
                 and read(h) == OLD_BYTES and listing(d) == ["h.bin", "t.bin"],
                 "running %s, exit %s, %r, t.bin %d bytes" % (running, code, err[:200],
                                                               len(read(t))))
    inp, want = apsp.case("v100-chain")
    write(t, b"x" * (len(want) + 4096))  # the copy over it must also cut it short
    p = apsp.run([inp, t])
    check.report("a hard-linked OUTPUT longer than the result: both names get the result, exactly",
                 p.returncode == 0 and read(t) == want and read(h) == want
                 and listing(d) == ["h.bin", "t.bin"], describe(p))
    r = fresh_dir(work, "ro-kept")
    rt = os.path.join(r, "out.bin")
    write(rt, OLD_BYTES, 0o666)
    os.chmod(r, 0o555)
    p = apsp.run([cycle, rt], preexec_fn=as_user(NOBODY, NOBODY) if os.geteuid() == 0
                 else no_core)
    check.report("a writable file in a read-only directory and a negative cycle: exit 7, the old "
                 "bytes kept", p.returncode == 7 and read(rt) == OLD_BYTES
                 and listing(r) == ["out.bin"], describe(p))
    os.chmod(r, 0o755)
    if os.geteuid() != 0:
        pytest.skip("another user's file in a sticky directory, a negative cycle: needs root")
    s = fresh_dir(work, "sticky-kept", 0o1777)
    os.chown(s, NOBODY, NOBODY)  # a file of anyone else there would be refused at once
    theirs = os.path.join(s, "theirs.bin")
    write(theirs, OLD_BYTES, 0o666)
    os.chown(theirs, NOBODY, NOBODY)
    p = apsp.run([cycle, theirs], preexec_fn=as_user(OTHER, OTHER))
    check.report("a file of the sticky directory's owner and a negative cycle: exit 7, the old "
                 "bytes kept", p.returncode == 7 and read(theirs) == OLD_BYTES
                 and listing(s) == ["theirs.bin"], describe(p))


def test_no_temporary_anywhere(apsp, work, check):
    """A writable file in a read-only directory, with /tmp read-only too: no temporary copy can
    be made anywhere, so the file is written in place as before, and the warning says that a
    failure leaves it partial."""
    inp, want = apsp.case("v100-chain")
    d = fresh_dir(work, "nowhere")
    t = os.path.join(d, "out.bin")
    write(t, b"old", 0o666)
    os.chmod(d, 0o555)
    # /tmp read-only on top, OUTPUT's directory (which may lie under /tmp) a writable mount.
    script = """
        mount --bind "$4" "$4" && mount --rbind /tmp /tmp && mount -o remount,bind,ro /tmp \
            || exit 97
        exec setpriv --reuid=%d --regid=%d --clear-groups "$1" --backend=cpu "$2" "$3"
    """ % (NOBODY, NOBODY)
    p = in_namespace(script, apsp.exe, inp, t, d)
    if p is None:
        pytest.skip("no temporary file anywhere: written in place: needs root and unshare -m")
    lines = err_lines(p)
    check.report("no temporary file anywhere (a 0555 directory, /tmp read-only): written in place, "
                 "the warning says a failure leaves it partial",
                 p.returncode == 0 and read(t) == want and len(lines) == 2
                 and "partial" in lines[1] and listing(d) == ["out.bin"], describe(p))
    os.chmod(d, 0o755)


def test_rename_refused(apsp, work, check):
    """A rename refused only at commit (here EBUSY: the target is a mount point): the bytes are
    copied over the target, with a warning."""
    inp, want = apsp.case("v100-chain")
    d = fresh_dir(work, "busy")
    t, src = os.path.join(d, "t.bin"), os.path.join(d, "mounted.bin")
    write(t, b"under the mount")
    write(src, b"old")
    p = in_namespace('mount --bind "$3" "$4" || exit 97; exec "$1" --backend=cpu "$2" "$4"',
                     apsp.exe, inp, src, t)
    if p is None:
        pytest.skip("a rename refused at commit (a mount point): needs root and unshare -m")
    check.report("a rename refused at commit (the target is a mount point): copied in place, "
                 "one warning", p.returncode == 0 and read(src) == want
                 and one_line(p, "rename was refused")
                 and sorted(listing(d)) == ["mounted.bin", "t.bin"], describe(p))


def test_disk_room(apsp, work, check):
    """A disk with room for one copy: replacing cannot work, and is not given up for writing in
    place; the run fails at once and keeps the old file. Tried on a 64 KiB tmpfs."""
    inp, want = apsp.case("v100-chain")  # 40000 bytes, 10 pages: two copies need 20 of 16
    d = fresh_dir(work, "full")
    script = """
        mount -t tmpfs -o size=64k tmpfs "$3" || exit 97
        head -c 40000 /dev/zero > "$3/out.bin"
        "$1" --backend=cpu "$2" "$3/out.bin"; rc=$?
        head -c 40000 /dev/zero | cmp -s "$3/out.bin" - && echo "kept" >&2
        ls -A "$3" >&2
        exit $rc
    """
    p = in_namespace(script, apsp.exe, inp, d)
    if p is None:
        pytest.skip("a disk with room for one copy: needs root and unshare -m")
    lines = err_lines(p)
    check.report("a disk with room for one copy: exit 4 at once, 'no room', the old file kept, "
                 "nothing else", p.returncode == 4 and lines[:1] and "no room" in lines[0]
                 and lines[1:] == ["kept", "out.bin"], describe(p))


def test_same_file(apsp, work, check):
    """Issue 24.3: two of INPUT, OUTPUT and --predecessors that are one file under two names
    (./x, an absolute path, a symbolic or hard link) are refused before anything is written:
    exit 2, one line naming both; every file as it was. Before, apsp wrote one output over the
    other (exit 0, the distances only) or the predecessors over the input graph. A dangling link
    is the name it would create (issue 36.2: `--predecessors=tgt.npy g.in dangling.npy` wrote the
    distances into tgt.npy, exit 0, the predecessors lost)."""
    inp, _ = apsp.case("example")
    d = fresh_dir(work, "same")
    graph, same = os.path.join(d, "g.in"), os.path.join(d, "same.npy")
    write(graph, read(inp))
    write(same, OLD_BYTES)
    os.symlink("same.npy", os.path.join(d, "link.npy"))
    os.link(same, os.path.join(d, "hard.npy"))
    os.symlink("tgt.npy", os.path.join(d, "dangling.npy"))
    tries = [
        (["--predecessors=./same.npy", "g.in", "same.npy"], "--predecessors=./same.npy"),
        (["--predecessors=" + same, "g.in", "same.npy"], "--predecessors=" + same),
        (["--predecessors=link.npy", "g.in", "same.npy"], "--predecessors=link.npy"),
        (["--predecessors=hard.npy", "g.in", "same.npy"], "--predecessors=hard.npy"),
        (["--predecessors=g.in", "g.in", "d.npy"], "--predecessors=g.in"),
        (["g.in", "./g.in"], "OUTPUT ./g.in"),
        (["--predecessors=new.npy", "g.in", "./new.npy"], "--predecessors=new.npy"),
        (["--predecessors=tgt.npy", "g.in", "dangling.npy"], "OUTPUT dangling.npy"),
        (["--predecessors=dangling.npy", "g.in", "./tgt.npy"], "OUTPUT ./tgt.npy"),
    ]

    def contents():  # a link by what it says: the dangling one cannot be read
        return {n: os.readlink(p) if os.path.islink(p) else read(p)
                for n, p in ((n, os.path.join(d, n)) for n in listing(d))}
    before = contents()
    for args, words in tries:
        p = apsp.run(args, cwd=d)
        now = contents()
        check.report("%s: refused, exit 2, one line naming both, nothing written" % " ".join(args),
                     p.returncode == 2 and one_line(p, words)
                     and "the same file as" in p.stderr.decode() and now == before, describe(p))
    p = apsp.run(["--predecessors=p.npy", "g.in", "same.npy"], cwd=d)
    check.report("distinct files are written", p.returncode == 0 and read(same) != OLD_BYTES
                 and os.path.exists(os.path.join(d, "p.npy")), describe(p))


def test_long_names(apsp, work, check):
    inp, want = apsp.case("example")
    d = fresh_dir(work, "names")
    for length in (242, 243, 250, 255):
        name = os.path.join(d, "n" * length)
        write(name, b"old")
        p = apsp.run([inp, name])
        check.report("a %d-byte name over an existing file" % length,
                     p.returncode == 0 and read(name) == want and listing(d) == ["n" * length],
                     describe(p))
        remove(name)
        p = apsp.run([inp, name])
        check.report("a %d-byte new name" % length, p.returncode == 0 and os.path.exists(name)
                     and read(name) == want and listing(d) == ["n" * length], describe(p))
        remove(name)


def test_file_size_limit(apsp, work, check):
    inp, want = apsp.case("v100-chain")  # 40000 bytes of output
    d = fresh_dir(work, "fsize")
    t = os.path.join(d, "out.bin")

    def limit():
        no_core()
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    for existing in (False, True):
        if existing:
            write(t, b"old")
        p = apsp.run([inp, t], preexec_fn=limit)
        ended = p.returncode == -signal.SIGXFSZ or (p.returncode > 0 and one_line(p))
        kept = read(t) == b"old" if existing else listing(d) == []
        check.report("ulimit -f 4 KiB%s: exit non-zero with one line (or SIGXFSZ), %s"
                     % (" over an existing output" if existing else "",
                        "the output kept" if existing else "no file"),
                     ended and kept and listing(d) == (["out.bin"] if existing else []),
                     describe(p))


def o_tmpfile_works(directory):
    try:
        os.close(os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600))
        return True
    except (OSError, AttributeError):
        return False


def wait_computing(proc, out_dir, settle=1.0):
    """Until the run holds its temporary file (an unnamed one shows as 'DIR/#INODE (deleted)'
    in /proc/PID/fd), then a moment more: past the read, into the solve."""
    deadline = time.monotonic() + 60
    fd_dir = "/proc/%d/fd" % proc.pid
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            targets = [os.readlink(os.path.join(fd_dir, n)) for n in os.listdir(fd_dir)]
        except OSError:
            targets = []
        if any(t.startswith(out_dir + "/") for t in targets):
            time.sleep(settle)
            return proc.poll() is None
        time.sleep(0.01)
    return False


def signal_run(cmd, sig, out_dir, preexec_fn=no_core, seen_named=None):
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, preexec_fn=preexec_fn)
    running = wait_computing(proc, out_dir)
    if seen_named is not None:
        seen_named.append([n for n in listing(out_dir) if ".apsp-" in n])
    if running:
        proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return running, proc.returncode, err


def backends(apsp):
    p = subprocess.run([apsp.exe, "--list-devices"], capture_output=True, timeout=TIMEOUT)
    return ["cpu"] + (["opencl"] if b"(opencl backend)" in p.stdout else [])


@pytest.mark.parametrize("name", SIGNALS)
@pytest.mark.parametrize("backend", ["cpu", "opencl"])
def test_signals(apsp, work, big, backend, name):
    if backend not in backends(apsp):
        pytest.skip("no OpenCL device")
    d = fresh_dir(work, "signals-" + backend)
    sig = getattr(signal, name)
    what = "--backend=%s, %s mid-solve: dies by it, no temporary file, no output" % (
        backend, name)
    if sig == signal.SIGKILL and not o_tmpfile_works(d):
        pytest.skip("no O_TMPFILE here: a named file cannot survive SIGKILL")
    out = os.path.join(d, "big.out")
    # OpenCL on PoCL's CPU device: a GPU would finish V = 8000 in milliseconds, before the
    # signal (the H100 host: 36 ms).
    device = ["--device=cpu"] if backend == "opencl" else []
    cmd = [apsp.exe, "--backend=" + backend] + device + ["--threads=1", big, out]
    running, code, err = signal_run(cmd, sig, d)
    assert running, "%s: the run was not computing when the signal was due: exit %s, %r" % (
        what, code, err[:200])
    left = listing(d)
    assert code == -sig and left == [], "%s: exit %s, left %s, %r" % (what, code, left,
                                                                       err[:200])


def test_named_fallback(apsp, work, big, check):
    """Where the unnamed file cannot be had, a named `.NAME.apsp-XXXXXX` is used: tried as root in
    a namespace whose /proc is an empty tmpfs (no /proc/self/fd to link an unnamed file from)."""
    if os.geteuid() != 0 or in_namespace("true") is None:
        pytest.skip("the named temporary file (no O_TMPFILE): needs root and unshare -m")
    d = fresh_dir(work, "named")
    script = 'mount -t tmpfs none /proc || exit 97; exec "$@"'
    for name in ("SIGINT", "SIGQUIT", "SIGUSR1", "SIGSEGV", "SIGXFSZ", "SIGPIPE", "SIGTERM"):
        sig = getattr(signal, name)
        out = os.path.join(d, "n" * 250)
        cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", apsp.exe,
               "--backend=cpu", "--threads=1", big, out]
        seen = []
        running, code, err = signal_run(cmd, sig, d, seen_named=seen)
        temps = seen[0] if seen else []
        ok = (running and code == -sig and listing(d) == [] and len(temps) == 1
              and len(temps[0]) <= 255 and temps[0].startswith("." + "n" * 200))
        left = listing(d)
        check.report("named temporary file, 250-byte name, %s: the file (%s) is removed, exit "
                     "by the signal"
                     % (name, "%d-byte name" % len(temps[0]) if temps else "never seen"), ok,
                     "exit %s, left %s, %r" % (code, left, err[:200]))
        for name_left in left:
            remove(os.path.join(d, name_left))

