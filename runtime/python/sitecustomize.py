"""Startup hook of the qdrt binding (Python imports `sitecustomize` at start-up when this
directory is on PYTHONPATH, as coverage.py does for subprocesses). It switches on what the
environment asks for, in an unchanged app (docs/record.md):

  QDRT_RECORD=FILE   record every kernel instance the app calls into FILE (qdrt.record)
  QDRT_STORE=PATH    run the app's kernel calls from the qdbuild store PATH (qdrt.bridge);
                     QDRT_STORE_STATS=FILE writes what was served and what fell back

Then it runs the next `sitecustomize` on sys.path, if the environment has one of its own."""

import importlib.util
import os
import sys


def _start():
    path = os.environ.get("QDRT_RECORD")
    if path:
        try:
            from qdrt import record

            record.install(path)
        except Exception as e:  # noqa: BLE001 - the app runs either way
            print(f"qdrt: QDRT_RECORD is set but recording could not start: {e}",
                  file=sys.stderr)


def _start_bridge():
    path = os.environ.get("QDRT_STORE")
    if path:
        try:
            from qdrt import bridge

            bridge.install(path, os.environ.get("QDRT_STORE_STATS") or None)
        except Exception as e:  # noqa: BLE001 - the app runs either way (on Quadrants)
            print(f"qdrt: QDRT_STORE is set but the bridge could not start: {e}",
                  file=sys.stderr)


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


_start()
_start_bridge()
_chain()
