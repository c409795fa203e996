"""The kernel cache trusts only what this user alone can have written, and a cache file that
crashes the driver is not loaded twice (src/opencl/program_cache.c, docs/security.md).

    pytest_main.py test_cache_trust.py::test_TEST --apsp=APSP --testcases=TESTCASES_DIR

A cache file holds code the driver runs. Each test plants a cache file that this very build
wrote (so it is valid in every other way: key, digest, binary) where someone else could have
put it, and checks that apsp compiles instead ("programs built 1") and writes nothing there;
or plants one whose binary crashes PoCL under a valid digest, and checks that the run after
the crash compiles and the one after that uses the cache again. Tests that need a file owned by
another user need root (CI runs as root) and are skipped otherwise. Skips as test_opencl.py's
tests do without an OpenCL device (unless APSP_TEST_REQUIRE_DEVICE=1).
"""
import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile

import pytest
from test_opencl import clean_env, ctx, need_device  # noqa: F401 (ctx: test_opencl.py's fixture)

OTHER_UID = 2001  # an unprivileged user other than the one running apsp
WARNING = re.compile(r"^apsp: kernel cache .*$", re.M)


@pytest.fixture
def index(ctx):
    """The index of the device the test's solves run on: PoCL where it is listed
    (crashing-binary rewrites a PoCL binary), by type: on a GPU machine it need not be device 0.
    The test skipped without an OpenCL device."""
    os.chmod(ctx.work, 0o700)
    devices = need_device(ctx)
    return str(next((d for d in devices if d["type"] == "cpu"), devices[0])["index"])


def run(ctx, index, cache, by_env=False):
    """One solve with the kernel cache `cache` (--kernel-cache=, or APSP_KERNEL_CACHE with
    by_env): (process, programs built or None, output correct)."""
    option = [] if by_env else ["--kernel-cache=" + cache]
    env = clean_env(APSP_KERNEL_CACHE=cache) if by_env else clean_env()
    p, _, _, correct = ctx.solve(["-d", index, "--tile=32"] + option, env)
    m = re.search(r"programs built (\d+)", p.err)
    return p, int(m[1]) if m else None, correct


def snapshot(directory):
    """Every directory and file under `directory` with its owner, mode and contents."""
    found = {}
    for root, dirs, names in os.walk(directory):
        for name in dirs + names:
            path = os.path.join(root, name)
            st = os.lstat(path)
            content = None
            if name in names:
                with open(path, "rb") as f:
                    content = f.read()
            found[os.path.relpath(path, directory)] = (st.st_uid, st.st_mode, content)
    return found


def good_cache_files(ctx, index, where):
    """A directory `where` (this user's, 0700) holding the cache files this build writes for
    the test's solve: made once, then copied."""
    private = os.path.join(ctx.work, "private-cache")
    if not os.path.isdir(private):
        p, built, correct = run(ctx, index, private)
        ctx.check(p.returncode == 0 and correct and built == 1,
                  "a cold private cache: exit %d, built %s: %s" % (p.returncode, built, p.err))
    names = sorted(os.listdir(private))
    ctx.check(len(names) == 1 and names[0].endswith(".clbin"), "the private cache holds %s" % names)
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(private, where)
    return names


def plant(ctx, index, where, mode, owner):
    """A directory `where` holding this build's valid cache file, both owned by `owner`."""
    names = good_cache_files(ctx, index, where)
    for path in [where] + [os.path.join(where, n) for n in names]:
        os.chown(path, owner, owner)
    os.chmod(where, mode)
    return names


def expect_refused(ctx, index, cache, watched, what, quiet_too=False, by_env=False):
    """apsp compiles rather than load from `cache`, leaves `watched` as it was, and says why
    in one line under -v (and, with quiet_too, nothing without -v)."""
    before = snapshot(watched)
    p, built, correct = run(ctx, index, cache, by_env)
    ctx.check(p.returncode == 0 and correct, "%s: exit %d: %s" % (what, p.returncode, p.err))
    ctx.check(built == 1,
              "%s: the planted cache file was loaded (programs built %s)" % (what, built))
    ctx.check(len(WARNING.findall(p.err)) == 1,
              "%s: expected one 'kernel cache' warning under -v, got:\n%s" % (what, p.err))
    ctx.check(snapshot(watched) == before, "%s: apsp wrote into %s" % (what, watched))
    if not quiet_too:
        return
    quiet = ctx.run(["-d", index, "--tile=32", "--kernel-cache=" + cache] +
                    list(ctx.case()[:1]) + [os.path.join(ctx.work, "quiet.out")], clean_env())
    ctx.check(quiet.returncode == 0 and not quiet.err,
              "%s: without -v: exit %d, stderr %r" % (what, quiet.returncode, quiet.err))


