"""python -m qdbuild [ARGS...]: the qdbuild command; python -m qdbuild --prefix prints where the
wheel's prefix lies (bin/, lib/, include/, lib/cmake/qdbuild)."""

import sys

import qdbuild

if sys.argv[1:] == ["--prefix"]:
    print(qdbuild.prefix())
    sys.exit(0)
sys.exit(qdbuild.main())
