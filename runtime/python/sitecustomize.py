"""Startup hook of the qdrt binding for a checkout or a `cmake --install` prefix (Python imports
`sitecustomize` at start-up when this directory is on PYTHONPATH, as coverage.py does for
subprocesses). It runs qdrt._startup, which switches on what QDRT_RECORD and QDRT_STORE ask for
(docs/record.md); the qdrt wheel does the same from a .pth file, with no PYTHONPATH.

Then it runs the next `sitecustomize` on sys.path, if the environment has one of its own."""

import importlib.util
import os
import sys


def _chain():
    here = os.path.dirname(os.path.abspath(__file__))
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        candidate = os.path.join(entry, "sitecustomize.py")
        if os.path.isfile(candidate):
            spec = importlib.util.spec_from_file_location("_qdrt_next_sitecustomize", candidate)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


if os.environ.get("QDRT_RECORD") or os.environ.get("QDRT_STORE"):
    import qdrt._startup  # noqa: F401 - runs on import, once per process
_chain()
