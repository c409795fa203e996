"""Planted links and other users' files in a sticky directory (python3 standard library only).

    pytest_main.py test_output_sticky.py --apsp=APSP [--testcases=DIR]
        [--exe apsp-mpi APSP_MPI --exe mpirun MPIRUN]

apsp follows OUTPUT's symbolic links itself (src/output/output_path.c), so the kernel's
fs.protected_symlinks and fs.protected_regular cannot protect its user; apsp applies their rule
itself (issue 36.1). Three users besides root, each an ordinary one (setpriv): the sticky
directory's owner (uid 2003, mode 1777), an attacker (2001) who plants entries in it, and the
victim (2002) who then writes there. Where the victim runs apsp (OUTPUT and --predecessors),
apsp-mpi (OUTPUT) and apsp with APSP_DUMP_PROGRAM (--backend=opencl):

  - the attacker's link to the victim's file: exit 4, one line naming the file it leads to, the
    file unchanged (before: overwritten with the distances, exit 0);
  - the attacker's dangling link to a file the victim could create (~/.profile): exit 4, nothing
    created (before: created);
and for apsp's OUTPUT also:
  - the attacker's regular file (mode 0666) and FIFO: exit 4, unchanged (before: written in
    place with a warning; the FIFO: apsp waited for a reader);
  - the attacker's link in a directory that is sticky and group-writable only (mode 1770, both
    users in its group), which the kernel's default leaves alone: exit 4;
  - a link of the directory's owner, and one of the victim: followed, as the kernel follows
    them (exit 0, the target holds testcases/example.out).

Needs root and setpriv (skips otherwise). Each check prints what it tried and its result.
"""
import os
import shutil
import subprocess

import pytest
from files import read, write
from sanitizers import leak_env

if os.geteuid() != 0 or shutil.which("setpriv") is None:
    pytest.skip("needs root and setpriv (three other users)", allow_module_level=True)

# A run's limit: APSP_DUMP_PROGRAM's runs compile on the victim's cold PoCL cache, which took more
# than 120 s under AddressSanitizer on the 2-core CI machine.
TIMEOUT = 900
FIFO_TIMEOUT = 20  # a run that opens the attacker's FIFO waits for a reader: a failure
ATTACKER, VICTIM, OWNER = 2001, 2002, 2003
SHARED_GROUP = 2010  # the group of the group-writable sticky directory
PRECIOUS = b"the victim's precious file\n"


def as_user(uid, gid=None):
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % (uid if gid is None else gid),
            "--clear-groups"]


