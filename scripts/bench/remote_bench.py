#!/usr/bin/env python3
"""The remote cache's benchmark (docs/remote.md "Performance"; stdlib only).

Corpora: tests/diff/cases and examples; and, with build/genesis-venv (scripts/setup.sh), every
kernel the Genesis Franka scene calls (built from its record, tests/genesis/franka.qdrecord.json,
as the Genesis tests build it; --no-genesis leaves it out). In one run, against an nginx (WebDAV)
started on a free port in a temporary directory, per corpus:

  compile      a fresh local store, no remote: everything compiles (the baseline)
  warm remote  a fresh local store, the nginx already holding every task: nothing compiles
  local no-op  the compile build's store built again (no work to do)
  remote no-op the warm-remote build's store built again, remote still configured

Each is the median of --repeat runs (fresh stores each time). Prints the times, the ratios
(targets: compile / warm remote >= 10, remote no-op / local no-op <= 1.5) and the requests the
warm build made (nginx's access log: GETs per task; batching matters). Exit 1 when a target is
missed (--no-check: report only).

Run: python3 scripts/bench/remote_bench.py [--qdbuild build/bin/qdbuild] [--repeat 5] [--jobs N]
                                           [--no-genesis]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "remote"))
import remote_servers as rs  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests", "genesis"))
import genesis_env  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--jobs", type=int, default=0, help="build jobs (default: all cores)")
    p.add_argument("--no-check", action="store_true")
    p.add_argument("--no-genesis", action="store_true", help="leave the Genesis corpus out")
    args = p.parse_args()
    if not rs.have_servers():
        print("remote_bench: nginx is not installed (scripts/setup.sh)", file=sys.stderr)
        return 3
    corpora = [("tests/diff/cases + examples",
                [os.path.join(ROOT, "tests", "diff", "cases"), os.path.join(ROOT, "examples")])]
    site = genesis_env.site_packages()
    if site is not None and not args.no_genesis:
        corpora.append(("the Genesis Franka scene's kernels (its record)",
                        genesis_env.build_args(site, os.path.join(ROOT, "tests", "genesis",
                                                                  "franka.qdrecord.json"))))
    elif not args.no_genesis:
        print("remote_bench: no build/genesis-venv: the Genesis corpus is left out")
    tmp = tempfile.mkdtemp(prefix="qd-remote-bench-")
    nginx = rs.Nginx(tmp)
    status = 0
    try:
        for i, (name, paths) in enumerate(corpora):
            status |= measure(args, nginx, tmp, f"c{i}", name, paths)
    finally:
        nginx.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return status


def measure(args, nginx, tmp, tag, name, paths):
    n = [0]

    def build(store, remote):
        env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
        env["QDBUILD_REMOTE"] = remote
        cmd = [args.qdbuild, "build", *paths, "--store", store, "--json"]
        if args.jobs:
            cmd += ["-j", str(args.jobs)]
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp)
        dt = time.perf_counter() - t0
        if r.returncode != 0:
            print(r.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"remote_bench: build failed (exit {r.returncode})")
        return dt, json.loads(r.stdout)

    def fresh():
        n[0] += 1
        return os.path.join(tmp, f"{tag}-store{n[0]}")

    url = nginx.url(f"/bench-{tag}")
    # Warm the remote once.
    _, doc = build(fresh(), url)
    tasks = doc["tasks"]["total"]
    compile_t, warm_t, noop_local, noop_remote, gets, puts = [], [], [], [], [], []
    for _ in range(args.repeat):
        s = fresh()
        dt, doc = build(s, "")
        assert doc["tasks"]["compiled"] > 0
        compile_t.append(dt)
        dt, doc = build(s, "")
        assert doc["noop"]
        noop_local.append(dt)
        s = fresh()
        before = nginx.requests()
        dt, doc = build(s, url)
        after = nginx.requests()
        if doc["tasks"]["compiled"] != 0:
            raise SystemExit(f"remote_bench: the warm build compiled {doc['tasks']}")
        warm_t.append(dt)
        gets.append(after.get("GET", 0) - before.get("GET", 0))
        puts.append(after.get("PUT", 0) - before.get("PUT", 0))
        dt, doc = build(s, url)
        assert doc["noop"]
        noop_remote.append(dt)
    med = statistics.median
    c, w, nl, nr = med(compile_t), med(warm_t), med(noop_local), med(noop_remote)
    print(f"corpus: {name}, {tasks} tasks; median of {args.repeat} runs")
    print(f"  compile (fresh store, no remote)    {c * 1000:8.1f} ms")
    print(f"  warm remote (fresh store, nginx)    {w * 1000:8.1f} ms")
    print(f"  local no-op                         {nl * 1000:8.1f} ms")
    print(f"  warm-remote no-op                   {nr * 1000:8.1f} ms")
    print(f"  requests of a warm build: {med(gets):.0f} GET, {med(puts):.0f} PUT "
          f"({med(gets) / max(tasks, 1):.2f} GET per task: one for its record, one for its "
          f"object when the store lacks it; in parallel batches on keep-alive connections)")
    speedup = c / w
    noop_ratio = nr / nl
    print(f"ratio compile / warm remote:  {speedup:.1f}x (target >= 10)")
    print(f"ratio remote no-op / local no-op: {noop_ratio:.2f} (target <= 1.5)")
    ok = speedup >= 10 and noop_ratio <= 1.5
    return 0 if ok or args.no_check else 1


if __name__ == "__main__":
    sys.exit(main())
