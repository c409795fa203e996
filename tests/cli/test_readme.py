"""README.md's snippets marked <!-- run --> (sh) and <!-- run: NAME --> (a file to write), run
exactly as printed, in order, in a fresh folder: the command, apsp-mpi under mpirun on 2 ranks,
and the C program compiled with the pkg-config path and RPATH lines the README shows.

The environment is what tools/setup.sh leaves: the build installed (tools/install.sh, into a
temporary DESTDIR here) with its bin on PATH, and HOME such that the README's
$HOME/.local/lib/x86_64-linux-gnu/pkgconfig holds the installed apsp.pc (its prefix pointed at
the DESTDIR copy). As root, the OMPI_ALLOW_RUN_AS_ROOT variables the README names are set.

    pytest_main.py test_readme.py --exe install-sh INSTALL_SH --build-root=BUILD_ROOT
        --source-root=SOURCE_ROOT [--opt=sanitize=B_SANITIZE]
"""
import os
import re
import subprocess
import sys

from sanitizers import leak_env

def snippets(readme):
    """(name or None, language, text) of each block after a run marker, in order."""
    text = open(readme, encoding="utf-8").read()
    pattern = r"<!-- run(?:: ([\w.]+))? -->\n```(\w+)\n(.*?)```\n"
    return [(m.group(1), m.group(2), m.group(3)) for m in re.finditer(pattern, text, re.S)]


def install(install_sh, build, scratch, home):
    """The build installed under scratch/root; returns its bin folder. The installed apsp.pc,
    prefix redirected to the copy, goes where the README's PKG_CONFIG_PATH looks."""
    root = os.path.join(scratch, "root")
    subprocess.run(["bash", install_sh, build, "--no-rebuild", "--destdir", root], check=True)
    pcs = [os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f == "apsp.pc"]
    text = open(pcs[0]).read()
    prefix = re.search(r"^prefix=(.*)$", text, re.M).group(1)
    pkgconfig = os.path.join(home, ".local", "lib", "x86_64-linux-gnu", "pkgconfig")
    os.makedirs(pkgconfig)
    with open(os.path.join(pkgconfig, "apsp.pc"), "w") as f:
        f.write(text.replace("prefix=" + prefix, "prefix=" + root + prefix, 1))
    return os.path.join(root + prefix, "bin")


def python_with_numpy(path):
    """The folder of the first python3 with NumPy, this test's own first, then PATH's (the
    README's last line reads dist.npy with NumPy, as a user with NumPy would)."""
    for folder in [os.path.dirname(sys.executable)] + path.split(":") + ["/usr/bin"]:
        python = os.path.join(folder, "python3")
        if os.access(python, os.X_OK) and subprocess.run(
                [python, "-c", "import numpy"], capture_output=True).returncode == 0:
            return folder
    return os.path.dirname(sys.executable)


def test_readme(exe, opt, source_root, build_root, work, check):
    install_sh, build, source = exe["install-sh"], build_root, source_root
    sanitize = opt.get("sanitize", "none")
    blocks = snippets(os.path.join(source, "README.md"))
    check(len(blocks) >= 4, "README.md marks %d snippets to run" % len(blocks))
    scratch = work
    home, work = os.path.join(scratch, "home"), os.path.join(scratch, "work")
    os.makedirs(home)
    os.makedirs(work)
    os.symlink(os.path.join(source, "testcases"), os.path.join(work, "testcases"))
    bindir = install(install_sh, build, scratch, home)
    # A user's shell: the installed bin first, then the python3 running this test (the one
    # with NumPy that meson found), then the caller's PATH (where its MPI finds its launcher
    # agent), with the caller's Open MPI settings and a fresh HOME.
    caller = os.environ.get("PATH", "/usr/bin:/bin")
    path = ":".join([bindir, python_with_numpy(caller), caller])
    # leak_env: Open MPI's own leaks suppressed under CI's AddressSanitizer build.
    env = leak_env({"HOME": home, "PATH": path, "LANG": "C.UTF-8"})
    mpi_settings = ("OMPI_", "PRTE_", "PMIX_")
    env.update((k, v) for k, v in os.environ.items() if k.startswith(mpi_settings))
    if os.getuid() == 0:  # what the README says root needs
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for name, language, text in blocks:
        if name:
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
            continue
        check(language == "sh", "a run snippet is sh: %s" % language)
        if "apsp-mpi" in text and not os.path.exists(os.path.join(bindir, "apsp-mpi")):
            print("skip (built without MPI): %s" % text.strip())
            continue
        if sanitize != "none" and text.lstrip().startswith("export PKG_CONFIG_PATH"):
            # the README's cc line, with the runtime the sanitized library needs
            text = text.replace("cc solve.c", "cc -fsanitize=%s solve.c" % sanitize)
        p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=work, env=env,
                           capture_output=True, text=True, timeout=300)
        first = text.strip().splitlines()[0]
        check(p.returncode == 0, "%s...: exit %d %s" % (first[:60], p.returncode,
                                                         p.stderr.strip()[-300:]))
        if "--path=0,2" in text:
            check("0 4 5\ninf 0 1\ninf inf 0\n" in p.stdout and "length 5: 0 -> 1 -> 2"
                  in p.stdout, "the command's lines: %r" % p.stdout)
        if "./solve" in text:
            check(p.stdout.strip() == "[0 4 5]", "the C program's dist.npy: %r" % p.stdout)
