"""The one harness of the Python tests under tests/ (tests/python/ has its own conftest.py): a
pytest plugin, loaded by tests/support/pytest_main.py (`-p harness`), with the options meson
passes to a test file, the fixtures and helpers the files share, and the exit status meson reads.

Options (written after the file in meson.build):
    --apsp=PATH          the apsp command: fixture `apsp` runs it, `apsp_path` is its path
    --apsp-arg=ARG       added to each solving run of `apsp` (e.g. --apsp-arg=--backend=opencl)
    --testcases=DIR      testcases/ (fixture `testcases`; the source tree's by default)
    --source-root=DIR    the source tree (fixture `source_root`; this file's by default)
    --build-root=DIR     the build tree (fixture `build_root`)
    --exe NAME PATH      another program or file a test runs (fixture `exe`: exe["gen-graph"]);
                         two arguments, so that meson.build can pass a target as the PATH
    --opt=NAME=VALUE     a file's own setting (fixture `opt`: opt.get("graphs", "60"))

Fixtures: `check` (a soft check: each failed check prints "FAIL: what" and fails the test at its
end, after the test's other checks ran; check.report also prints those that pass), `work` (a
temporary directory of the test's own), `device` (the OpenCL device type of --opt=device, the
test skipped without one);
random graphs: a test that takes `case` runs once per graph, --opt=graphs=N times (default its
module's GRAPHS), and `rng` is that case's random.Random, drawn from --opt=seed=S (default 1;
"time": a new seed, printed in each case's name, so that a failed case can be run again).

Exit status: pytest's, except that a run whose every test was skipped exits 77, meson's skip.
`skip(reason)` fails instead where APSP_TEST_REQUIRE_DEVICE=1 (CI: every skip is a failure);
`need(module, package)` imports an oracle (NumPy, SciPy, NetworkX) or skips the file that way."""
import importlib
import os
import random
import subprocess
import tempfile

import pytest

EXIT_SKIPPED = 77
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXIT_USAGE, EXIT_INPUT, EXIT_OUTPUT, EXIT_MEMORY, EXIT_DEVICE = 2, 3, 4, 5, 6
EXIT_NEGATIVE_CYCLE = 7


def pytest_addoption(parser):
    group = parser.getgroup("apsp", "apsp's test harness (tests/support/harness.py)")
    group.addoption("--apsp", help="the apsp command")
    group.addoption("--apsp-arg", action="append", default=[], metavar="ARG",
                    help="an argument added to each solving run of --apsp")
    group.addoption("--testcases", default=os.path.join(SOURCE_ROOT, "testcases"),
                    help="the folder of NAME.in and NAME.out (default: the source tree's)")
    group.addoption("--source-root", default=SOURCE_ROOT, help="the source tree")
    group.addoption("--build-root", help="the build tree")
    group.addoption("--exe", action="append", default=[], nargs=2, metavar=("NAME", "PATH"),
                    help="another program or file the test file runs")
    group.addoption("--opt", action="append", default=[], metavar="NAME=VALUE",
                    help="a setting of the test file's own")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """Every test skipped (or the whole file, at import): meson's skip, 77."""
    stats = session.config.pluginmanager.get_plugin("terminalreporter").stats
    if exitstatus in (0, 5) and stats.get("skipped") and not stats.get("passed"):
        session.exitstatus = EXIT_SKIPPED


