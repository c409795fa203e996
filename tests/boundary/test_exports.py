"""The shared library exports exactly the API: the functions that include/apsp.h and the headers
it includes, include/apsp_io.h, apsp_paths.h, apsp_rows.h and apsp_sources.h, declare with APSP_EXPORT, and nothing
else (src/meson.build says how the rest is hidden).

usage: pytest_main.py test_exports.py --exe libapsp LIBAPSP_SO --opt=headers=HEADER,...

Lists the library's dynamic symbols with `nm -D --defined-only` ($NM overrides nm) and fails on
any that the headers do not declare, and on any declared function that is missing. nm missing
is a failure too: it comes with binutils, which building the library needs anyway."""

import os
import shutil
import subprocess

import pytest
from api_headers import declared_exports

# Defined by the linker in every shared object, not by the library's code.
LINKER_SYMBOLS = {"_init", "_fini", "_edata", "_end", "__bss_start"}

# nm's letters for code: T (text), i (GNU indirect function), W (weak).
FUNCTION_TYPES = {"T", "i", "W"}


def exported_symbols(nm, library_path):
    result = subprocess.run(
        [nm, "-D", "--defined-only", library_path],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"{nm} -D --defined-only {library_path}: {result.stderr.strip()}",
                    pytrace=False)
    symbols = {}
    for line in result.stdout.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        kind, name = fields[-2], fields[-1]
        name = name.split("@")[0]  # a symbol version, if any
        if name not in LINKER_SYMBOLS:
            symbols[name] = kind
    return symbols


def test_exports(exe, opt):
    library_path, header_paths = exe["libapsp"], opt["headers"].split(",")
    nm = os.environ.get("NM", "nm")
    assert shutil.which(nm) is not None, f"{nm} not found (binutils)"

    declared = set()
    for header_path in header_paths:
        found = declared_exports(header_path)
        assert found, f"found no APSP_EXPORT function in {header_path}"
        print(f"{len(found)} APSP_EXPORT functions in {header_path}")
        declared |= found
    exported = exported_symbols(nm, library_path)

    problems = []
    for name in sorted(set(exported) - declared):
        problems.append(f"exported but not declared APSP_EXPORT: {exported[name]} {name}")
    for name in sorted(declared - set(exported)):
        problems.append(f"declared APSP_EXPORT but not exported: {name}")
    for name in sorted(declared & set(exported)):
        if exported[name] not in FUNCTION_TYPES:
            problems.append(f"exported as type {exported[name]}, not as a function: {name}")

    print(f"{len(exported)} symbols exported by {library_path}")
    assert not problems, "\n".join(problems)
