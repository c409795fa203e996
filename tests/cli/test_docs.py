"""The tables in docs/ that copy a list kept elsewhere are equal to it (python3 standard library).

    pytest_main.py test_docs.py --apsp=APSP --source-root=SOURCE_ROOT --build-root=BUILD_ROOT

- docs/usage.md's kernel-parameter table is the output of `apsp --kernel-params=help`, which the
  library derives from its one list of parameters (src/opencl/param_list.h);
- docs/building.md's package table names exactly the packages tools/setup.sh installs;
- docs/building.md's suite table names every suite of this build (`meson introspect --tests`);
  it may name more (faults, mpi, python, wheel exist only in some builds);
- docs/api.md's header table names every public header (include/*.h) with the number of
  functions it exports (APSP_EXPORT), the total is their sum, and the page names each function.
"""
import json
import os
import re
import shlex
import subprocess

import pytest
from api_headers import declared_exports


def between_markers(path, name):
    text = open(path, encoding="utf-8").read()
    begin, end = "<!-- %s begin -->\n" % name, "<!-- %s end -->" % name
    if begin not in text or end not in text:
        pytest.fail("%s has no %s markers" % (path, name), pytrace=False)
    return text.split(begin, 1)[1].split(end, 1)[0]


def first_column_names(table):
    """The `name`s in the first column of a Markdown table (its header and rule skipped)."""
    rows = [line.split("|")[1] for line in table.splitlines()[2:] if line.startswith("|")]
    return {name for row in rows for name in re.findall(r"`([^`]+)`", row)}


def test_kernel_params(apsp_path, source_root):
    apsp, usage = apsp_path, os.path.join(source_root, "docs", "usage.md")
    listed = subprocess.run([apsp, "--kernel-params=help"], capture_output=True, text=True,
                            check=True).stdout
    if "without OpenCL" in listed:
        pytest.skip("built without OpenCL, no kernel parameters to compare")
    documented = between_markers(usage, "kernel-params")
    assert documented == listed, (
        "docs/usage.md's kernel-parameter table differs from `apsp --kernel-params=help`:\n"
        "--- docs/usage.md\n" + documented + "--- apsp --kernel-params=help\n" + listed)


def setup_packages(setup_sh):
    """The arguments of setup.sh's `bash tools/install-packages.sh` (continued lines joined)."""
    text = open(setup_sh, encoding="utf-8").read().replace("\\\n", " ")
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if words[:2] == ["bash", "tools/install-packages.sh"]:
            return set(words[2:])
    pytest.fail("%s runs no tools/install-packages.sh" % setup_sh, pytrace=False)


def test_packages(source_root):
    root = source_root
    building = os.path.join(root, "docs", "building.md")
    installed = setup_packages(os.path.join(root, "tools", "setup.sh"))
    documented = first_column_names(between_markers(building, "packages"))
    assert documented == installed, (
        "docs/building.md's package table differs from tools/setup.sh: only in the table %s,"
        " only in setup.sh %s" % (sorted(documented - installed), sorted(installed - documented)))


def test_suites(source_root, build_root):
    build, building = build_root, os.path.join(source_root, "docs", "building.md")
    tests = json.loads(subprocess.run(["meson", "introspect", "--tests", build],
                                      capture_output=True, text=True, check=True).stdout)
    suites = {suite.split(":")[-1] for test in tests for suite in test["suite"]}
    suites.discard("apsp")  # meson's suite of every test of the project
    documented = first_column_names(between_markers(building, "suites"))
    assert not suites - documented, (
        "docs/building.md's suite table lacks %s" % sorted(suites - documented))


def test_api(source_root):
    root = source_root
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
    assert not problems, "\n".join(problems)
