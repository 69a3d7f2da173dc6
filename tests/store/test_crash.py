#!/usr/bin/env python3
"""Crash test: a writer is SIGKILLed at random points 100 times; afterwards `store verify` is
clean, every entry whose publish completed is readable, and `store gc` removes the dead writers'
temp files. A kill landed in the middle of a write when the dead writer left a temp file (its
name carries the writer's pid: .<name>.<pid>.<16 hex>.tmp, support/atomic_file.cpp); the test
counts those per kind (object, index) and requires at least one, so that it cannot pass on kills
that all came between writes."""
import os
import random
import signal
import subprocess
import time

from store_common import Env, parse_args, temp_files

args = parse_args(__doc__)
env = Env(args)
store = env.path("store")
rng = random.Random(4)
kills = 30 if args.quick else 100
completed = set()
next_entry = 0
killed_mid_write = 0
mid_write_kinds = {"object": 0, "index": 0}
start = time.monotonic()
for k in range(kills):
    first = next_entry
    proc = subprocess.Popen([args.tool, "put", store, str(first), str(first + 1000),
                             "--max-kb", "64"], stdout=subprocess.PIPE, text=True)
    time.sleep(rng.uniform(0.0, 0.06))
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate()
    if proc.returncode != -signal.SIGKILL:
        env.fail(f"writer exited with {proc.returncode} instead of being killed")
    # The dead writer's temp files: it was killed between creating one and renaming it.
    left = [os.path.basename(t) for t in temp_files(store)
            if f".{proc.pid}." in os.path.basename(t)]
    if left:
        killed_mid_write += 1
        for name in left:
            mid_write_kinds["index" if name.startswith(".index.qdi.") else "object"] += 1
    done = [int(line.split()[1]) for line in out.splitlines() if line.startswith("published ")]
    completed.update(done)
    # The next writer starts after the last completed entry, re-putting the interrupted one.
    next_entry = (max(done) + 1) if done else first
    if k % 25 == 24:
        # A mid-run verify must be clean too (temps of dead writers are not damage).
        env.qdbuild("verify", "--store", store, expect=0)

print(f"{kills} kills in {time.monotonic() - start:.1f} s; {len(completed)} entries completed; "
      f"{killed_mid_write} kills landed mid-write (temp files left: {mid_write_kinds['object']} "
      f"object, {mid_write_kinds['index']} index)")
env.check(len(completed) > 0, "no entry ever completed: kills came too early")
env.check(killed_mid_write > 0, "no kill landed in the middle of a write (no dead writer left a "
          "temp file): the test exercised only kills between writes")
env.qdbuild("verify", "--store", store, expect=0)
# Every completed entry is in the index and its objects are intact.
env.tool("check", store, "0", str(next_entry), "--max-kb", "64", "--allow-missing", expect=0)
for i in sorted(completed):
    p = env.tool("check", store, str(i), str(i + 1), "--max-kb", "64")
    if p.returncode != 0:
        env.fail(f"completed entry {i} is not readable: {p.stderr}")
        break
gc = env.qdbuild("gc", "--store", store, "--grace", "0", expect=0)
env.check(not temp_files(store), f"temp files left after gc: {temp_files(store)[:5]}")
env.qdbuild("verify", "--store", store, expect=0)
env.tool("check", store, "0", str(next_entry), "--max-kb", "64", "--allow-missing", expect=0)
# The store keeps working: finish the interrupted entries.
env.tool("put", store, str(next_entry), str(next_entry + 3), "--max-kb", "64", expect=0)
env.qdbuild("verify", "--store", store, expect=0)
env.finish("store_crash")
