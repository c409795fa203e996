"""Tables in and out (issue 40): CSV and TSV edge lists of named vertices against NetworkX, the
long output and --limit, OUTPUT.labels, compressed inputs, and malformed tables refused.

    pytest_main.py test_tables.py --apsp=APSP [--opt=graphs=N] [--opt=seed=S|time]
        [--opt=without=.gz,.zst,.bz2]

- Random graphs whose vertices are names (commas, quotes, blanks, UTF-8, ids past 2^31, digits
  that are names too) written by Python's csv module with a header (random column order, extra
  columns, default or --columns names), read as .csv or .tsv, solved into a long .csv: its rows
  must equal networkx.all_pairs_dijkstra_path_length's, names kept; with --limit=D exactly the
  pairs within D; with --sources the sources' rows; into .npy, the matrix with OUTPUT.labels
  naming its rows, --limit's cells above D inf.
- A table of 300 000 lines, read in pieces on two threads: the same as on one, and an error
  near its end named at its line.
- The same CSV, a text edge list and a hw3 file compressed as gzip (also two members), zstd and
  bzip2 give OUTPUT byte for byte as the plain file, from a file and from standard input.
- Refused in one line with exit 3 and no OUTPUT: an unbalanced quote, a missing column, a line
  break inside a quoted name, a 2 GB line from a pipe (generated as it is read), a corrupt and
  a truncated gzip stream, a zstd stream that expands past 1032:1.

Needs NetworkX and NumPy (the system python3's); the zstd parts need the zstd command.
"""
import bz2
import csv
import gzip
import io
import os
import random
import shutil
import struct
import subprocess
import threading

import pytest
from harness import EXIT_INPUT, need

nx = need("networkx", "python3-networkx")
np = need("numpy", "python3-numpy")
GRAPHS = 30  # --opt=graphs=N
NAMES = ["Gare de Lyon", "Châtelet, Les Halles", 'say "hi"', " blank ", "4417391023", "7", "0",
         "x\ty", "#hash", "a'b", "ÜBER", "2147483648",
         # numbers, which the reader looks up in an array (below 2^22, written plainly) or by
         # hash: "007" and "7", "00" and "0" are four names, and 2^22 takes the other way
         "007", "00", "070", "4194303", "4194304", "12345678"]


def random_graph(rng):
    """Names (first-seen order is the file's) and edges (u, v, w) with non-negative weights."""
    v = rng.randint(1, 25)
    names = rng.sample(NAMES, min(v, len(NAMES)))
    names += ["v%d" % i for i in range(v - len(names))]
    real = rng.random() < 0.3
    edges = []
    for _ in range(rng.randint(1, 3 * v)):
        w = round(rng.uniform(0, 50), 2) if real else rng.randint(0, 50)
        edges.append((rng.choice(names), rng.choice(names), w))
    return edges, real


def write_table(edges, path, delimiter, rng):
    """A header in a random column order with an extra column; returns --columns or None."""
    style = rng.choice(["default", "named", "none"])
    if style == "default":
        cols = [rng.choice(["source", "from", "SRC"]), rng.choice(["target", "to", "dst"]),
                rng.choice(["weight", "length", "Cost"])]
    else:
        cols = ["origin", "destination", "minutes"]
    header = cols + ["note"]
    order = list(range(4))
    rng.shuffle(order)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=delimiter, quoting=rng.choice([csv.QUOTE_MINIMAL,
                                                                   csv.QUOTE_ALL]))
        if style != "none":
            w.writerow([header[i] for i in order])
        for u, v, wt in edges:
            row = [u, v, wt, "n"]
            w.writerow([row[i] for i in order])
    if style == "named":
        return ",".join(cols)
    if style == "none":  # no header: columns 1-3 are source, target, weight
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter=delimiter)
            for u, v, wt in edges:
                w.writerow([u, v, wt, "n"])
    return None


def run(apsp, args, stdin=None):
    return subprocess.run([apsp] + args, input=stdin, capture_output=True)


def read_long(path):
    with open(path, newline="", encoding="utf-8") as f:
        delimiter = "\t" if path.endswith(".tsv") else ","
        rows = list(csv.reader(f, delimiter=delimiter))
    assert rows[0] == ["source", "target", "distance"], rows[0]
    return {(s, t): float(d) for s, t, d in rows[1:]}


def oracle(edges):
    g = nx.DiGraph()
    for u, v, w in edges:
        if u == v:
            g.add_node(u)
        elif not g.has_edge(u, v) or g[u][v]["weight"] > w:
            g.add_edge(u, v, weight=w)
    return {(s, t): float(d) for s, ds in nx.all_pairs_dijkstra_path_length(g) for t, d in ds.items()}


def same(got, want, what):
    assert got.keys() == want.keys(), "%s: pairs differ: %s" % (what, sorted(got.keys() ^ want.keys())[:5])
    for k in want:
        assert abs(got[k] - want[k]) <= 1e-9 * max(1, abs(want[k])), "%s %s: %r != %r" % (
            what, k, got[k], want[k])


