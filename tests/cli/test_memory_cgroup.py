"""The apsp command in a real memory cgroup (python3 standard library only; root).

    pytest_main.py test_memory_cgroup.py --apsp=APSP

Makes a child of this process's memory cgroup (cgroup v2 where its memory controller is there:
of the nearest cgroup above that gives its children the controller; else v1's under
/sys/fs/cgroup/memory), gives it a limit, and runs apsp inside it (a shell that
writes its pid into cgroup.procs, then execs apsp; issue 36.7):

  - a 1 GiB limit and `--vertices=30000` (a 3.37 GiB int32 matrix): exit 5 and one line naming
    the cgroup and its limit; nothing written. Before: the matrix was allocated and the kernel
    killed apsp for the cgroup (exit 137);
  - a 4 GiB limit of which another process in the cgroup holds 1.5 GiB: the matrix is within
    the limit but not within what is left, so exit 5 and one line naming both figures and the
    limit ("only ... is available (the cgroup's memory.limit_in_bytes of 4.00 GiB, of which
    ... holds ..."). Before: killed (exit 137).

The cgroup is removed after. Skips where this is not root or no memory cgroup can be made.
"""
import os
import subprocess
import sys
import tempfile
import time

import pytest

GIB = 1 << 30
VERTICES = 30000  # its int32 matrix: 30080^2 * 4 bytes = 3.37 GiB
MATRIX = 30080 * 30080 * 4
TIMEOUT = 120


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def own_path(version):
    """This process's cgroup path for v2 ("0::PATH") or v1's memory controller."""
    for line in read("/proc/self/cgroup").splitlines():
        number, controllers, path = line.split(":", 2)
        if (version == 2 and number == "0" and controllers == "") or \
                (version == 1 and "memory" in controllers.split(",")):
            return path
    return None


class Cgroup:
    """A child memory cgroup of this process's: its directory and the names of its files."""

    def __init__(self, version, parent):
        self.version = version
        self.dir = os.path.join(parent, "apsp-test-memory-%d" % os.getpid())
        self.limit_file = "memory.max" if version == 2 else "memory.limit_in_bytes"
        self.swap_file = "memory.swap.max" if version == 2 else "memory.memsw.limit_in_bytes"
        os.mkdir(self.dir)

    def limit(self, nbytes):
        """The limit, and no swap beyond it, so that the old code is killed, not slowed (v1
        wants memory.memsw.limit_in_bytes >= memory.limit_in_bytes at every step: it is set
        before a raise and after a cut)."""
        self.no_swap_beyond(nbytes)
        write(os.path.join(self.dir, self.limit_file), str(nbytes))
        self.no_swap_beyond(nbytes)

    def no_swap_beyond(self, nbytes):
        swap = os.path.join(self.dir, self.swap_file)
        try:
            write(swap, "0" if self.version == 2 else str(nbytes))
        except OSError:  # missing (no swap accounting), or below the limit before a cut
            pass

    def run(self, argv, **kw):
        """argv inside the cgroup: a shell moves itself in, then execs it."""
        procs = os.path.join(self.dir, "cgroup.procs")
        script = 'echo $$ > "$0" && exec "$@"'
        return ["sh", "-c", script, procs] + list(argv), kw

    def remove(self):
        for _ in range(50):  # the last task's exit is seen a little after wait()
            try:
                os.rmdir(self.dir)
                return
            except OSError:
                time.sleep(0.1)
        print("could not remove %s" % self.dir)


def v2_parent(root):
    """The nearest of this process's cgroup and its ancestors that gives its children the
    memory controller (or can be made to: a cgroup with processes of its own cannot), or None."""
    path = (own_path(2) or "/").rstrip("/")
    while True:
        parent = os.path.join(root, path.lstrip("/"))
        control = os.path.join(parent, "cgroup.subtree_control")
        try:
            if "memory" not in read(control).split():
                write(control, "+memory")
            return parent
        except OSError:
            if not path:
                return None
            path = path.rsplit("/", 1)[0]