def need_root():
    if os.geteuid() != 0:
        pytest.skip("needs root to make files owned by another user (CI runs as root)")


def test_foreign_dir(ctx, index):
    """A cache directory owned by another user, and another user's file in this user's own
    directory (which apsp then replaces with its own)."""
    need_root()
    foreign = os.path.join(ctx.work, "foreign")
    plant(ctx, index, foreign, 0o755, OTHER_UID)
    expect_refused(ctx, index, foreign, foreign, "a directory owned by uid %d" % OTHER_UID, True)
    mine = os.path.join(ctx.work, "mine")
    names = plant(ctx, index, mine, 0o700, OTHER_UID)
    os.chown(mine, os.geteuid(), os.getegid())
    p, built, correct = run(ctx, index, mine)
    ctx.check(p.returncode == 0 and correct and built == 1,
              "a file owned by uid %d: exit %d, built %s: %s"
              % (OTHER_UID, p.returncode, built, p.err))
    owner = os.lstat(os.path.join(mine, names[0])).st_uid
    ctx.check(owner == os.geteuid(), "the foreign file was not replaced (owner %d)" % owner)
    p, built, correct = run(ctx, index, mine)
    ctx.check(p.returncode == 0 and correct and built == 0,
              "the replacement was not used: %s" % p.err)


def test_writable_dir(ctx, index):
    """A cache directory (this user's own) that others or the group can write to, and one
    inside a directory that others can write to: the file in it is never read, nothing is
    written there. But a private one right inside a root-owned sticky directory, as /tmp, is
    used, and made with mode 0700."""
    for mode in (0o1777, 0o770):
        shared = os.path.join(ctx.work, "shared-%o" % mode)
        plant(ctx, index, shared, mode, os.geteuid())
        expect_refused(ctx, index, shared, shared, "a directory of mode %o" % mode, True)
    parent = os.path.join(ctx.work, "open-parent")
    plant(ctx, index, os.path.join(parent, "apsp"), 0o700, os.geteuid())
    os.chmod(parent, 0o777)
    expect_refused(ctx, index, os.path.join(parent, "apsp"), parent,
                   "a private directory inside one of mode 777")
    missing = os.path.join(parent, "not-yet", "apsp")
    expect_refused(ctx, index, missing, parent, "a directory to make inside one of mode 777")
    st = os.stat("/tmp")
    if st.st_uid == 0 and st.st_mode & 0o1002 == 0o1002:
        cache = "/tmp/apsp-cache-trust-%d" % os.getpid()
        try:
            for want in (1, 0):
                p, built, correct = run(ctx, index, cache)
                ctx.check(p.returncode == 0 and correct and built == want and
                          not WARNING.search(p.err), "%s (inside /tmp): exit %d, built %s, "
                                                     "expected "
                          "%d: %s" % (cache, p.returncode, built, want, p.err))
            mode = os.stat(cache).st_mode & 0o7777
            ctx.check(mode == 0o700, "%s was made with mode %o, not 700" % (cache, mode))
        finally:
            shutil.rmtree(cache, ignore_errors=True)


def test_symlink_foreign(ctx, index):
    """APSP_KERNEL_CACHE naming a symbolic link (this user's) to another user's directory."""
    need_root()
    foreign = os.path.join(ctx.work, "foreign-target")
    plant(ctx, index, foreign, 0o755, OTHER_UID)
    link = os.path.join(ctx.work, "link")
    os.symlink(foreign, link)
    expect_refused(ctx, index, link, foreign, "APSP_KERNEL_CACHE, a link to a directory owned by "
                   "uid %d" % OTHER_UID, by_env=True)


