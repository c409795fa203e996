"""The tables in docs/ that copy a list kept elsewhere are equal to it (python3 standard library).

    python3 test_docs.py APSP SOURCE_ROOT BUILD_ROOT

- docs/usage.md's kernel-parameter table is the output of `apsp --kernel-params=help`, which the
  library derives from its one list of parameters (src/opencl/param_list.h);
- docs/building.md's package table names exactly the packages tools/setup.sh installs;
- docs/building.md's suite table names every suite of this build (`meson introspect --tests`);
  it may name more (faults, mpi, python, wheel exist only in some builds);
- docs/api.md's header table names every public header (include/*.h) with the number of
  functions it exports (APSP_EXPORT), the total is their sum, and the page names each function.

Exit status: 0 all equal, 1 a difference.
"""
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from api_headers import declared_exports  # noqa: E402


def between_markers(path, name):
    text = open(path, encoding="utf-8").read()
    begin, end = "<!-- %s begin -->\n" % name, "<!-- %s end -->" % name
    if begin not in text or end not in text:
        raise SystemExit("FAIL: %s has no %s markers" % (path, name))
    return text.split(begin, 1)[1].split(end, 1)[0]


def first_column_names(table):
    """The `name`s in the first column of a Markdown table (its header and rule skipped)."""
    rows = [line.split("|")[1] for line in table.splitlines()[2:] if line.startswith("|")]
    return {name for row in rows for name in re.findall(r"`([^`]+)`", row)}


def check_kernel_params(apsp, usage):
    listed = subprocess.run([apsp, "--kernel-params=help"], capture_output=True, text=True,
                            check=True).stdout
    if "without OpenCL" in listed:
        print("kernel parameters: built without OpenCL, nothing to compare")
        return []
    documented = between_markers(usage, "kernel-params")
    if documented != listed:
        return ["docs/usage.md's kernel-parameter table differs from `apsp --kernel-params=help`:\n"
                "--- docs/usage.md\n" + documented + "--- apsp --kernel-params=help\n" + listed]
    print("kernel parameters: docs/usage.md's table matches %d" % (listed.count("\n") - 2))
    return []


def setup_packages(setup_sh):
    """The arguments of setup.sh's `bash tools/install-packages.sh` (continued lines joined)."""
    text = open(setup_sh, encoding="utf-8").read().replace("\\\n", " ")
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if words[:2] == ["bash", "tools/install-packages.sh"]:
            return set(words[2:])
    raise SystemExit("FAIL: %s runs no tools/install-packages.sh" % setup_sh)


def check_packages(root, building):
    installed = setup_packages(os.path.join(root, "tools", "setup.sh"))
    documented = first_column_names(between_markers(building, "packages"))
    if documented != installed:
        return ["docs/building.md's package table differs from tools/setup.sh: only in the table %s,"
                " only in setup.sh %s" % (sorted(documented - installed),
                                          sorted(installed - documented))]
    print("packages: docs/building.md names the %d that setup.sh installs" % len(installed))
    return []


def check_suites(build, building):
    tests = json.loads(subprocess.run(["meson", "introspect", "--tests", build],
                                      capture_output=True, text=True, check=True).stdout)
    suites = {suite.split(":")[-1] for test in tests for suite in test["suite"]}
    suites.discard("apsp")  # meson's suite of every test of the project
    documented = first_column_names(between_markers(building, "suites"))
    if suites - documented:
        return ["docs/building.md's suite table lacks %s" % sorted(suites - documented)]
    print("suites: docs/building.md names all %d of this build" % len(suites))
    return []


def check_api(root):
    api = os.path.join(root, "docs", "api.md")
    text = open(api, encoding="utf-8").read()
    include = os.path.join(root, "include")
    exports = {name: declared_exports(os.path.join(include, name))
               for name in sorted(os.listdir(include)) if name.endswith(".h")}
    documented = {header: int(count) for header, count in
                  re.findall(r"(?m)^\| `include/(\w+\.h)` \|.*\| (\d+) \|$", text)}
    counted = {header: len(names) for header, names in exports.items()}
    problems = []
    if documented != counted:
        problems.append("docs/api.md's header table says %s functions per header; the headers "
                        "export %s" % (documented, counted))
    total = re.search(r"export (\d+) functions in all", text)
    if not total or int(total.group(1)) != sum(counted.values()):
        problems.append("docs/api.md does not say the headers export %d functions in all"
                        % sum(counted.values()))
    named = set(re.findall(r"`(apsp_\w+)", text))
    for header, names in exports.items():
        if names - named:
            problems.append("docs/api.md does not name %s (include/%s)"
                            % (sorted(names - named), header))
    if not problems:
        print("api: docs/api.md names the %d functions of %s" % (sum(counted.values()),
                                                                ", ".join(exports)))
    return problems


def main():
    apsp, root, build = sys.argv[1:4]
    usage = os.path.join(root, "docs", "usage.md")
    building = os.path.join(root, "docs", "building.md")
    failures = (check_kernel_params(apsp, usage) + check_packages(root, building)
                + check_suites(build, building) + check_api(root))
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