def run_as(uid, argv, gid=None, env=None, timeout=TIMEOUT):
    """argv as an ordinary user; None where it did not end within `timeout`."""
    try:
        return subprocess.run(as_user(uid, gid) + argv, stdin=subprocess.DEVNULL,
                              capture_output=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def plant(uid, script, *args, gid=None):
    """What another user does to the sticky directory before the victim's run."""
    p = run_as(uid, ["sh", "-c", script, "sh"] + list(args), gid=gid)
    if p is None or p.returncode != 0:
        pytest.fail("could not plant as uid %d: %r" % (uid, p and p.stderr), pytrace=False)


def errors(p, tool):
    """The tool's own lines on stderr (a driver may print more: PoCL's compiler warnings)."""
    return [line for line in p.stderr.decode(errors="replace").splitlines()
            if line.startswith(tool + ": ")]


def describe(p, timeout=FIFO_TIMEOUT):
    if p is None:
        return "still running after %d s (blocked)" % timeout
    return "exit %d, stderr %r" % (p.returncode, p.stderr.decode(errors="replace")[-400:])


class World:
    """The victim's home (its precious file, the graph), the sticky directory of OWNER, and how
    each tool is run as the victim."""

    def __init__(self, work, apsp, testcases, check):
        self.work, self.report = work, check.report
        self.home = self.mkdir("victim", VICTIM, VICTIM, 0o755)
        self.sticky = self.mkdir("sticky", OWNER, OWNER, 0o1777)
        self.group_sticky = self.mkdir("group-sticky", OWNER, SHARED_GROUP, 0o1770)
        self.precious = os.path.join(self.home, "precious.txt")
        self.graph = os.path.join(self.home, "graph.in")
        write(self.precious, PRECIOUS, 0o644)
        write(self.graph, read(os.path.join(testcases, "example.in")), 0o644)
        self.want = read(os.path.join(testcases, "example.out"))
        for path in (self.precious, self.graph):
            os.chown(path, VICTIM, VICTIM)
        # PoCL's and apsp's kernel caches, and Open MPI's session directory, the victim's own.
        # (Its cold PoCL cache compiles in every OpenCL run: apsp's runs take the cheap stacks.)
        victims = dict(os.environ, HOME=self.home, XDG_CACHE_HOME=os.path.join(self.home, ".cache"))
        self.env = leak_env(victims, mpi=False)
        self.mpi_env = leak_env(victims)
        self.ompi = self.mkdir("ompi", VICTIM, VICTIM, 0o700)
        self.mpi_env["OMPI_MCA_orte_tmpdir_base"] = self.ompi
        self.mpi_env["PRTE_MCA_prte_tmpdir_base"] = self.ompi
        self.apsp = apsp
        self.planted = 0

    def mkdir(self, name, uid, gid, mode):
        path = os.path.join(self.work, name)
        os.mkdir(path)
        os.chown(path, uid, gid)
        os.chmod(path, mode)
        return path

    def run(self, argv, gid=None, extra_env=None, timeout=TIMEOUT):
        env = self.mpi_env if os.path.basename(argv[0]).startswith("mpi") else self.env
        return run_as(VICTIM, argv, gid=gid, env=dict(env, **(extra_env or {})), timeout=timeout)

    def home_listing(self):
        return sorted(n for n in os.listdir(self.home) if not n.startswith("."))

    def dot_profile(self):
        return os.path.join(self.home, ".profile")


def refused_link(w, what, p, tool, link, target, before):
    """A planted link was not followed: exit 4, one line naming the file it leads to, that file
    as it was (or still missing), nothing new in the victim's home."""
    lines = errors(p, tool) if p else []
    target_now = read(target) if os.path.exists(target) else None
    ok = (p is not None and p.returncode == 4 and len(lines) == 1 and "not followed" in lines[0]
          and lines[0].endswith("name that file directly: " + target) and target_now == before
          and os.path.islink(link) and w.home_listing() == ["graph.in", "precious.txt"])
    w.report("%s: exit 4, one line naming %s, it %s" % (
          what, target, "unchanged" if before is not None else "not created"), ok,
          "%s; target %s, home %s" % (describe(p, TIMEOUT), "unchanged" if target_now == before else
                                      "CREATED" if before is None else "OVERWRITTEN",
                                      w.home_listing()))


def check_links(w, label, tool, argv_for, env_for=None):
    """The attacker's link to the victim's file, and a dangling one to ~/.profile, given to the
    victim's run as `label` says: argv_for(link) and env_for(link) make the run."""
    for kind, target, before in (("link to the victim's file", w.precious, PRECIOUS),
                                 ("dangling link to ~/.profile", w.dot_profile(), None)):
        w.planted += 1
        link = os.path.join(w.sticky, "planted-%d.npy" % w.planted)
        plant(ATTACKER, 'ln -s "$1" "$2"', target, link)
        p = w.run(argv_for(link), extra_env=env_for(link) if env_for else None)
        refused_link(w, "%s, the attacker's %s" % (label, kind), p, tool, link, target, before)


@pytest.fixture
def w(work, apsp_path, testcases, check):
    """The world of one test, its checks reported by `check`."""
    return World(work, apsp_path, testcases, check)


def test_foreign_files(w, check):
    """The attacker's own file and FIFO in the sticky directory: not written."""
    theirs = os.path.join(w.sticky, "theirs.bin")
    plant(ATTACKER, 'printf old > "$1" && chmod 666 "$1"', theirs)
    p = w.run([w.apsp, "--backend=cpu", w.graph, theirs])
    lines = errors(p, "apsp")
    ok = (p.returncode == 4 and len(lines) == 1 and "not opened for writing" in lines[0]
          and "its owner must remove it" in lines[0] and read(theirs) == b"old"
          and os.stat(theirs).st_uid == ATTACKER)
    w.report("the attacker's regular file (mode 0666) as OUTPUT: exit 4, one line, unchanged", ok,
             "%s, the file %r" % (describe(p, TIMEOUT), read(theirs)[:20]))
    fifo = os.path.join(w.sticky, "theirs.fifo")
    plant(ATTACKER, 'mkfifo -m 666 "$1"', fifo)
    p = w.run([w.apsp, "--backend=cpu", w.graph, fifo], timeout=FIFO_TIMEOUT)
    ok = p is not None and p.returncode == 4 and len(errors(p, "apsp")) == 1
    w.report("the attacker's FIFO as OUTPUT: exit 4 at once, one line", ok, describe(p))


def test_group_writable(w, check):
    """A directory that is sticky and writable by its group only: the kernel's default rule
    looks at world-writable ones; apsp counts this one as shared too."""
    link = os.path.join(w.group_sticky, "out.bin")
    plant(ATTACKER, 'ln -s "$1" "$2"', w.precious, link, gid=SHARED_GROUP)
    p = w.run([w.apsp, "--backend=cpu", w.graph, link], gid=SHARED_GROUP)
    refused_link(w, "mode 1770 (both users in its group), the attacker's link to the victim's "
                 "file", p, "apsp", link, w.precious, PRECIOUS)


def test_followed(w, check):
    """Links that the kernel would follow: the directory owner's and the victim's own."""
    for who, uid in (("the directory's owner", OWNER), ("the victim", VICTIM)):
        target = os.path.join(w.home, "by-%d.out" % uid)
        link = os.path.join(w.sticky, "link-of-%d.bin" % uid)
        plant(uid, 'ln -s "$1" "$2"', target, link)
        p = w.run([w.apsp, "--backend=cpu", w.graph, link])
        ok = (p.returncode == 0 and os.path.exists(target) and read(target) == w.want
              and os.path.islink(link))
        w.report("a link of %s: followed, the target holds the distances" % who, ok,
                 describe(p, TIMEOUT))
        os.unlink(target)


def opencl_device(w):
    p = subprocess.run([w.apsp, "--list-devices"], capture_output=True, timeout=TIMEOUT)
    return b"(opencl backend)" in p.stdout


@pytest.mark.parametrize("run", ["apsp", "apsp-predecessors", "apsp-mpi", "dump-program"])
def test_links(w, exe, check, run):
    """The attacker's links given to each tool of the victim's: apsp's OUTPUT and --predecessors,
    apsp-mpi's OUTPUT, APSP_DUMP_PROGRAM."""
    apsp = [w.apsp, "--backend=cpu"]
    own = os.path.join(w.home, "d.npy")  # an output of the victim's own, beside
    if run == "apsp":
        check_links(w, "apsp IN LINK", "apsp", lambda link: apsp + [w.graph, link])
    elif run == "apsp-predecessors":
        check_links(w, "apsp --predecessors=LINK IN ~/d.npy", "apsp",
                    lambda link: apsp + ["--predecessors=" + link, w.graph, own])
    elif run == "apsp-mpi":
        if "apsp-mpi" not in exe or "mpirun" not in exe:
            pytest.skip("apsp-mpi's OUTPUT: no apsp-mpi or mpirun")
        mpi = [exe["mpirun"], "-q", "--oversubscribe", "-np", "2", exe["apsp-mpi"], w.graph]
        check_links(w, "mpirun -np 2 apsp-mpi IN LINK", "apsp-mpi", lambda link: mpi + [link])
    else:
        if not opencl_device(w):
            pytest.skip("APSP_DUMP_PROGRAM: no OpenCL device")
        check_links(w, "APSP_DUMP_PROGRAM=LINK apsp --backend=opencl IN ~/d.npy", "apsp",
                    lambda link: [w.apsp, "--backend=opencl", w.graph, own],
                    lambda link: {"APSP_DUMP_PROGRAM": link})
