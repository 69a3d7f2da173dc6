#!/usr/bin/env python3
"""Concurrency test: 4 processes publish overlapping entry sets into one store at once; afterwards
`store verify` is clean and the index holds the union (no lost update)."""
import json
import subprocess

from store_common import Env, parse_args

args = parse_args(__doc__)
env = Env(args)
store = env.path("store")
rounds = 1 if args.quick else 3
for r in range(rounds):
    base = r * 1000
    # Writer w publishes [base + 15w, base + 15w + 30): each entry is written by two writers.
    ranges = [(base + 15 * w, base + 15 * w + 30) for w in range(4)]
    procs = [subprocess.Popen([args.tool, "put", store, str(a), str(b), "--max-kb", "32"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for a, b in ranges]
    for p in procs:
        _, err = p.communicate(timeout=240)
        env.check(p.returncode == 0, f"writer failed: {err}")
    env.qdbuild("verify", "--store", store, expect=0)
    env.tool("check", store, str(base), str(base + 75), "--max-kb", "32", expect=0)

ls = env.qdbuild("ls", "--store", store, "--json", expect=0)
entries = json.loads(ls.stdout)["entries"]
env.check(len(entries) == 75 * rounds, f"index holds {len(entries)} entries, expected {75 * rounds}")
stats = json.loads(env.qdbuild("stats", "--store", store, "--json", expect=0).stdout)
env.check(stats["entries"] == 75 * rounds, f"stats: {stats}")
env.check(stats["unreferenced_objects"] == 0, f"unreferenced objects: {stats}")
env.finish("store_concurrency")
