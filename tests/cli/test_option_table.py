"""The one option table (src/cli/option_table.c) and everything made of it agree: apsp's and
apsp-mpi's --help and --help=all, docs/usage.md's option tables, the man pages, and the bash
completion (driven through its completion function, as bash's programmable completion calls it)
and the zsh one's syntax.
Also the messages for an unknown, misspelt or ambiguous option, the choices of every option
that takes one word of a list (each accepted, a wrong one refused with the list), and the Python
Solver's keywords: the options the table marks as Solver keywords, each in its docstring, a
number refused outside the option's range and a word outside its list, naming them.

    test_option_table.py [--python=PYTHON --extension=_core.so] DOCS_TOOL DOCS_DIR SOURCE_ROOT
                         APSP [APSP_MPI]

DOCS_TOOL is build/src/cli/docs/apsp-option-docs, which prints the table's Markdown; DOCS_DIR
the folder of the man pages and completions it made at build time. PYTHON and the extension
built for it (build/src/python/_core*.so) give the Solver, as the package of src/python/apsp/
with that extension; without them (a build without the Python package) its check is skipped.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from sanitizers import leak_env  # noqa: E402

failures = []


def check(ok, what):
    print("%-4s %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def run(args, **kw):
    # leak_env: Open MPI's own leaks (apsp-mpi) suppressed under CI's AddressSanitizer build.
    env = leak_env(dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, **kw)


def table_options(tool, command):
    """The options of the table's Markdown: {name: (spelling, choices or None)}."""
    rows = run([tool, "markdown", command]).stdout.splitlines()[2:]
    options = {}
    for row in rows:
        spelling = row.split("` | ")[0][3:].replace("\\|", "|")
        name = re.search(r"--([\w-]+)", spelling).group(1)
        value = spelling.split("=", 1)[1].rstrip("]") if "=" in spelling else None
        choices = value.split("|") if value and "|" in value else None
        options[name] = (spelling, choices)
    return options


def between_markers(text, name):
    return text.split("<!-- %s begin -->\n" % name, 1)[1].split("<!-- %s end -->" % name, 1)[0]


def check_help(program, command, options):
    full = run(program + ["--help=all"]).stdout
    part = full.split("\noptions:\n", 1)[-1].split("\nAn option that takes a value", 1)[0]
    listed = re.findall(r"^ +(?:-\w, )?--([\w-]+)", part, re.M)
    check(sorted(listed) == sorted(options),
          "%s --help=all lists the table's %d options (only in --help=all: %s, only in the table: "
          "%s)" % (command, len(options), sorted(set(listed) - set(options)),
                   sorted(set(options) - set(listed))))
    for name, (spelling, _) in options.items():
        if not re.search(r"^ +%s$" % re.escape(spelling), full, re.M):
            check(False, "%s --help=all spells --%s as the table: %s" % (command, name, spelling))
    short = run(program + ["--help"]).stdout
    lines = short.splitlines()
    check(len(lines) <= 25 and max(len(line) for line in lines) <= 80,
          "%s --help: %d lines, the longest %d columns (at most 25 and 80)"
          % (command, len(lines), max(len(line) for line in lines)))
    check("docs/usage.md" in short and "--help=all" in short,
          "%s --help points to docs/usage.md and --help=all" % command)
    check(all(len(line) <= 80 for line in full.splitlines()),
          "%s --help=all within 80 columns" % command)


def check_docs(tool, root, command, marker):
    usage = open(os.path.join(root, "docs", "usage.md"), encoding="utf-8").read()
    generated = run([tool, "markdown", command]).stdout
    check(between_markers(usage, marker) == generated,
          "docs/usage.md's %s table is the table's (regenerate it with `%s markdown %s`)"
          % (marker, os.path.basename(tool), command))


