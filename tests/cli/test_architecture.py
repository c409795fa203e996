"""docs/architecture.md is a true map of src/ (python3 standard library, nm for the calls).

    python3 test_architecture.py SOURCE_ROOT [BUILD_ROOT]   the checks; exit 0 or 1
    python3 test_architecture.py --edges SOURCE_ROOT [BUILD_ROOT]   the folder edges, measured

An edge A -> B between two folders of src/ is a `#include "B/..."` in a file of A (a bare name
resolved as the compiler does: its own folder, include/, else the one folder that has it), or,
given BUILD_ROOT, a call: an object of A that needs a symbol an object of B defines (nm; a front
end's calls of the public API, include/*.h's APSP_EXPORT functions, go through include/).
The checks, against the map's layer table and its list of exceptions:

- the map is at most 250 lines, and names every src/ file over 150 lines (a line with its
  folder and its name);
- every edge runs down the layers (to a lower layer, or within one layer);
- only a backend's own folder includes its headers (cpu/, opencl/) or calls its functions: the
  others reach it through its table (devices/'s list names the tables, which backend.h declares);
- the front ends (cli/, mpi/, python/) include the public headers, the interface (backend/),
  base/ and the file layers (formats/, output/), nothing else;
- the interface (backend/) includes base/ only;
- no cycle between folders;
- at most 3 exceptions, each in the map's list, each still an edge (a stale one fails too).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from api_headers import declared_exports  # noqa: E402

BACKENDS = {"cpu", "opencl"}
FRONT_ENDS = {"cli", "mpi", "python"}
FRONT_MAY = {"backend", "devices", "base", "formats", "output"}
INTERFACE_MAY = {"base"}
MAP_LINES = 250
BIG_FILE = 150
MOST_EXCEPTIONS = 3
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def between_markers(text, name):
    begin, end = "<!-- %s begin -->\n" % name, "<!-- %s end -->" % name
    if begin not in text or end not in text:
        raise SystemExit("FAIL: docs/architecture.md has no %s markers" % name)
    return text.split(begin, 1)[1].split(end, 1)[0]


def map_layers(text):
    """{folder: layer} from the map's table: | layer | `folder/`, ... | job |."""
    layers = {}
    for line in between_markers(text, "layers").splitlines()[2:]:
        cells = line.split("|")
        if len(cells) > 3 and cells[1].strip().isdigit():
            for folder in re.findall(r"`([a-z]+)/`", cells[2]):
                layers[folder] = int(cells[1])
    return layers


def map_exceptions(text):
    """{(from, to)} from the map's list: lines `from/` -> `to/`."""
    block = between_markers(text, "layer-exceptions")
    return set(re.findall(r"`([a-z]+)/` -> `([a-z]+)/`", block))


def source_files(src):
    for folder in sorted(os.listdir(src)):
        top = os.path.join(src, folder)
        if not os.path.isdir(top):
            continue
        for root, _, names in os.walk(top):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    yield folder, os.path.join(root, name)


def include_target(root, src, path, name):
    """The src/ folder an include names; None for a public or system header."""
    first = name.split("/")[0]
    if "/" in name and os.path.isdir(os.path.join(src, first)):
        return first
    if os.path.exists(os.path.join(os.path.dirname(path), name)):
        return os.path.relpath(path, src).split(os.sep)[0]
    if os.path.exists(os.path.join(root, "include", name)):
        return None
    owners = {f for f, p in source_files(src) if os.path.basename(p) == name}
    return owners.pop() if len(owners) == 1 else None


def include_edges(root):
    src = os.path.join(root, "src")
    edges = {}
    for folder, path in source_files(src):
        text = open(path, encoding="utf-8", errors="replace").read()
        for match in INCLUDE.finditer(text):
            to = include_target(root, src, path, match.group(1))
            if to and to != folder:
                line = text.count("\n", 0, match.start()) + 1
                where = "%s:%d %s" % (os.path.relpath(path, src), line, match.group(1))
                edges.setdefault((folder, to), []).append(where)
    return edges


def object_source(src, bsrc, obj):
    """The source file (relative to src/) an object was compiled from, or None (a generated
    one). Meson names an object by its source's path from the target's folder, '/' made '_'
    and '..' made '..': src/cpu/kernels.c is cpu_kernels.c.o in a target of src/, and
    .._json.c.o in one of src/cli/docs/ when it is src/cli/json.c."""
    name = os.path.basename(obj)[: -len(".o")]
    parts = os.path.relpath(os.path.dirname(os.path.dirname(obj)), bsrc).split(os.sep)
    parts = [] if parts == ["."] else parts
    while name.startswith(".._"):
        name, parts = name[3:], parts[:-1]
    for candidate in (name, name.replace("_", os.sep, 1)):
        rel = os.path.normpath(os.path.join(*parts, candidate))
        if os.path.isfile(os.path.join(src, rel)) and os.sep in rel:
            return rel
    return None


def nm(objects, *flags):
    """{object: {symbol}} from one run of nm over all the objects."""
    out = subprocess.run(["nm", "-P", "-A", *flags, *objects], capture_output=True,
                         text=True).stdout
    symbols = {obj: set() for obj in objects}
    for line in out.splitlines():
        obj, _, rest = line.rpartition(": ")
        if obj in symbols and rest.strip():
            symbols[obj].add(rest.split()[0])
    return symbols