def test_concurrent(ctx, index):
    """Runs at once on one warm cache (each may find another's "in use" marker): all succeed
    with the right bytes, and they leave one good cache file, no marker and no temporary file."""
    cache = os.path.join(ctx.work, "concurrent")
    names = good_cache_files(ctx, index, cache)
    src, want = ctx.case()
    running = []
    for i in range(6):
        out = os.path.join(ctx.work, "concurrent-%d.out" % i)
        cmd = [ctx.apsp, "-d", index, "--tile=32", "--kernel-cache=" + cache, src, out]
        running.append((subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=clean_env()), out))
    for proc, out in running:
        _, err = proc.communicate(timeout=300)
        right = proc.returncode == 0
        if right:
            with open(out, "rb") as f, open(want, "rb") as g:
                right = f.read() == g.read()
        ctx.check(right, "run %s: exit %d: %s" % (out, proc.returncode, err.decode()))
    ctx.check(sorted(os.listdir(cache)) == names, "left in the cache: %s" % os.listdir(cache))
    p, built, correct = run(ctx, index, cache)
    ctx.check(p.returncode == 0 and correct and built == 0,
              "after them: built %s: %s" % (built, p.err))
    # Two devices of one process with one key (two GPUs of one model; here PoCL twice): the
    # second finds the first's marker, which is its own process's, and loads the file too.
    env = clean_env(POCL_DEVICES="pthread pthread")
    twins = [d for d in ctx.devices(env) if d["backend"] == "opencl" and d["type"] == "cpu"]
    if len(twins) >= 2 and twins[0]["name"] == twins[1]["name"]:
        pair = "%d,%d" % (twins[0]["index"], twins[1]["index"])
        p, _, _, correct = ctx.solve(["-d", pair, "--tile=32", "--kernel-cache=" + cache], env)
        ctx.check(p.returncode == 0 and correct and "programs built 0" in p.err,
                  "two devices of one process, one warm key: %s" % p.err)
        ctx.check(sorted(os.listdir(cache)) == names, "left in the cache: %s" % os.listdir(cache))


def rewrite_binary(ctx, path, change):
    """The cache file with its binary changed by `change` and the SHA-256 made right again, as
    base/cache_file.h lays it out: key NUL, size (8 bytes LE), SHA-256 (32), binary."""
    with open(path, "rb") as f:
        data = f.read()
    key_end = data.index(b"\0") + 1
    binary = bytearray(data[key_end + 40:])
    ctx.check(int.from_bytes(data[key_end:key_end + 8], "little") == len(binary),
              "the cache file's layout is not base/cache_file.h's")
    change(binary)
    with open(path, "wb") as f:
        f.write(data[:key_end] + len(binary).to_bytes(8, "little") +
                hashlib.sha256(binary).digest() + bytes(binary))


def test_crashing_binary(ctx, index):
    """A cache file whose digest is right but whose binary crashes the driver: the run that
    loads it may die, the next one compiles and puts a good file in place, and the one after
    uses it. With PoCL the corruption below is known to kill the process (its binary's kernel
    count, read by an assertion: SIGABRT) without reaching PoCL's own cache; another driver may
    refuse the file instead (then the first run compiles). (The first packed file's name length,
    at offset 88, gives a SIGSEGV the same way, but only after seconds of reading.)"""
    corruptions = {"kernel count": 20}
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the crashes leave no core file
    for what, offset in corruptions.items():
        cache = os.path.join(ctx.work, "crashing")
        names = good_cache_files(ctx, index, cache)
        path = os.path.join(cache, names[0])
        pocl = []

        def corrupt(binary, offset=offset):
            pocl.append(binary.startswith(b"poclbin\0"))
            binary[offset] ^= 0x7F

        rewrite_binary(ctx, path, corrupt)
        p, built, correct = run(ctx, index, cache)
        died = p.returncode != 0  # (a signal; under ASan a SIGSEGV is its report and exit 1)
        ctx.check(died or not pocl[0], "%s: PoCL did not crash on it (exit %d, built %s): change "
                  "the corruption for this PoCL version" % (what, p.returncode, built))
        ctx.check(died or correct, "%s: exit %d, wrong output: %s" % (what, p.returncode, p.err))
        for attempt, want in ((("after the crash", 1),) if died else ()) + (("then", 0),):
            p, built, correct = run(ctx, index, cache)
            ctx.check(p.returncode == 0 and correct and built == want,
                      "%s, %s: exit %d, built %s (expected %d): %s"
                      % (what, attempt, p.returncode, built, want, p.err[-1500:]))
        leftovers = [n for n in os.listdir(cache) if not n.endswith(".clbin")]
        ctx.check(not leftovers, "%s: files left in the cache: %s" % (what, leftovers))