def check_messages(apsp, mpi):
    cases = [([apsp, "--ver", "a", "b"], "apsp: --ver is ambiguous: it could be --vertices, "
              "--verbose or --version"),
             ([apsp, "--tiel=3", "a", "b"], "did you mean --tile?"),
             ([apsp, "--outptu-format=text", "a", "b"], "did you mean --output-format?"),
             ([apsp, "--grid=2x1", "a", "b"], "--grid: unknown option (an apsp-mpi option)"),
             ([apsp, "--zzzz", "a", "b"], "apsp: --zzzz: unknown option (see apsp --help)"),
             ([apsp, "--tile=0", "a", "b"], "--tile=0: expected a whole number from 1 to 1024"),
             ([apsp, "--tile"], "--tile needs a value"),
             ([apsp, "--list-devices=3"], "--list-devices takes no value"),
             ([apsp, "-x", "a", "b"], "apsp: -x: unknown option"),
             ([apsp, "--help=most"], "--help=most: expected all")]
    if mpi:
        cases += [([mpi, "--ver", "a", "b"], "apsp-mpi: --ver is ambiguous: it could be --verbose "
                   "or --version"),
                  ([mpi, "--threads=0", "a", "b"], "--threads=0: expected a whole number from 1 "
                   "to 4096"),
                  ([mpi, "--sources=1", "a", "b"], "--sources: unknown option (an apsp option)"),
                  # a value that is no number at all, empty or with text after it: refused by the
                  # same check as apsp's (option_int), not read as 0 or as its leading digits
                  ([mpi, "--threads=", "a", "b"], "--threads=: expected a whole number from 1 to "
                   "4096"),
                  ([mpi, "--tile=x", "a", "b"], "--tile=x: expected a whole number from 1 to 1024"),
                  ([mpi, "--tile=64k", "a", "b"], "--tile=64k: expected a whole number"),
                  ([mpi, "--backend=gpu", "a", "b"], "--backend=gpu: expected auto, cpu or opencl")]
    for args, needle in cases:
        p = run(args)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and needle in lines[0],
              "%s -> exit %d, %s" % (" ".join(os.path.basename(a) for a in args), p.returncode,
                                     lines))
    p = run([apsp, "--verb", "--version"])
    check(p.returncode == 0, "an abbreviation naming one option is taken (--verb), as getopt does")


def check_choices(program, command, options):
    for name, (_, choices) in options.items():
        if not choices or name == "kernel-cache":
            continue
        for choice in choices:
            p = run(program + ["--%s=%s" % (name, choice), "--version"])
            check(p.returncode == 0, "%s --%s=%s is accepted" % (command, name, choice))
        p = run(program + ["--%s=bogus" % name, "--version"])
        listed = " or ".join([", ".join(choices[:-1]), choices[-1]]) if len(choices) > 1 \
            else choices[0]
        check(p.returncode == 2 and listed in p.stderr,
              "%s --%s=bogus is refused, naming %s: %s" % (command, name, listed, p.stderr.strip()))


def check_man(docs, command, options):
    if not shutil.which("man") or not shutil.which("nroff"):  # a minimized system's man
        print("skip the man page checks: no man or nroff here")
        return
    page = os.path.join(docs, command + ".1")
    p = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                       env=dict(os.environ, MANWIDTH="80"))
    text = re.sub(r".\x08", "", p.stdout)
    missing = [n for n in options if "--" + n not in text]
    check(p.returncode == 0 and not p.stderr and not missing,
          "man -l %s: renders without warnings and names every option (missing %s; %s)"
          % (command + ".1", missing, p.stderr.strip()[:200]))
    with tempfile.TemporaryDirectory() as prefix:
        # man-db adds PREFIX/share/man for PREFIX/bin on PATH (manpath(5)): ~/.local's pages are
        # found once ~/.local/bin is on PATH, with no MANPATH.
        os.makedirs(os.path.join(prefix, "bin"))
        os.makedirs(os.path.join(prefix, "share", "man", "man1"))
        shutil.copy(page, os.path.join(prefix, "share", "man", "man1"))
        env = {k: v for k, v in os.environ.items() if k != "MANPATH"}
        env["PATH"] = os.path.join(prefix, "bin") + ":" + env.get("PATH", "/usr/bin")
        p = subprocess.run(["man", "-w", command], capture_output=True, text=True, env=env)
        want = os.path.join(prefix, "share", "man", "man1", command + ".1")
        check(p.stdout.strip() == want, "man -w %s with PREFIX/bin on PATH: %s (want %s)"
              % (command, p.stdout.strip() or p.stderr.strip(), want))


