"""quadrants.lang: only what kernels read at trace time (impl.get_runtime().default_fp) and the
compiler's exception classes (exception.py)."""

from . import exception, impl  # noqa: F401
