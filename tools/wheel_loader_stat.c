/* stat for the wheel's OpenCL loader (tools/wheel_loader.py renames the loader's stat to this):
 * built by tools/build-wheel.sh for glibc 2.28, where stat is __xstat@GLIBC_2.2.5, which every
 * glibc since has kept; Debian's loader asked for stat@GLIBC_2.33, which glibc 2.28 lacks. */
#include <sys/stat.h>

int apsp_loader_stat(const char *path, struct stat *buf);

int apsp_loader_stat(const char *path, struct stat *buf) {
    return stat(path, buf);
}