def complete(script, function, words, breaks=True):
    """COMPREPLY of the completion function for the command line `words` (the last is the word
    at the cursor), split as bash splits it: at '=' too unless breaks is False."""
    split = []
    for w in words:
        if breaks and "=" in w and w.startswith("--"):
            name, value = w.split("=", 1)
            split += [name, "="] + ([value] if value else [])
        else:
            split.append(w)
    quoted = " ".join("'%s'" % w for w in split)
    body = ("source '%s'\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n%s\nprintf '%%s\\n' \"${COMPREPLY[@]}\""
            % (script, quoted, len(split) - 1, function))
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", body], capture_output=True,
                       text=True, cwd=os.path.dirname(script))
    return p.stdout.split()


def check_bash(docs, command):
    script = os.path.join(docs, command)
    function = "_" + command.replace("-", "_")
    shown = "source '%s' && complete -p %s" % (script, command)
    p = subprocess.run(["bash", "--norc", "-c", shown], capture_output=True, text=True)
    check(p.stdout.strip() == "complete -F %s %s" % (function, command),
          "bash: sourcing the file registers %s: %s" % (function, p.stdout.strip() or p.stderr))
    word, want = ("--gr", "--grid=") if command == "apsp-mpi" else ("--out", "--output-format=")
    got = complete(script, function, [command, word])
    check(got == [want], "bash: %s %s completes to %s" % (command, word, got))
    got = complete(script, function, [command, "--ba"])
    check(got == ["--backend="], "bash: --ba completes to %s" % got)
    got = complete(script, function, [command, "-"])
    check("--threads=" in got and "-v" in got, "bash: - offers every option (%d)" % len(got))
    if command == "apsp-mpi":
        return
    got = complete(script, function, [command, "--output-format="])
    check(got == ["hw3", "npy", "text", "csv", "tsv"], "bash: --output-format= offers %s" % got)
    got = complete(script, function, [command, "--input-format=e"])
    check(got == ["edgelist"], "bash: --input-format=e completes to %s" % got)
    got = complete(script, function, [command, "--method=d"], breaks=False)
    check(got == ["--method=dijkstra"], "bash without '=' as a word break: %s" % got)
    got = complete(script, function, [command, "--dtype=float"])
    check(got == ["float32", "float64"], "bash: --dtype=float offers %s" % got)
    got = complete(script, function, [command, "-d", "g"])
    check(got == [], "bash: -d's value is not a file name: %s" % got)
    got = complete(script, function, [command, command[:3]])
    check(command in got, "bash: INPUT completes file names: %s" % got)


def check_zsh(docs, command):
    """The zsh completion parses (zsh -n); its behaviour is not driven here."""
    if not shutil.which("zsh"):
        print("skip the zsh check: no zsh here")
        return
    p = subprocess.run(["zsh", "-n", os.path.join(docs, "_" + command)], capture_output=True,
                       text=True)
    check(p.returncode == 0 and not p.stderr, "zsh -n _%s: %s" % (command, p.stderr.strip()))


# Run by PYTHON with the package on its path: the Solver's keywords, its docstring, and what it
# says to each value of argv[1]'s [keyword, value] pairs (None where it took the value).
SOLVER_PROBE = """
import inspect, json, sys
import apsp
said = []
for keyword, value in json.loads(sys.argv[1]):
    try:
        apsp.Solver(device="host", **{keyword: value}).close()
        said.append(None)
    except ValueError as e:
        said.append(str(e))
print(json.dumps({"keywords": list(inspect.signature(apsp.Solver).parameters),
                  "doc": apsp.Solver.__doc__, "said": said}))
"""