VICTIM_UID = 2002  # the user attacked in test_two_users: not root, so no check is bypassed


LSAN_SUPPRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan.supp")


def user_command(uid, home, args, **extra):
    """(command, environment) that run `args` as `uid` (setpriv), with `home` as its home and
    cache root. Under AddressSanitizer (CI's second build) the leaks of PoCL's compiler, which
    runs on every cold PoCL cache as this user's is, are suppressed (lsan.supp)."""
    leaks = ":".join(filter(None, [os.environ.get("LSAN_OPTIONS", ""),
                                   "suppressions=%s:print_suppressions=0" % LSAN_SUPPRESSIONS]))
    env = clean_env(HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"), LSAN_OPTIONS=leaks,
                    **extra)
    if "APSP_KERNEL_CACHE" not in extra:
        env.pop("APSP_KERNEL_CACHE", None)
    return ["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups"] + args, env


def as_user(uid, home, args, **extra):
    """apsp run by `uid` to its end (user_command)."""
    cmd, env = user_command(uid, home, args, **extra)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


def test_two_users(ctx, index):
    """Issue 25's attack with two unprivileged users: uid 2001 owns a sticky directory open to
    all (mode 1777) and puts there a cache file valid in every way (key, digest, binary: the one
    uid 2002's own run wrote); uid 2002 runs `APSP_KERNEL_CACHE=that-dir apsp ...`. apsp must
    compile instead (programs built 1) and write nothing there. The victim's own cache, in its
    home, still serves it (programs built 0)."""
    need_root()
    if not shutil.which("setpriv"):
        pytest.skip("needs setpriv (util-linux) to run as other users")
    top = tempfile.mkdtemp(prefix="apsp-two-users-")
    try:
        os.chmod(top, 0o755)
        home, shared = os.path.join(top, "victim"), os.path.join(top, "shared")
        os.mkdir(home, 0o700)
        os.chown(home, VICTIM_UID, VICTIM_UID)
        src = os.path.join(home, "graph.in")
        shutil.copyfile(ctx.case()[0], src)
        os.chown(src, VICTIM_UID, VICTIM_UID)
        out = os.path.join(home, "out.bin")
        with open(ctx.case()[1], "rb") as f:
            want = f.read()

        def victim(cache):
            extra = {} if cache is None else {"APSP_KERNEL_CACHE": cache}
            p = as_user(VICTIM_UID, home, [ctx.apsp, "-v", "-d", index, "--tile=32", src, out],
                        **extra)
            m = re.search(r"programs built (\d+)", p.stderr)
            with open(out, "rb") as f:
                right = p.returncode == 0 and f.read() == want
            return p, int(m[1]) if m else None, right

        p, built, right = victim(None)
        ctx.check(right and built == 1, "uid %d's cold cache: exit %d, built %s: %s"
                  % (VICTIM_UID, p.returncode, built, p.stderr))
        p, built, right = victim(None)
        ctx.check(right and built == 0, "uid %d's own cache was not used: built %s: %s"
                  % (VICTIM_UID, built, p.stderr))
        own = os.path.join(home, ".cache", "apsp")
        names = [n for n in os.listdir(own) if n.endswith(".clbin")]
        os.mkdir(shared)
        for name in names:
            shutil.copyfile(os.path.join(own, name), os.path.join(shared, name))
            os.chown(os.path.join(shared, name), OTHER_UID, OTHER_UID)
        os.chown(shared, OTHER_UID, OTHER_UID)
        os.chmod(shared, 0o1777)
        before = snapshot(shared)
        p, built, right = victim(shared)
        ctx.check(right, "uid %d with uid %d's cache: exit %d: %s"
                  % (VICTIM_UID, OTHER_UID, p.returncode, p.stderr))
        ctx.check(built == 1, "uid %d loaded the cache file that uid %d planted (programs built %s)"
                  % (VICTIM_UID, OTHER_UID, built))
        ctx.check(len(WARNING.findall(p.stderr)) == 1,
                  "no 'kernel cache' line under -v: %s" % p.stderr)
        ctx.check(snapshot(shared) == before, "uid %d wrote into uid %d's directory"
                  % (VICTIM_UID, OTHER_UID))
    finally:
        shutil.rmtree(top, ignore_errors=True)


