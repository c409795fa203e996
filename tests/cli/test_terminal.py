"""apsp with standard output a terminal (a pseudo-terminal from Python's pty module): a binary
OUTPUT - (hw3 by default, npy) or --predecessors=- is refused with one line that says what to
give instead (--output-format=text), exit 2, and nothing reaches the terminal; the text format
and the long csv and tsv tables are shown there; a pipe still gets the binary bytes.

    pytest_main.py test_terminal.py --apsp=APSP --testcases=TESTCASES_DIR
"""
import os
import pty
import select
import subprocess


def on_terminal(apsp, args):
    """Runs apsp with stdout on a fresh pseudo-terminal: (exit code, stderr, what the terminal
    got)."""
    master, slave = pty.openpty()
    try:
        p = subprocess.run([apsp] + args, stdout=slave, stderr=subprocess.PIPE, timeout=60)
        shown = b""
        while select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: nothing left
                break
            if not chunk:
                break
            shown += chunk
        return p.returncode, p.stderr.decode(), shown
    finally:
        os.close(master)
        os.close(slave)


def test_terminal(apsp_path, testcases, work, check):
    apsp, cases = apsp_path, testcases
    roads = os.path.join(work, "roads.txt")
    with open(roads, "w") as f:
        f.write("0 1 4\n1 2 1\n0 2 9\n")
    for args, what in (([roads, "-"], "hw3"), ([roads, "-", "--output-format=npy"], "npy"),
                       ([os.path.join(cases, "example.in"), "-"], "hw3")):
        code, err, shown = on_terminal(apsp, args)
        lines = err.strip().splitlines()
        check(code == 2 and len(lines) == 1 and "--output-format=text" in lines[0]
              and "terminal" in lines[0] and what in lines[0] and shown == b"",
              "%s to a terminal: exit %d, %s, %d bytes shown" % (what, code, lines, len(shown)))
    code, err, shown = on_terminal(apsp, ["--predecessors=-", roads, os.path.join(work, "d")])
    check(code == 2 and "--predecessors=-" in err and shown == b"",
          "--predecessors=- to a terminal: exit %d, %s" % (code, err.strip()))
    code, err, shown = on_terminal(apsp, [roads, "-", "--output-format=text"])
    check(code == 0 and shown.replace(b"\r\n", b"\n") == b"0 4 5\ninf 0 1\ninf inf 0\n",
          "text to a terminal is shown: exit %d, %r %s" % (code, shown, err.strip()))
    for fmt, sep in (("csv", b","), ("tsv", b"\t")):  # the long tables are text too
        code, err, shown = on_terminal(apsp, [roads, "-", "--output-format=" + fmt])
        rows = ("source target distance", "0 0 0", "0 1 4", "0 2 5", "1 1 0", "1 2 1",
                "2 2 0")
        want = b"".join(sep.join(row.encode().split()) + b"\n" for row in rows)
        check(code == 0 and shown.replace(b"\r\n", b"\n") == want,
              "%s to a terminal is shown: exit %d, %r %s" % (fmt, code, shown, err.strip()))
    code, err, shown = on_terminal(apsp, ["--path=0,2", roads, os.path.join(work, "d.npy")])
    check(code == 0 and b"length 5" in shown, "--path's line on a terminal: %r" % shown)
    p = subprocess.run([apsp, roads, "-"], capture_output=True, timeout=60)
    check(p.returncode == 0 and len(p.stdout) == 9 * 4, "a pipe gets hw3's %d bytes"
          % len(p.stdout))