def call_edges(root, build):
    src, bsrc = os.path.join(root, "src"), os.path.join(build, "src")
    objects = []
    for dirpath, _, names in os.walk(bsrc):
        if dirpath.endswith(".p"):
            objects += [os.path.join(dirpath, n) for n in names if n.endswith(".c.o")]
    sources = {obj: object_source(src, bsrc, obj) for obj in sorted(objects)}
    folders = {obj: rel.split(os.sep)[0] for obj, rel in sources.items() if rel}
    needs = sorted((folder, obj) for obj, folder in folders.items())
    defined, undefined, compiled = {}, nm([obj for _, obj in needs], "-u"), set()
    for obj, symbols in nm([obj for _, obj in needs], "--defined-only", "-g").items():
        compiled |= {sources[obj]} if symbols else set()
        for symbol in symbols:
            defined.setdefault(symbol, folders[obj])
    include = os.path.join(root, "include")
    public = set().union(*(declared_exports(os.path.join(include, h))
                           for h in os.listdir(include) if h.endswith(".h")))
    edges = {}
    for folder, obj in needs:
        for symbol in sorted(undefined[obj]):
            to = defined.get(symbol)
            # (a front end's call of the public API goes through include/, not into a folder)
            if to and to != folder and not (folder in FRONT_ENDS and symbol in public):
                edges.setdefault((folder, to), []).append(
                    "%s calls %s" % (os.path.basename(obj), symbol))
    # the folders whose every .c file nm read here
    built = {folder for folder, path in source_files(src)}
    for folder, path in source_files(src):
        if path.endswith(".c") and os.path.relpath(path, src) not in compiled:
            built.discard(folder)
    return edges, built


def cycles(edges):
    """The folder cycles of the edge graph, each as a list (Tarjan's strongly connected sets)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def rule_breaks(a, b, layers, sites):
    """Why the edge a -> b breaks the layers or the include rules; [] when it keeps them. A
    backend is reached through its table alone: no other folder includes its headers or calls
    anything of it but the table (apsp_backend_NAME, declared in backend.h), which only
    devices/'s list names."""
    why = []
    if a not in layers or b not in layers:
        why.append("a folder the map's layer table lacks")
    elif layers[b] > layers[a]:
        why.append("runs up, from layer %d to layer %d" % (layers[a], layers[b]))
    by_name = [site for site in sites if not re.search(r" calls apsp_backend_\w+$", site)]
    if b in BACKENDS and a != b and by_name:
        why.append("only %s/ includes its own headers or calls it by name" % b)
    if a in FRONT_ENDS and b not in FRONT_MAY:
        why.append("a front end uses the public headers, backend/, devices/, base/, formats/,"
                   " output/ only")
    if a == "backend" and b not in INTERFACE_MAY:
        why.append("the interface depends on base/ only")
    return why


def check_map(root, text):
    failures = []
    if text.count("\n") > MAP_LINES:
        failures.append("docs/architecture.md has %d lines, more than %d"
                        % (text.count("\n"), MAP_LINES))
    lines = text.splitlines()
    for folder, path in source_files(os.path.join(root, "src")):
        if sum(1 for _ in open(path, encoding="utf-8", errors="replace")) <= BIG_FILE:
            continue
        name = os.path.basename(path)
        rel = os.path.relpath(path, os.path.join(root, "src"))
        if not any(rel in line or (folder + "/" in line and name in line) for line in lines):
            failures.append("src/%s (over %d lines) is not named in docs/architecture.md"
                            % (rel, BIG_FILE))
    return failures


def check_edges(edges, layers, exceptions, built):
    failures = []
    for (a, b), sites in sorted(edges.items()):
        why = rule_breaks(a, b, layers, sites)
        if why and (a, b) not in exceptions:
            failures.append("%s/ -> %s/: %s (%s)" % (a, b, "; ".join(why), sites[0]))
    for group in cycles({e for e in edges if e not in exceptions}):
        failures.append("a cycle between folders: %s" % " <-> ".join(group))
    if len(exceptions) > MOST_EXCEPTIONS:
        failures.append("the map names %d exceptions, more than %d"
                        % (len(exceptions), MOST_EXCEPTIONS))
    # (an exception that is a call only is not seen where its folders are not wholly built and
    # read here: a build without OpenCL, fault.c or a codec left out, IR objects of b_lto)
    for a, b in sorted(exceptions - set(edges)):
        if {a, b} <= built:
            failures.append("the map's exception %s/ -> %s/ is no edge any more" % (a, b))
    for a, b in sorted(exceptions & set(edges)):
        if not rule_breaks(a, b, layers, edges[(a, b)]):
            failures.append("the map's exception %s/ -> %s/ breaks no rule" % (a, b))
    return failures


def measured(root, build):
    """The edges, and the folders whose every .c object nm read (none without BUILD_ROOT)."""
    edges, built = include_edges(root), set()
    if build:
        calls, built = call_edges(root, build)
        for edge, sites in calls.items():
            edges.setdefault(edge, []).extend(sites)
    return edges, built


def main(argv):
    show = argv[1:2] == ["--edges"]
    args = argv[2:] if show else argv[1:]
    root, build = args[0], args[1] if len(args) > 1 else None
    edges, built = measured(root, build)
    if show:
        for (a, b), sites in sorted(edges.items()):
            print("%-8s -> %-8s %3d  %s" % (a, b, len(sites), sites[0]))
        return 0
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    layers, exceptions = map_layers(text), map_exceptions(text)
    failures = check_map(root, text) + check_edges(edges, layers, exceptions, built)
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print("architecture: %d folder edges (%s), %d exceptions, every rule kept"
              % (len(edges), "includes and calls" if build else "includes", len(exceptions)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
