#!/usr/bin/env python3
"""The installed command runs on its own (issue 28, item 8; python3 standard library only).

    test_install.py INSTALL_SH BUILD VERSION TESTCASES

Installs the build with tools/install.sh (what tools/setup.sh runs) into a temporary DESTDIR,
then runs the installed `apsp` from outside the source and build trees with LD_LIBRARY_PATH
unset: `--version` must name VERSION, and a solve of example.in must write example.out's
bytes (testcases/, the oracle's). A command that needed the build tree's shared library, or a
file installed elsewhere, fails here. The installed include folder must hold every header of the
source's include/ (install_headers in meson.build), and a C11 program that includes any one of
them alone must compile against the whole API (docs/api.md: apsp.h includes the others, and
each of them includes apsp.h). Exit status: 0 passed, 1 a failure.
"""
import os
import subprocess
import sys
import tempfile


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


def main():
    install_sh, build, version, testcases = sys.argv[1:5]
    with tempfile.TemporaryDirectory(prefix="apsp-install-") as scratch:
        root = os.path.join(scratch, "root")
        subprocess.run(["bash", install_sh, build, "--no-rebuild", "--destdir", root],
                       check=True)
        commands = installed_commands(root, "apsp")
        if len(commands) != 1:
            print("FAIL: expected one installed bin/apsp under %s, found %s" % (root, commands))
            return 1
        apsp = commands[0]
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        shown = subprocess.run([apsp, "--version"], cwd=scratch, env=env, capture_output=True,
                               text=True)
        if shown.returncode != 0 or shown.stdout.split() != ["apsp", version]:
            print("FAIL: %s --version: exit %d, %r %r"
                  % (apsp, shown.returncode, shown.stdout, shown.stderr))
            return 1
        out = os.path.join(scratch, "example.out")
        solved = subprocess.run([apsp, os.path.join(testcases, "example.in"), out], cwd=scratch,
                                env=env, capture_output=True, text=True)
        expected = open(os.path.join(testcases, "example.out"), "rb").read()
        if solved.returncode != 0 or open(out, "rb").read() != expected:
            print("FAIL: %s example.in: exit %d, %r; output %s testcases/example.out"
                  % (apsp, solved.returncode, solved.stderr,
                     "differs from" if os.path.exists(out) else "missing, not"))
            return 1
        print("ok: %s (%s) solved example.in as testcases/example.out, no LD_LIBRARY_PATH"
              % (os.path.relpath(apsp, root), shown.stdout.strip()))
        prefix = os.path.dirname(os.path.dirname(apsp))
        extras = [os.path.join("share", "man", "man1", "apsp.1"),
                  os.path.join("share", "bash-completion", "completions", "apsp"),
                  os.path.join("share", "zsh", "site-functions", "_apsp")]
        missing = [e for e in extras if not os.path.isfile(os.path.join(prefix, e))]
        if missing:  # man-db finds PREFIX/share/man for PREFIX/bin on PATH; bash-completion
            # looks in ~/.local/share/bash-completion/completions
            print("FAIL: not installed beside bin/apsp: %s" % missing)
            return 1
        print("ok: %s installed" % ", ".join(extras))
        source_include = os.path.join(os.path.dirname(os.path.abspath(testcases)), "include")
        problems = check_headers(root, source_include)
        for problem in problems:
            print("FAIL: " + problem)
        if problems:
            return 1
        print("ok: %s installed; each compiles alone against the whole API"
              % ", ".join(sorted(n for n in os.listdir(source_include) if n.endswith(".h"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
