"""What the qdrt binding switches on at interpreter start-up, in an unchanged app (docs/record.md).
Imported once per process: by the `qdrt.pth` hook the qdrt wheel installs (only when one of the
variables below is set, so a plain start imports nothing of qdrt's), or by the checkout's
`sitecustomize` when runtime/python is on PYTHONPATH. The second import finds the first.

  QDRT_RECORD=FILE   record every kernel instance the app calls into FILE (qdrt.record)
  QDRT_STORE=PATH    run the app's kernel calls from the qdbuild store PATH (qdrt.bridge);
                     QDRT_STORE_STATS=FILE writes what was served and what fell back

Neither imports Quadrants: both hook it when the app imports it. A failure to start is one line
on stderr, and the app runs on Quadrants as it would without qdrt."""

import os
import sys


def _start_record():
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


_start_record()
_start_bridge()
