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