def check_graph(apsp, tmp, rng, index):
    edges, real = random_graph(rng)
    delimiter = rng.choice([",", "\t"])
    src = os.path.join(tmp, "g%d.%s" % (index, "csv" if delimiter == "," else "tsv"))
    columns = write_table(edges, src, delimiter, rng)
    extra = ["--columns=" + columns] if columns else []
    want = oracle(edges)
    out = os.path.join(tmp, "long%d.%s" % (index, rng.choice(["csv", "tsv"])))
    r = run(apsp, extra + [src, out])
    assert r.returncode == 0, r.stderr
    same(read_long(out), want, src)
    # --limit: exactly the pairs within it
    limit = rng.choice([0, 5, 17.5, 40, 1000])
    r = run(apsp, extra + ["--limit=%s" % limit, src, out])
    assert r.returncode == 0, r.stderr
    same(read_long(out), {k: d for k, d in want.items() if d <= limit}, src + " --limit")
    # the matrix and its labels
    npy = os.path.join(tmp, "m%d.npy" % index)
    r = run(apsp, extra + ["--limit=%s" % limit, src, npy])
    assert r.returncode == 0, r.stderr
    with open(npy + ".labels", encoding="utf-8") as f:
        labels = f.read().split("\n")[:-1]
    seen = []
    for u, v, _ in edges:
        for x in (u, v):
            if x not in seen:
                seen.append(x)
    assert labels == seen, (labels, seen)
    m = np.load(npy)
    for i, s in enumerate(labels):
        for j, t in enumerate(labels):
            d = want.get((s, t))
            expect = d if d is not None and d <= limit else None
            cell = float(m[i, j])
            unreachable = cell == float("inf") or (m.dtype.kind == "i" and cell >= 1073741823)
            assert (expect is None) == unreachable and (unreachable or abs(cell - expect) < 1e-9), (
                src, s, t, cell, expect)
    # --sources: their rows only
    sources = sorted(rng.sample(range(len(labels)), rng.randint(1, len(labels))))
    r = run(apsp, extra + ["--sources=" + ",".join(map(str, sources)), src, out])
    assert r.returncode == 0, r.stderr
    same(read_long(out), {k: d for k, d in want.items() if k[0] in {labels[s] for s in sources}},
         src + " --sources")


WITHOUT = set()  # the codecs' extensions this build lacks (--opt=without): refused by name


