"""The README's kernel-parameter table is the output of `apsp --kernel-params=help`, which the
library derives from its one list of parameters (src/opencl/param_list.h).

    python3 test_docs.py APSP README.md
"""
import subprocess
import sys


def readme_table(path):
    text = open(path, encoding="utf-8").read()
    begin, end = "<!-- kernel-params begin -->\n", "<!-- kernel-params end -->"
    if begin not in text or end not in text:
        sys.exit("FAIL: %s has no kernel-params markers" % path)
    return text.split(begin, 1)[1].split(end, 1)[0]


def main():
    apsp, readme = sys.argv[1], sys.argv[2]
    listed = subprocess.run([apsp, "--kernel-params=help"], capture_output=True, text=True,
                            check=True).stdout
    if "without OpenCL" in listed:
        print("built without OpenCL: nothing to compare")
        return 77
    documented = readme_table(readme)
    if documented != listed:
        print("FAIL: README.md's table differs from `apsp --kernel-params=help`:")
        print("--- README.md\n" + documented + "--- apsp --kernel-params=help\n" + listed)
        return 1
    print("README.md's table matches %d parameters" % (listed.count("\n") - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
