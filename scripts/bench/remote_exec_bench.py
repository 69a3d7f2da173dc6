#!/usr/bin/env python3
"""Remote execution's benchmark (docs/remote-exec.md "Performance"; stdlib only).

In one run on this machine, against BuildGrid 0.9.1 on its own PostgreSQL (tests/lib/
buildgrid_stack.py) with --workers `qdbuild worker`s (capacity 1 each) on 127.0.0.1:

  overhead   the examples' tasks (small units) sent one at a time (max-in-flight 1, one worker):
             each action's turnaround (submission to verified result, the build's -d stats)
             against its compile alone (the worker's own time, from its log). Their difference
             is the per-action cost of remote execution: upload check, scheduling, lease, CAS
             reads and writes, result.
  cold       the Genesis scenes' kernels (every record in tests/genesis, as the Genesis tests
             build them) for --targets, cold: a fresh local store with no remote (-j = the cores), then a fresh
             store and a fresh server with the workers (all actions executed remotely): wall
             time of each, and the ratio.

Then a model, from the measured numbers, of when remote execution beats one machine:
  local(n, c)  = n * t_c / c                         c cores, t_c the mean compile of a task
  remote(n, W) = F + n * u + n * (t_c + o) / W       W worker slots, o the per-action overhead,
                                                     u the client's upload time per task, F the
                                                     fixed cost (capabilities, the last wave)
The task count where remote(n, W) < local(n, c), for c = 2 and 16 and W = 16, 64, 256 slots.
Measured: t_c, o, u, F (the runs above). Extrapolated: W > the --workers run here, and the
server's dispatch keeping up with W (BuildGrid on these 2 cores is part of what is measured).

Usage: remote_exec_bench.py [--qdbuild build/bin/qdbuild] [--workers 2] [--targets cpu,cuda:sm_90]
                            [--records franka,go2,...] [--poll 0.02]
Prints numbers; asserts nothing on time. Exit 125 (skip) without BuildGrid or Genesis.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
sys.path.insert(0, os.path.join(ROOT, "tests", "genesis"))
import buildgrid_stack  # noqa: E402
import genesis_env  # noqa: E402
import skip_policy  # noqa: E402

STATS = re.compile(r"remote execution: (\d+) sent, (\d+) executed, (\d+) from the action cache, "
                   r"(\d+) compiled here; turnaround median ([\d.]+) ms, p90 ([\d.]+) ms; "
                   r"queued median ([\d.]+) ms; capabilities ([\d.]+) ms, uploads ([\d.]+) ms")
LEASE = re.compile(r": exit 0 in (\d+) ms")


def build(qdbuild, paths, store, targets, url=None, jobs=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("QDBUILD_")}
    if url:
        env["QDBUILD_REMOTE_EXECUTION"] = url
    cmd = [qdbuild, "build", *paths, "--store", store, "--json", "-d", "stats"]
    for t in targets:
        cmd += ["--target", t]
    if jobs:
        cmd += ["-j", str(jobs)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        print(p.stderr[-3000:], file=sys.stderr)
        raise SystemExit(f"remote_exec_bench: build failed (exit {p.returncode})")
    doc = json.loads(p.stdout)
    per = doc.get("targets", [doc])
    stats = [m.groups() for m in STATS.finditer(p.stderr)]
    compile_ms = [t["compile_ms"] for t in per]  # the compiles' own time, summed over tasks
    return wall, per, stats, compile_ms, p.stderr


class Workers:
    def __init__(self, qdbuild, url, n, tmp):
        self.logs = [os.path.join(tmp, f"worker{i}.log") for i in range(n)]
        self.procs = []
        for i, log in enumerate(self.logs):
            with open(log, "w") as f:
                self.procs.append(subprocess.Popen(
                    [qdbuild, "worker", "--server", url, "--capacity", "1", "--name", f"bench{i}"],
                    stdout=f, stderr=subprocess.STDOUT))
        end = time.time() + 30
        while time.time() < end and not all("bot session" in open(x).read() for x in self.logs):
            time.sleep(0.05)

    def lease_ms(self):
        out = []
        for log in self.logs:
            out += [int(m.group(1)) for m in LEASE.finditer(open(log).read())]
        return out

    def stop(self):
        for p in self.procs:
            p.send_signal(signal.SIGTERM)
        for p in self.procs:
            p.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--venv", default=os.path.join(ROOT, "build", "buildgrid-venv"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--targets", default="cpu,cuda:sm_90")
    ap.add_argument("--records", default="",
                    help="scene records to build, comma-separated (franka,go2,...); "
                         "default: every tests/genesis/*.qdrecord.json")
    ap.add_argument("--poll", type=float, default=0.02,
                    help="BuildGrid's poll intervals, seconds (the tests use 0.2)")
    args = ap.parse_args()
    targets = args.targets.split(",")
    if not os.access(os.path.join(args.venv, "bin", "bgd"), os.X_OK):
        skip_policy.skip("no-buildgrid-venv", f"no {args.venv}/bin/bgd")
    site = genesis_env.site_packages()
    if site is None:
        skip_policy.skip("no-genesis-venv", "no build/genesis-venv")
    records = sorted(glob.glob(os.path.join(ROOT, "tests", "genesis", "*.qdrecord.json")))
    if args.records:
        wanted = args.records.split(",")
        records = [r for r in records if os.path.basename(r).split(".")[0] in wanted]
    genesis = genesis_env.build_args(site, records[0])
    for r in records[1:]:
        genesis += ["--instances", r]
    cores = os.cpu_count() or 1
    tmp = tempfile.mkdtemp(prefix="qd-remote-exec-bench-")
    try:
        # --- overhead: one action at a time, one worker --------------------------------------
        small = os.path.join(tmp, "small")
        os.makedirs(small)
        for f in ("heat.py", "particles.py", "reduce.py"):
            shutil.copy(os.path.join(ROOT, "examples", f), small)
        with open(os.path.join(small, "qdbuild.toml"), "w") as f:
            f.write("[remote-execution]\nmax-in-flight = 1\n")
        with buildgrid_stack.BuildGridStack(args.venv, poll=args.poll) as stack:
            url = "grpc://" + stack.target
            w = Workers(args.qdbuild, url, 1, tmp)
            try:
                _, per, stats, _, _ = build(args.qdbuild, [small], os.path.join(tmp, "s0"),
                                            ["cpu"], url=url, jobs=1, cwd=small)
            finally:
                w.stop()
            leases = w.lease_ms()
        sent, executed, cached, here, t_med, t_p90, q_med, _, _ = stats[0]
        c_med = statistics.median(leases) if leases else float("nan")
        overhead = float(t_med) - c_med
        print(f"overhead: {executed} of {sent} actions executed one at a time by one worker "
              f"(BuildGrid polling every {args.poll} s)")
        print(f"  turnaround median {float(t_med):.1f} ms (p90 {float(t_p90):.1f}), compile alone "
              f"median {c_med:.1f} ms (worker log): per-action overhead o = {overhead:.1f} ms, of "
              f"which {float(q_med):.1f} ms queued (submission until a worker held it)")

        # --- cold Genesis, local then remote -------------------------------------------------
        local_wall, local_per, _, local_compile, _ = build(
            args.qdbuild, genesis, os.path.join(tmp, "s1"), targets, jobs=cores, cwd=tmp)
        tasks = sum(t["tasks"]["compiled"] for t in local_per)
        compile_s = sum(local_compile) / 1000
        t_c = compile_s / tasks if tasks else float("nan")
        with buildgrid_stack.BuildGridStack(args.venv, poll=args.poll) as stack:
            url = "grpc://" + stack.target
            w = Workers(args.qdbuild, url, args.workers, tmp)
            try:
                remote_wall, remote_per, rstats, _, _ = build(
                    args.qdbuild, genesis, os.path.join(tmp, "s2"), targets, url=url, jobs=cores,
                    cwd=tmp)
            finally:
                w.stop()
        executed = sum(t["tasks"]["remote_executed"] for t in remote_per)
        rtasks = sum(t["tasks"]["compiled"] for t in remote_per)
        print(f"cold: the kernels of the {len(records)} Genesis scene records for "
              f"{','.join(targets)}: {tasks} tasks compiled")
        print(f"  local, -j {cores}:            {local_wall:7.2f} s  (compile {compile_s:.1f} "
              f"core-s, t_c = {1000 * t_c:.0f} ms per task)")
        print(f"  remote, {args.workers} workers x 1 slot: {remote_wall:7.2f} s  ({executed} of "
              f"{rtasks} executed remotely; same cores: workers, server and build share them)")
        print(f"  ratio local / remote: {local_wall / remote_wall:.2f}")
        upload_s = check_s = 0.0
        for s in rstats:
            print(f"  turnaround median {float(s[4]):.0f} ms, p90 {float(s[5]):.0f} ms "
                  f"({s[1]} executed, {s[3]} compiled here); queued median {float(s[6]):.0f} ms; "
                  f"capabilities {float(s[7]):.0f} ms, uploads {float(s[8]):.0f} ms")
            upload_s += float(s[8]) / 1000
            check_s += float(s[7]) / 1000
        u = upload_s / rtasks if rtasks else 0.0

        # --- the model ------------------------------------------------------------------------
        o = max(overhead, 0.0) / 1000
        # F: what a remote build pays once (capabilities, and the last wave's latency t_c + o);
        # u: the client's upload time per task (FindMissingBlobs + BatchUpdateBlobs, serial).
        fixed = check_s + t_c + o
        print("model (measured: t_c, o, u, F; extrapolated: W slots): remote wins above n tasks")
        print(f"  t_c = {1000 * t_c:.0f} ms, o = {1000 * o:.0f} ms, u = {1000 * u:.1f} ms per "
              f"task, F = {1000 * fixed:.0f} ms")
        for c in (2, 16):
            row = []
            for slots in (16, 64, 256):
                gain = t_c / c - (t_c + o) / slots - u
                row.append(f"W={slots}: " + (f"n > {fixed / gain:.0f}" if gain > 0 else "never"))
            print(f"  vs one {c}-core machine: " + ", ".join(row))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
