"""qdbuild installed from its wheel. This package is laid out as an install prefix (bin/qdbuild,
lib/libqdbuild.so.0, lib/libqdbuild-backend.so, include/qdbuild, lib/cmake/qdbuild); the
`qdbuild` command on PATH is main() below, which replaces this process with bin/qdbuild.

  qdbuild.prefix()      the prefix, e.g. for CMake: -DCMAKE_PREFIX_PATH=$(python -m qdbuild --prefix)
  qdbuild.executable()  bin/qdbuild
"""

import os
import sys

__version__ = "0.1.0"


def prefix():
    return os.path.dirname(os.path.abspath(__file__))


def executable():
    return os.path.join(prefix(), "bin", "qdbuild")


def main():
    exe = executable()
    try:
        os.execv(exe, ["qdbuild"] + sys.argv[1:])
    except OSError as e:
        print(f"qdbuild: cannot run {exe}: {e.strerror}", file=sys.stderr)
        return 127