def solver_tries(rows):
    """[keyword, value] pairs the Solver must refuse: each end of a number's range passed by one,
    and a word outside a choice's list."""
    tries = []
    for keyword, _, values in rows:
        if re.fullmatch(r"\d+-\d+", values):
            least, most = map(int, values.split("-"))
            tries += [[keyword, least - 1], [keyword, most + 1]]
        elif "|" in values:
            tries.append([keyword, "bogus"])
    return tries


def check_solver(tool, root, python, extension):
    if not python:
        print("skip the Python Solver check: this build has no Python package")
        return
    rows = [line.split(" ") for line in run([tool, "solver", "apsp"]).stdout.splitlines()]
    tries = solver_tries(rows)
    with tempfile.TemporaryDirectory() as path:
        package = os.path.join(path, "apsp")
        os.mkdir(package)
        sources = os.path.join(root, "src", "python", "apsp")
        for name in os.listdir(sources) + [extension]:
            os.symlink(os.path.join(sources, name), os.path.join(package, os.path.basename(name)))
        env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([python, "-c", SOLVER_PROBE, json.dumps(tries)], capture_output=True,
                           text=True, timeout=120, cwd=path, env=env)
    if p.returncode != 0:
        check(False, "the Solver probe ran: %s" % p.stderr.strip()[-300:])
        return
    got = json.loads(p.stdout)
    keywords = [k for k in got["keywords"] if k != "self"]
    table = [keyword for keyword, _, _ in rows]
    check(sorted(keywords) == sorted(table),
          "apsp.Solver's keywords are the table's Solver options (only the Solver's: %s, only "
          "the table's: %s)" % (sorted(set(keywords) - set(table)),
                                sorted(set(table) - set(keywords))))
    for keyword, option, values in rows:
        documented = re.search(r"^ +%s : " % keyword, got["doc"], re.M)
        ranged = not re.fullmatch(r"\d+-\d+", values) or \
            "%s to %s" % tuple(values.split("-")) in got["doc"]
        check(documented and ranged, "Solver's docstring has %s (--%s)%s" % (
            keyword, option, ", with the range %s" % values if "-" in values[1:] else ""))
    for (keyword, value), said in zip(tries, got["said"]):
        values = next(v for k, _, v in rows if k == keyword)
        named = values.split("-")[-1:] if re.fullmatch(r"\d+-\d+", values) else values.split("|")
        check(said is not None and said.startswith("%s=" % keyword) and
              all(word in said for word in named),
              "Solver(%s=%r) is refused, naming %s: %s" % (keyword, value, " ".join(named), said))


def main():
    flags = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    tool, docs, root, apsp = [a for a in sys.argv[1:] if not a.startswith("--")][:4]
    rest = [a for a in sys.argv[1:] if not a.startswith("--")][4:]
    mpi = rest[0] if rest else None
    options = table_options(tool, "apsp")
    check_help([apsp], "apsp", options)
    check_docs(tool, root, "apsp", "options")
    check_choices([apsp], "apsp", options)
    check_man(docs, "apsp", options)
    check_bash(docs, "apsp")
    check_zsh(docs, "apsp")
    if mpi:
        mpi_options = table_options(tool, "apsp-mpi")
        check_help([mpi], "apsp-mpi", mpi_options)
        check_docs(tool, root, "apsp-mpi", "mpi-options")
        check_man(docs, "apsp-mpi", mpi_options)
        check_bash(docs, "apsp-mpi")
        check_zsh(docs, "apsp-mpi")
    check_messages(apsp, mpi)
    check_solver(tool, root, flags.get("python"), flags.get("extension"))
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
