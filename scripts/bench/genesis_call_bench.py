#!/usr/bin/env python3
"""Per-call cost of a Genesis scene's largest kernel (the most arguments after dataclass
flattening): Quadrants' own call, the same call through the bridge (QDRT_STORE's hook on
Kernel.__call__: plan lookup, then the prepared launch), the prepared launch alone (one ctypes
call into qdrt_prepared_launch), and qdrt_launch on the same values converted once (one ctypes
call; libqdrt chooses the instance and checks and binds every argument at each call). Same process, same
arguments, same thread count (Quadrants' and libqdrt's CPU pools both take every core).

  genesis_call_bench.py [--scene franka|go2] [--calls 2000] [--rounds 5] [--qdbuild PATH]
                        [--python GENESIS_PY] [--fresh KERNEL_ID]

--fresh KERNEL_ID: that kernel instead (one the scene calls with a torch tensor, e.g.
genesis.engine.solvers.rigid.abd.forward_kinematics:kernel_forward_kinematics_links_geoms and its
envs_idx), each call with a new copy of every torch tensor argument, as an app that makes a new
tensor per call (Genesis's set_qpos(..., envs_idx=...) in a planner's collision checks, an RL
reset) calls it: Quadrants' call against the bridge's (no prepared launch: a plan per what
selects the instance, the tensors' pointers read at each call).

The scene runs 20 steps on Quadrants, remembering the last arguments of every kernel; then the
chosen kernel is called `--calls` times each way, `--rounds` rounds interleaved, and the medians
per call are printed with the differences (the kernel's own work is in all three; the
differences are what each path adds). Never asserted; exit 125 without Genesis.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "genesis"))
import genesis_env  # noqa: E402

RUNNER = r'''
import ctypes, json, os, runpy, statistics, sys, time
import quadrants
import qdrt
from qdrt import bridge, describe
Kernel = sys.modules["quadrants.lang.kernel"].Kernel
plain_call = Kernel.__call__
last = {}
def remember(self, *a, **k):
    if not k:
        last[describe.kernel_id(self.func)] = (self, a)
    return plain_call(self, *a, **k)
Kernel.__call__ = remember
sys.argv = [os.environ["QD_SCENE"], "--steps", "20"]
runpy.run_path(sys.argv[0], run_name="__main__")
Kernel.__call__ = plain_call

state = bridge.install(os.environ["QD_STORE"])
store = state.open()
def flattened(kid):
    k = store.kernel(kid)
    return max(len(k.arguments(i)) for i in range(len(k.instances)))
fresh = os.environ.get("QD_FRESH")
kid = fresh or max((k for k in last if k in state.kernels), key=flattened)
kernel, args = last[kid]
tensors = [i for i, a in enumerate(args) if type(a).__module__.startswith("torch")]
if fresh:
    import torch
    if not tensors:
        raise SystemExit(f"{kid} takes no torch tensor")
    def with_fresh():
        a = list(args)
        for i in tensors:
            a[i] = a[i].clone()
        return a
calls, rounds = int(os.environ["QD_CALLS"]), int(os.environ["QD_ROUNDS"])
bridged = Kernel.__call__
plan, _ = state.plan(kernel, args, {})
prepared = plan.prepared
def per_call(f):
    t = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t) / calls * 1e6
# qdrt_launch itself on the same arguments converted once: instance choice and every argument
# checked and bound in C at each call (what qdrt_prepare does once).
values, keep, _ = plan.kernel._values(plan.arguments(args), None)
size, res = ctypes.c_size_t(len(plan.values)), qdrt._Value()
handle = plan.kernel._handle
def checked():
    if qdrt._store._launch_unchecked(handle, values, size, ctypes.byref(res)) != 0:
        raise RuntimeError(qdrt._store._lib.qdrt_last_error())
times = {"quadrants": [], "bridge": [], "prepared": [], "checked": []}
if fresh:
    times = {"quadrants": [], "bridge": [], "clone": []}
    for _ in range(rounds):
        times["clone"].append(per_call(with_fresh))
        times["quadrants"].append(per_call(lambda: plain_call(kernel, *with_fresh())))
        times["bridge"].append(per_call(lambda: bridged(kernel, *with_fresh())))
    rounds = 0
for _ in range(rounds):
    times["quadrants"].append(per_call(lambda: plain_call(kernel, *args)))
    times["bridge"].append(per_call(lambda: bridged(kernel, *args)))
    if prepared is not None:
        times["prepared"].append(per_call(prepared))
    times["checked"].append(per_call(checked))
print(json.dumps({"kernel": kid, "arguments": len(plan.values),
                  "prepared": prepared is not None and not fresh, "fresh": bool(fresh),
                  "us": {k: statistics.median(v) for k, v in times.items() if v}}))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="franka", choices=["franka", "go2"])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "genesis-venv", "bin",
                                                     "python"))
    ap.add_argument("--fresh", metavar="KERNEL_ID")
    opts = ap.parse_args()
    site = genesis_env.site_packages()
    if site is None or not os.path.exists(opts.python):
        print("genesis_call_bench: no build/genesis-venv (scripts/setup.sh)")
        return 125
    record = os.path.join(ROOT, "tests", "genesis", f"{opts.scene}.qdrecord.json")
    with tempfile.TemporaryDirectory(prefix="qd-call-") as tmp:
        store = os.path.join(tmp, "store")
        p = genesis_env.build_store(opts.qdbuild, site, record, store)
        if p.returncode != 0:
            print(p.stderr[-2000:])
            return 1
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(RUNNER)
        env = {k: v for k, v in os.environ.items()
               if k not in ("QDRT_STORE", "QDRT_RECORD", "QDRT_STORE_STATS")}
        env.update(PYTHONPATH=os.path.join(ROOT, "runtime", "python"), QD_STORE=store,
                   QD_CALLS=str(opts.calls), QD_ROUNDS=str(opts.rounds),
                   QD_FRESH=opts.fresh or "",
                   QD_SCENE=os.path.join(ROOT, "tests", "genesis", "scenes", f"{opts.scene}.py"),
                   QDRT_LIBRARY=os.environ.get("QDRT_LIBRARY", os.path.join(
                       ROOT, "build", "lib", "libqdrt.so")))
        p = subprocess.run([opts.python, runner], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(f"exit {p.returncode}: {p.stderr[-3000:]}")
            return 1
        r = json.loads(p.stdout.strip().splitlines()[-1])
    us = r["us"]
    if r["fresh"]:
        q, b, c = us["quadrants"] - us["clone"], us["bridge"] - us["clone"], us["clone"]
        print(f"{opts.scene}: {r['kernel']} ({r['arguments']} arguments), a new copy of its torch "
              f"tensors at each call, median of {opts.rounds} rounds x {opts.calls} calls "
              f"(less the copy itself, {c:.2f} us):")
        print(f"  Quadrants Kernel.__call__   {q:8.2f} us/call")
        print(f"  bridge (hooked __call__)    {b:8.2f} us/call ({b / q:.2f}x Quadrants)")
        return 0
    print(f"{opts.scene}: largest kernel {r['kernel']} ({r['arguments']} arguments), "
          f"median of {opts.rounds} rounds x {opts.calls} calls:")
    print(f"  Quadrants Kernel.__call__   {us['quadrants']:8.2f} us/call")
    print(f"  bridge (hooked __call__)    {us['bridge']:8.2f} us/call "
          f"({us['bridge'] / us['quadrants']:.2f}x Quadrants)")
    if "prepared" in us:
        print(f"  prepared qdrt_launch alone  {us['prepared']:8.2f} us/call "
              f"(the bridge adds {us['bridge'] - us['prepared']:.2f} us; Quadrants "
              f"{us['quadrants'] - us['prepared']:+.2f} us over it)")
    else:
        print("  (the call's arguments can change between calls: no prepared launch)")
    print(f"  qdrt_launch, checked        {us['checked']:8.2f} us/call (instance choice and "
          f"{r['arguments']} arguments checked and bound in C at every call"
          + (f": {us['checked'] - us['prepared']:.2f} us over the prepared launch)"
             if "prepared" in us else ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
