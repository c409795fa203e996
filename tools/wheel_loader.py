"""Makes the host's OpenCL ICD loader loadable on glibc 2.28 for the wheel (docs/wheel.md).

    python tools/wheel_loader.py LOADER STAT_SHIM OUT

LOADER is Debian 12's libOpenCL.so.1 (ocl-icd), built against glibc 2.36: it asks for dlopen,
dlsym and dlclose at GLIBC_2.34 (when they moved from libdl into libc) and for stat at
GLIBC_2.33 (before which glibc exported only __xstat). OUT is a copy whose references need
nothing newer than glibc 2.28, made with patchelf (tools/build-wheel.sh puts it on PATH):

- dlopen, dlsym, dlclose lose their version and libdl.so.2 is added as needed, so they bind to
  libc's (2.34 and later) or libdl's (before);
- stat is renamed apsp_loader_stat, which STAT_SHIM (tools/wheel_loader_stat.c, built for glibc
  2.28, so that it calls __xstat@GLIBC_2.2.5) defines, and the shim is added as needed;
- the version needs GLIBC_2.33 and GLIBC_2.34, which no symbol names any more, become
  GLIBC_2.2.5 (name and hash rewritten in place): the dynamic linker refuses a library whose
  needed version the C library lacks, used or not, and auditwheel reads the tag from them.

The loader's other references are GLIBC_2.4 or older; OUT is checked for that.
"""

import shutil
import struct
import subprocess
import sys
import tempfile

from elftools.elf.elffile import ELFFile

MOVED = ("dlopen", "dlsym", "dlclose", "stat")
NEWER = (b"GLIBC_2.33", b"GLIBC_2.34")
FLOOR = b"GLIBC_2.2.5"


def elf_hash(name):
    """The ELF hash of a version name (System V ABI), as vna_hash holds it."""
    h = 0
    for c in name:
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def patchelf(*args):
    subprocess.run(["patchelf", *args], check=True)


def retag_version_needs(path):
    """Rewrites the Vernaux entries named in NEWER to FLOOR (Elf64: hash, flags, other, name,
    next). Returns how many it rewrote."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        section = elf.get_section_by_name(".gnu.version_r")
        strings = elf.get_section_by_name(".dynstr")
        start, count = section["sh_offset"], section["sh_info"]
        table = strings.data()
        floor_name = table.index(FLOOR + b"\0")
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        entry, rewritten = start, 0
        for _ in range(count):
            _, aux_count, _, aux_offset, next_offset = struct.unpack_from("<HHIII", data, entry)
            aux = entry + aux_offset
            for _ in range(aux_count):
                _, flags, other, name, aux_next = struct.unpack_from("<IHHII", data, aux)
                if table[name : table.index(b"\0", name)] in NEWER:
                    struct.pack_into("<IHHI", data, aux, elf_hash(FLOOR), flags, other, floor_name)
                    rewritten += 1
                aux += aux_next
            entry += next_offset
        f.seek(0)
        f.write(data)
    return rewritten


def newest_version(path):
    with open(path, "rb") as f:
        section = ELFFile(f).get_section_by_name(".gnu.version_r")
        names = [aux.name for _, auxes in section.iter_versions() for aux in auxes]
    glibc = [tuple(int(p) for p in n[6:].split(".")) for n in names if n.startswith("GLIBC_")]
    return max(glibc)


def main(loader, shim, out):
    with tempfile.TemporaryDirectory() as work:
        shutil.copyfile(loader, out)
        patchelf(*[a for name in MOVED for a in ("--clear-symbol-version", name)], out)
        renames = f"{work}/renames"
        with open(renames, "w") as f:
            f.write("stat apsp_loader_stat\n")
        patchelf("--rename-dynamic-symbols", renames, out)
        soname = subprocess.run(["patchelf", "--print-soname", shim], check=True,
                                capture_output=True, text=True).stdout.strip()
        patchelf("--add-needed", "libdl.so.2", "--add-needed", soname, out)
    if retag_version_needs(out) != len(NEWER):
        sys.exit(f"wheel_loader.py: {loader}: not the GLIBC_2.33 and 2.34 needs expected")
    if newest_version(out) > (2, 28):
        sys.exit(f"wheel_loader.py: {out} still needs glibc {newest_version(out)}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    main(*sys.argv[1:])
