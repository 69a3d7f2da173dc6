"""quadrants.lang: only what kernels read at trace time (impl.get_runtime().default_fp)."""

from . import impl  # noqa: F401