def make_cgroup():
    """A child cgroup with a memory controller, or (None, why)."""
    root = "/sys/fs/cgroup"
    v2_controllers = os.path.join(root, "cgroup.controllers")
    if os.path.exists(v2_controllers) and "memory" in read(v2_controllers).split():
        parent = v2_parent(root)
        try:
            if parent:
                return Cgroup(2, parent), None
            why = "cgroup v2: no cgroup above this process gives its children memory"
        except OSError as e:
            why = "cgroup v2 at %s: %s" % (parent, e)
    else:
        why = "no cgroup v2 memory controller at %s" % root
    v1 = os.path.join(root, "memory")
    path = own_path(1)
    if not path or not os.path.isdir(v1):
        return None, why + "; no cgroup v1 memory controller"
    parent = os.path.join(v1, path.lstrip("/"))
    parent = parent if os.path.isdir(parent) else v1
    try:
        return Cgroup(1, parent), None
    except OSError as e:
        return None, why + "; cgroup v1 at %s: %s" % (parent, e)


def apsp_in(cgroup, apsp, directory):
    """apsp --vertices=30000 on a two-edge list into OUTPUT, inside the cgroup."""
    graph = os.path.join(directory, "g.txt")
    write(graph, "0 1 5\n1 2 3\n")
    output = os.path.join(directory, "d.npy")
    argv, _ = cgroup.run([apsp, "--backend=cpu", "--vertices=%d" % VERTICES, graph, output])
    r = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    lines = r.stderr.splitlines()
    return r.returncode, lines, sorted(os.listdir(directory))


def check_refusal(what, rc, lines, left, words):
    line = lines[0] if lines else ""
    assert rc == 5 and len(lines) == 1 and all(w in line for w in words) and left == ["g.txt"], (
        "%s: exit %d, %s, left %s" % (what, rc, lines, left))


@pytest.fixture(scope="module")
def cgroup():
    """(a child cgroup with a memory controller, its name under the mount); removed after."""
    if os.geteuid() != 0:
        pytest.skip("making a cgroup needs root")
    made, why = make_cgroup()
    if not made:
        pytest.skip("no memory cgroup can be made here: %s" % why)
    mount = "/sys/fs/cgroup" if made.version == 2 else "/sys/fs/cgroup/memory"
    print("cgroup v%d: %s" % (made.version, made.dir))
    try:
        yield made, made.dir[len(mount):]
    finally:
        made.remove()


def test_within_limit(cgroup, apsp_path):
    """A 1 GiB limit below the 3.37 GiB matrix: the cgroup's limit is the most it may hold."""
    (cgroup, cgroup_name), apsp = cgroup, apsp_path
    cgroup.limit(GIB)
    with tempfile.TemporaryDirectory() as d:
        rc, lines, left = apsp_in(cgroup, apsp, d)
    check_refusal("V = 30000 in a cgroup of 1 GiB: exit 5, the cgroup's limit named, nothing "
                  "written", rc, lines, left,
                  ["needs 3.37 GiB", cgroup.limit_file, cgroup_name, "is 1.00 GiB"])


def memory_available():
    for line in read("/proc/meminfo").splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return None


def test_within_what_is_left(cgroup, apsp_path):
    """A 4 GiB limit, 1.5 GiB of it held by another process of the cgroup: the 3.37 GiB matrix
    fits the limit but not what is left of it."""
    (cgroup, cgroup_name), apsp = cgroup, apsp_path
    available = memory_available()
    if available is not None and available < 3 * GIB:
        pytest.skip("V = 30000 in a cgroup of 4 GiB, 1.5 GiB held: MemAvailable is %d MiB here: "
                    "it, not the cgroup, would decide" % (available >> 20))
    cgroup.limit(4 * GIB)
    hold = "import sys; b = b'\\x01' * (3 << 29); print('held', flush=True); sys.stdin.read()"
    argv, _ = cgroup.run([sys.executable, "-c", hold])
    holder = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = holder.stdout.readline().strip() == "held"
        with tempfile.TemporaryDirectory() as d:
            rc, lines, left = apsp_in(cgroup, apsp, d)
    finally:
        holder.stdin.close()
        holder.wait(timeout=TIMEOUT)
    check_refusal("V = 30000 in a cgroup of 4 GiB of which another process holds 1.5 GiB: exit "
                  "5 naming what is needed, what is left and the limit", rc, lines, left,
                  ["needs 3.37 GiB", "of memory is available", "the cgroup's %s of 4.00 GiB"
                   % cgroup.limit_file, "of which %s holds 1.5" % cgroup_name] if ready else
                  ["the holder did not start"])

