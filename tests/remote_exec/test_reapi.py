#!/usr/bin/env python3
"""qdbuild's Remote Execution API client against a real server: BuildGrid 0.9.1 on a throw-away
PostgreSQL 15 cluster, both started here on 127.0.0.1 (tests/lib/buildgrid_stack.py), then
qd_reapi_cas_check (tests/remote_exec/cas_check.cpp) on it: capabilities, FindMissingBlobs,
BatchUpdateBlobs and BatchReadBlobs in several batches, ByteStream for blobs over a batch, every
blob read back verified, missing blobs refused.

Usage: test_reapi.py --tool build/bin/qd_reapi_cas_check [--venv build/buildgrid-venv]
Exit: 0 all passed; 1 a failure; 125 (skip) without BuildGrid or PostgreSQL.
"""
import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import buildgrid_stack  # noqa: E402
import qdtest  # noqa: E402

CHECKS = qdtest.Checks("reapi")
check = CHECKS.check


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--venv", default=str(ROOT / "build" / "buildgrid-venv"))
    opts = ap.parse_args()
    buildgrid_stack.require(opts.venv)
    if not os.access(opts.tool, os.X_OK):
        check(False, f"{opts.tool} does not exist (built with gRPC: scripts/setup.sh)")
        return CHECKS.finish()
    with buildgrid_stack.BuildGridStack(opts.venv) as stack:
        url = "grpc://" + stack.target
        p = subprocess.run([opts.tool, url], capture_output=True, text=True, timeout=300)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr)
        check(p.returncode == 0, f"qd_reapi_cas_check {url} exited {p.returncode}")
        check("reapi cas: all passed" in p.stdout, "its checks all passed")
    return CHECKS.finish()


if __name__ == "__main__":
    sys.exit(main())
