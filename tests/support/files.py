"""Whole files in and out, for the tests that set up outputs and compare them (python3 standard
library only)."""
import os


def read(path):
    """The file's bytes."""
    with open(path, "rb") as f:
        return f.read()


def write(path, data, mode=None):
    """The file holds `data` (created or emptied first); `mode`, when given, is set after."""
    with open(path, "wb") as f:
        f.write(data)
    if mode is not None:
        os.chmod(path, mode)


def temp_fd(pid, directory):
    """The descriptor of a run's temporary file in `directory`, as /proc/PID/fd/N (an unnamed one
    reads 'DIR/#INODE (deleted)'; the directory's own descriptor is DIR itself); None if none."""
    fd_dir = "/proc/%d/fd" % pid
    for n in os.listdir(fd_dir):
        try:
            if os.readlink(os.path.join(fd_dir, n)).startswith(directory + "/"):
                return os.path.join(fd_dir, n)
        except OSError:
            pass
    return None