def has_fault_injection(ctx):
    """Whether this apsp was built with -Dfault_injection=true (APSP_FAULT_PAUSE works)."""
    p = ctx.run(["--backend=cpu", ctx.case()[0], "/dev/null"], clean_env(APSP_FAULT_COUNT="1"))
    return "apsp-fault:" in p.err


def test_dir_swapped(ctx, index):
    """Issue 36.8: the cache directory to make, `shared/cache/apsp`, lies in a root-owned sticky
    directory (as /tmp). uid 2002's run checks it (shared is trusted, the rest missing) and stops
    (APSP_FAULT_PAUSE=cache-dir); uid 2001 then puts `shared/cache` there, a link to a directory
    of its own that all may write. The directories must be made relative to the checked one,
    never through the link: nothing appears in uid 2001's directory, and the run compiles
    (programs built 1) with the right output. Before: `apsp` made in uid 2001's directory
    (where fs.protected_symlinks is 0; where it is 1 the kernel refused to follow the link)."""
    need_root()
    if not shutil.which("setpriv"):
        pytest.skip("needs setpriv (util-linux) to run as other users")
    if not has_fault_injection(ctx):
        pytest.skip("needs -Dfault_injection=true (APSP_FAULT_PAUSE)")
    top = tempfile.mkdtemp(prefix="apsp-dir-swapped-")
    try:
        os.chmod(top, 0o755)
        home, shared, theirs = (os.path.join(top, n) for n in ("victim", "shared", "theirs"))
        os.mkdir(home, 0o700)
        os.chown(home, VICTIM_UID, VICTIM_UID)
        os.mkdir(shared)
        os.chmod(shared, 0o1777)  # root's, as /tmp
        os.mkdir(theirs)
        os.chown(theirs, OTHER_UID, OTHER_UID)
        os.chmod(theirs, 0o777)
        src, out = os.path.join(home, "graph.in"), os.path.join(home, "out.bin")
        shutil.copyfile(ctx.case()[0], src)
        os.chown(src, VICTIM_UID, VICTIM_UID)
        cache = os.path.join(shared, "cache", "apsp")
        cmd, env = user_command(VICTIM_UID, home, [ctx.apsp, "-v", "-d", index, "--tile=32",
                                                   "--kernel-cache=" + cache, src, out],
                                APSP_FAULT_PAUSE="cache-dir")
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        stopped = os.WIFSTOPPED(status)
        if stopped:
            ln = as_user(OTHER_UID, theirs, ["ln", "-s", theirs, os.path.join(shared, "cache")])
            ctx.check(ln.returncode == 0,
                      "uid %d could not plant the link: %s" % (OTHER_UID, ln.stderr))
            os.kill(proc.pid, signal.SIGCONT)
            err = proc.communicate(timeout=300)[1]
            code = proc.returncode
        else:
            err, code = proc.stderr.read(), os.waitstatus_to_exitcode(status)
        ctx.check(stopped, "the run did not stop before making the cache directory: exit %d: %s"
                  % (code, err))
        with open(ctx.case()[1], "rb") as f, open(out, "rb") as g:
            right = code == 0 and f.read() == g.read()
        m = re.search(r"programs built (\d+)", err)
        ctx.check(right and m and m[1] == "1", "exit %d, built %s: %s" % (code, m and m[1], err))
        made = os.listdir(theirs)
        ctx.check(not made, "the directory was made through uid %d's link: %s in %s"
                  % (OTHER_UID, made, theirs))
    finally:
        shutil.rmtree(top, ignore_errors=True)

