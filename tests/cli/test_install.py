"""The installed command runs on its own (issue 28, item 8; python3 standard library only).

    pytest_main.py test_install.py --exe install-sh INSTALL_SH --build-root=BUILD
        --opt=version=VERSION --testcases=TESTCASES

Installs the build with tools/install.sh (what tools/setup.sh runs) into a temporary DESTDIR,
then runs the installed `apsp` from outside the source and build trees with LD_LIBRARY_PATH
unset: `--version` must name VERSION, and a solve of example.in must write example.out's
bytes (testcases/, the oracle's). A command that needed the build tree's shared library, or a
file installed elsewhere, fails here. The installed include folder must hold every header of the
source's include/ (install_headers in meson.build), and a C11 program that includes any one of
them alone must compile against the whole API (docs/api.md: apsp.h includes the others, and
each of them includes apsp.h).
"""
import os
import subprocess
import tempfile

import pytest


def installed_commands(root, name):
    """Every file NAME in a bin folder under root (one is expected)."""
    return [os.path.join(folder, name) for folder, _, files in os.walk(root)
            if os.path.basename(folder) == "bin" and name in files]


# One function of each header: a program that includes any one header sees all three.
USES_EVERY_HEADER = """
int main(void) {
    (void)apsp_solve;
    (void)apsp_read_graph;
    (void)apsp_solver_solve_sources;
    const char *names[] = {apsp_status_name(APSP_OK), apsp_format_name(APSP_FORMAT_HW3),
                           apsp_method_name(APSP_METHOD_DIJKSTRA)};
    return names[0] && names[1] && names[2] ? 0 : 1;
}
"""


def check_headers(root, source_include):
    """The problems of the installed headers: one missing, or one that alone does not compile."""
    folders = [folder for folder, _, files in os.walk(root) if "apsp.h" in files]
    if len(folders) != 1:
        return ["expected one installed include folder with apsp.h under %s, found %s"
                % (root, folders)]
    headers = sorted(name for name in os.listdir(source_include) if name.endswith(".h"))
    problems = ["%s is not installed" % name for name in headers
                if not os.path.exists(os.path.join(folders[0], name))]
    for name in headers:
        program = "#include <%s>\n%s" % (name, USES_EVERY_HEADER)
        compiled = subprocess.run(
            [os.environ.get("CC", "cc"), "-std=c11", "-Wall", "-Werror", "-fsyntax-only",
             "-I", folders[0], "-x", "c", "-"],
            input=program, capture_output=True, text=True)
        if compiled.returncode != 0:
            problems.append("a program that includes only %s does not compile:\n%s"
                            % (name, compiled.stderr))
    return problems


@pytest.fixture(scope="module")
def installed(exe, build_root):
    """(the temporary folder, the DESTDIR root in it) with the build installed (tools/install.sh,
    which tools/setup.sh runs)."""
    with tempfile.TemporaryDirectory(prefix="apsp-install-") as scratch:
        root = os.path.join(scratch, "root")
        subprocess.run(["bash", exe["install-sh"], build_root, "--no-rebuild", "--destdir", root],
                       check=True)
        yield scratch, root


def test_command(installed, opt, testcases):
    """The installed apsp: --version names VERSION; a solve of example.in gives example.out's
    bytes, from outside the trees, without LD_LIBRARY_PATH; its man page and completions beside
    it."""
    scratch, root = installed
    version = opt["version"]
    commands = installed_commands(root, "apsp")
    assert len(commands) == 1, "expected one installed bin/apsp under %s, found %s" % (
        root, commands)
    apsp = commands[0]
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    shown = subprocess.run([apsp, "--version"], cwd=scratch, env=env, capture_output=True,
                           text=True)
    assert shown.returncode == 0 and shown.stdout.split() == ["apsp", version], (
        "%s --version: exit %d, %r %r" % (apsp, shown.returncode, shown.stdout, shown.stderr))
    out = os.path.join(scratch, "example.out")
    solved = subprocess.run([apsp, os.path.join(testcases, "example.in"), out], cwd=scratch,
                            env=env, capture_output=True, text=True)
    expected = open(os.path.join(testcases, "example.out"), "rb").read()
    assert solved.returncode == 0 and open(out, "rb").read() == expected, (
        "%s example.in: exit %d, %r; output %s testcases/example.out"
        % (apsp, solved.returncode, solved.stderr,
           "differs from" if os.path.exists(out) else "missing, not"))
    prefix = os.path.dirname(os.path.dirname(apsp))
    extras = [os.path.join("share", "man", "man1", "apsp.1"),
              os.path.join("share", "bash-completion", "completions", "apsp"),
              os.path.join("share", "zsh", "site-functions", "_apsp")]
    missing = [e for e in extras if not os.path.isfile(os.path.join(prefix, e))]
    # man-db finds PREFIX/share/man for PREFIX/bin on PATH; bash-completion looks in
    # ~/.local/share/bash-completion/completions
    assert not missing, "not installed beside bin/apsp: %s" % missing


def test_headers(installed, source_root):
    """Every header of include/ installed, each compiling alone against the whole API."""
    problems = check_headers(installed[1], os.path.join(source_root, "include"))
    assert not problems, "\n".join(problems)
