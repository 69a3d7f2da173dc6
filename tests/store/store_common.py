"""Helpers shared by the store test drivers (stdlib only)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--qdbuild", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--quick", action="store_true", help="fewer iterations (sanitizer runs)")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory")
    return p.parse_args()


class Env:
    def __init__(self, args):
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="qd-store-test-")
        self.failures = 0

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def run(self, *cmd, env=None, expect=None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        p = subprocess.run(list(cmd), capture_output=True, text=True, env=full_env,
                           errors="replace", timeout=120)
        if expect is not None and p.returncode != expect:
            self.fail(f"{' '.join(map(str, cmd))}: exit {p.returncode}, expected {expect}\n"
                      f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
        return p

    def qdbuild(self, *args, **kw):
        return self.run(self.args.qdbuild, "store", *args, **kw)

    def tool(self, *args, **kw):
        return self.run(self.args.tool, *args, **kw)

    def check(self, cond, message):
        if not cond:
            self.fail(message)
        return cond

    def fail(self, message):
        self.failures += 1
        print("FAIL:", message, flush=True)

    def finish(self, name):
        if self.failures:
            print(f"{name}: {self.failures} failures (directory kept: {self.dir})")
            sys.exit(1)
        if self.args.keep:
            print(f"{name}: directory kept: {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        print(f"{name}: passed")
        sys.exit(0)


def object_files(store):
    out = []
    for root, _, files in os.walk(os.path.join(store, "objects")):
        out.extend(os.path.join(root, f) for f in files if f.endswith(".qdo"))
    return sorted(out)


def temp_files(store):
    out = []
    for root, _, files in os.walk(store):
        out.extend(os.path.join(root, f) for f in files if f.endswith(".tmp"))
    return out
