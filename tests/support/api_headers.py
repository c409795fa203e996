"""The functions a public header (include/*.h) exports: those it declares with APSP_EXPORT
(python3 standard library only). Shared by tests/boundary/test_exports.py, which compares them
with the library's symbols, and tests/cli/test_docs.py, which compares them with docs/api.md."""
import re


def declared_exports(header_path):
    """The names of the APSP_EXPORT functions that the header at header_path declares."""
    with open(header_path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)  # comments
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"(?m)^\s*#.*$", " ", text)  # the preprocessor, APSP_EXPORT's own #define
    # APSP_EXPORT <return type> apsp_name(   (a declaration may span lines)
    names = re.findall(r"\bAPSP_EXPORT\b[^;{}()]*?\b(apsp_\w+)\s*\(", text)
    return set(names)