def compressors():
    zstd = shutil.which("zstd")
    found = [(".gz", gzip.compress), (".gz", lambda b: gzip.compress(b[:len(b) // 2]) +
                                       gzip.compress(b[len(b) // 2:])), (".bz2", bz2.compress)]
    if zstd:
        found.append((".zst", lambda b: subprocess.run([zstd, "-q", "-c"], input=b,
                                                       capture_output=True, check=True).stdout))
    return found


def check_compressed(apsp, tmp, rng):
    edges, _ = random_graph(rng)
    table = os.path.join(tmp, "c.csv")
    with open(table, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["origin", "destination", "minutes"])
        w.writerows(edges)
    el = os.path.join(tmp, "e.txt")
    with open(el, "w") as f:
        for _ in range(3000):
            f.write("%d %d %d\n" % (rng.randrange(300), rng.randrange(300), rng.randint(1, 9)))
    hw3 = os.path.join(tmp, "h.in")
    with open(hw3, "wb") as f:
        f.write(struct.pack("<ii", 50, 200))
        for _ in range(200):
            f.write(struct.pack("<iii", rng.randrange(50), rng.randrange(50), rng.randint(0, 9)))
    for plain, fmt, out_name, extra in [
            (table, "csv", "o.csv", ["--columns=origin,destination,minutes"]),
            (el, "edgelist", "o.npy", []), (hw3, "hw3", "o.out", [])]:
        base = os.path.join(tmp, "plain-" + out_name)
        r = run(apsp, extra + [plain, base])
        assert r.returncode == 0, r.stderr
        expected = open(base, "rb").read()
        data = open(plain, "rb").read()
        for ext, compress in compressors():
            packed = plain + ext
            with open(packed, "wb") as f:
                f.write(compress(data))
            got = os.path.join(tmp, "got-" + out_name)
            for args, stdin in [([packed, got], None),
                                (["--input-format=" + fmt, "-", got], compress(data))]:
                r = run(apsp, extra + args, stdin)
                if ext in WITHOUT:
                    assert r.returncode != 0 and b"built without" in r.stderr, (packed, r.stderr)
                    continue
                assert r.returncode == 0, (packed, r.stderr)
                assert open(got, "rb").read() == expected, (packed, args)


def refused(apsp, tmp, args, stdin, words, what):
    out = os.path.join(tmp, "refused.npy")
    if os.path.exists(out):
        os.remove(out)
    r = run(apsp, args + [out], stdin)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == EXIT_INPUT, (what, r.returncode, err)
    assert err.count("\n") == 1 and words in err, (what, err)
    assert not os.path.exists(out) and not os.path.exists(out + ".labels"), what


def long_line_from_pipe(apsp, tmp):
    """A 2 GB line written into apsp's standard input as it reads, never held here."""
    out = os.path.join(tmp, "refused.npy")
    p = subprocess.Popen([apsp, "--input-format=csv", "-", out], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    chunk = b"a" * (1 << 20)

    def feed():
        try:
            for _ in range(2048):
                p.stdin.write(chunk)
            p.stdin.write(b",b,1\n")
            p.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=feed)
    writer.start()
    err = p.stderr.read().decode()
    p.wait()
    writer.join()
    assert p.returncode == EXIT_INPUT and err.count("\n") == 1 and "longer than" in err, err
    assert not os.path.exists(out)


def check_refusals(apsp, tmp):
    def table(name, text):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(text)
        return path

    refused(apsp, tmp, [table("q.csv", b'from,to,w\na,b,1\n"c,d,2\n')], None,
            "does not close on its line", "unbalanced quote")
    refused(apsp, tmp, [table("m.csv", b"from,to,length\na,b,1\nc,d\n")], None,
            "2 fields, but column 'length' is field 3", "missing column")
    refused(apsp, tmp, [table("n.csv", b'from,to,w\n"line\nbreak",b,1\n')], None,
            "line break inside a name", "newline in a quoted name")
    refused(apsp, tmp, [table("x.csv", b"from,to,w\na\"b,c,1\n")], None,
            "quote inside an unquoted field", "stray quote")
    refused(apsp, tmp, ["--columns=u,v,len", table("c.csv", b"from,to,w\na,b,1\n")], None,
            "no column named 'u'", "--columns not in the header")
    if ".gz" not in WITHOUT:
        good = gzip.compress(b"from,to,w\n" + b"a,b,1\n" * 5000)
        bad = bytearray(good)
        bad[len(bad) // 2] ^= 0x55
        refused(apsp, tmp, [table("bad.csv.gz", bytes(bad))], None, "gzip stream", "corrupt gzip")
        refused(apsp, tmp, [table("cut.csv.gz", good[:len(good) // 2])], None,
                "truncated gzip stream", "truncated gzip")
        refused(apsp, tmp, [table("tail.txt.gz", gzip.compress(b"0 1 1\n") + b"junk")], None,
                "gzip stream", "bytes after the gzip member")
    zstd = shutil.which("zstd")
    if zstd and ".zst" not in WITHOUT:
        bomb = subprocess.run("head -c 600000000 /dev/zero | %s -q -c" % zstd, shell=True,
                              capture_output=True, check=True).stdout
        refused(apsp, tmp, [table("bomb.txt.zst", bomb)], None, "decompression bomb", "zstd bomb")
    long_line_from_pipe(apsp, tmp)


def check_pieces(apsp, tmp):
    """A table long enough to be read in pieces on two threads: the same labels and distances as
    on one, and an error near its end named at its line either way."""
    rng = random.Random(7)
    path = os.path.join(tmp, "big.csv")
    with open(path, "w") as f:
        f.write("source,target,weight\n")
        for _ in range(300000):
            # names and numbers mixed: a piece's numbered ids merge in order with its others
            u, v = (rng.choice(["n%d", "%d", "0%d"]) % rng.randrange(3000) for _ in range(2))
            f.write("%s,%s,%d\n" % (u, v, rng.randint(1, 9)))
    outs = []
    for threads in ("1", "2"):
        out = os.path.join(tmp, "big%s.npy" % threads)
        r = run(apsp, ["--threads=" + threads, "--sources=0-9", path, out])
        assert r.returncode == 0, r.stderr
        outs.append((open(out, "rb").read(), open(out + ".labels", "rb").read()))
    assert outs[0] == outs[1], "two threads read the table otherwise than one"
    with open(path, "a") as f:
        f.write("x,y,1\n" * 1000 + '"unclosed,y,1\n' + "x,y,1\n" * 10)
    for threads in ("1", "2"):
        refused(apsp, tmp, ["--threads=" + threads, path], None, "line 301002:",
                "an error in a piece, %s thread(s)" % threads)


@pytest.fixture(scope="module", autouse=True)
def without(opt):
    """--opt=without=EXT,...: the codecs' extensions this build lacks."""
    WITHOUT.update(filter(None, opt.get("without", "").split(",")))


def test_graph(apsp_path, work, rng, case):
    check_graph(apsp_path, work, rng, case)


def test_compressed(apsp_path, work):
    check_compressed(apsp_path, work, random.Random(40))


def test_pieces(apsp_path, work):
    check_pieces(apsp_path, work)


def test_refusals(apsp_path, work):
    check_refusals(apsp_path, work)