def skip(reason):
    """Skips the test (or at import the whole file); a failure where APSP_TEST_REQUIRE_DEVICE=1."""
    __tracebackhide__ = True
    if os.environ.get("APSP_TEST_REQUIRE_DEVICE") == "1":
        pytest.fail("APSP_TEST_REQUIRE_DEVICE=1: a skip is a failure: " + reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def need(module, package):
    """The module imported, else the test (at import: the file) skipped by skip()."""
    __tracebackhide__ = True
    try:
        return importlib.import_module(module)
    except ImportError as error:
        skip("%s (install %s)" % (error, package))


class Checks:
    """check(ok, what): counts ok, prints and keeps a failure; returns ok, so that a test can
    leave out what depends on a failed check."""

    def __init__(self):
        self.passed = 0
        self.failures = []

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.fail(what)
        return ok

    def fail(self, what):
        """A failed check (the test goes on)."""
        self.failures.append(what)
        print("FAIL: " + what, flush=True)

    def report(self, what, ok, detail=""):
        """check(ok, "what (detail)"), printed when it passes too; ok None: a part of the test
        that cannot run here, printed as SKIP (pytest.skip ends the whole test)."""
        text = "%s (%s)" % (what, detail) if detail else what
        if ok is None:
            print("SKIP: " + text, flush=True)
        elif self(ok, text):
            print("ok: " + text, flush=True)
        return ok


@pytest.fixture
def check():
    return Checks()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test whose `check` saw a failure fails, each failure named in the report (also when it
    then skipped the rest)."""
    outcome = yield
    report = outcome.get_result()
    checks = getattr(item, "funcargs", {}).get("check")
    if call.when == "call" and isinstance(checks, Checks) and checks.failures and not report.failed:
        report.outcome = "failed"
        report.longrepr = "%d of %d checks failed:\n%s" % (
            len(checks.failures), len(checks.failures) + checks.passed,
            "\n".join("FAIL: " + what for what in checks.failures))


@pytest.fixture
def work():
    """A fresh temporary directory (a str), removed after the test (pytest's tmp_path keeps the
    last runs' files, which the long runs' outputs would fill a disk with). Mode 0755: the runs
    as another user (the tests that need root) must reach their folders in it."""
    with tempfile.TemporaryDirectory(prefix="apsp-test-") as directory:
        os.chmod(directory, 0o755)
        yield directory


@pytest.fixture(scope="session")
def exe(request):
    return {name: os.path.abspath(path) for name, path in request.config.getoption("exe")}


def options(config):
    """The --opt NAME=VALUE settings, a dict (pytest_generate_tests has no fixtures)."""
    pairs = {}
    for value in config.getoption("opt"):
        name, equals, rest = value.partition("=")
        if not equals:
            raise pytest.UsageError("--opt=%s: expected NAME=VALUE" % value)
        pairs[name] = rest
    return pairs


@pytest.fixture(scope="session")
def opt(request):
    return options(request.config)


def seed_of(config):
    if not hasattr(config, "_apsp_seed"):
        seed = options(config).get("seed", "1")
        config._apsp_seed = random.randrange(1 << 30) if seed == "time" else int(seed)
    return config._apsp_seed


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        graphs = int(options(metafunc.config).get("graphs", getattr(metafunc.module, "GRAPHS", 1)))
        seed = seed_of(metafunc.config)
        metafunc.parametrize("case", range(graphs), ids=lambda c: "seed%d-case%d" % (seed, c))


@pytest.fixture
def rng(request, case):
    """The random numbers of one case: the same for the same seed and case, whatever ran before."""
    return random.Random("%d:%d" % (seed_of(request.config), case))


@pytest.fixture(scope="session")
def testcases(request):
    return os.path.abspath(request.config.getoption("testcases"))


@pytest.fixture(scope="session")
def source_root(request):
    return os.path.abspath(request.config.getoption("source_root"))


def _required_path(request, name, usage):
    path = request.config.getoption(name)
    if not path:
        raise pytest.UsageError("this test file needs " + usage)
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def build_root(request):
    return _required_path(request, "build_root", "--build-root=DIR")


@pytest.fixture(scope="session")
def apsp_path(request):
    return _required_path(request, "apsp", "--apsp=PATH, the apsp command")


@pytest.fixture(scope="session")
def apsp(request, apsp_path):
    return Apsp(apsp_path, request.config.getoption("apsp_arg"))


class Apsp:
    """The apsp command, with `extra` arguments added to each solving run."""

    TIMEOUT = 300

    def __init__(self, exe, extra=()):
        self.exe = exe
        self.extra = list(extra)

    def run(self, args, solve=True, **kw):
        cmd = [self.exe] + (self.extra if solve else []) + args
        kw.setdefault("stdin", subprocess.DEVNULL)
        kw.setdefault("timeout", self.TIMEOUT)
        return subprocess.run(cmd, capture_output=True, **kw)


def has_device(apsp, kind):
    """`apsp --list-devices` lists an OpenCL device of the type (cpu, gpu)."""
    listing = subprocess.run([apsp, "--list-devices"], capture_output=True, text=True).stdout
    return "[%s] (opencl backend)" % kind in listing


@pytest.fixture(scope="session")
def device(apsp_path, opt):
    """The OpenCL device type of --opt=device=cpu|gpu (default cpu); the file's tests skipped
    without one (on every machine: the GPU host's suite runs the gpu ones)."""
    kind = opt.get("device", "cpu")
    if kind not in ("cpu", "gpu"):
        raise pytest.UsageError("--opt=device=%s: cpu or gpu" % kind)
    if not has_device(apsp_path, kind):
        pytest.skip("no OpenCL %s device" % kind)
    return kind


def one_error_line(p, program=b"apsp"):
    """The run's stderr is one line that starts with the program's name."""
    err = p.stderr if isinstance(p.stderr, bytes) else p.stderr.encode()
    return err.startswith(program + b": ") and err.endswith(b"\n") and err.count(b"\n") == 1


def describe(p):
    """A finished run in a few words: its exit status and the start of its stderr."""
    err = p.stderr.decode(errors="replace") if isinstance(p.stderr, bytes) else p.stderr
    return "exit %d, stderr %r" % (p.returncode, err[:300])
