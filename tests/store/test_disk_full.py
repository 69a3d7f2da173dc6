#!/usr/bin/env python3
"""Disk-full tests: writes that fail with ENOSPC (injected through AtomicFile's test hook,
QD_TEST_FAIL_WRITES_AFTER_BYTES; and, where this process may mount one, a real 1 MiB tmpfs) are
reported naming the file, leave no temp files, and leave the store consistent. Where this
process may not mount, the tmpfs part is left out through tests/lib/skip_policy.py ("no-mount")."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import skip_policy  # noqa: E402

from store_common import Env, parse_args, temp_files

args = parse_args(__doc__)
env = Env(args)
store = env.path("store")
env.tool("put", store, "0", "4", "--max-kb", "64", expect=0)

# --- injected failures: every budget fails somewhere else (object body, header, index) -------
for budget in (0, 1, 100, 4000, 30000, 150000, 400000, 1000000):
    fail_env = {"QD_TEST_FAIL_WRITES_AFTER_BYTES": str(budget)}
    p = env.tool("put", store, "4", "30", "--max-kb", "64", env=fail_env)
    if p.returncode == 0:
        continue  # the budget was enough for everything: fine, nothing to check
    env.check(p.returncode == 1, f"budget {budget}: exit {p.returncode}: {p.stderr}")
    env.check("No space left on device" in p.stderr and store in p.stderr,
              f"budget {budget}: error does not say ENOSPC naming the file: {p.stderr}")
    env.check(not temp_files(store), f"budget {budget}: temp files left: {temp_files(store)}")
    env.qdbuild("verify", "--store", store, expect=0)
    env.tool("check", store, "0", "4", "--max-kb", "64", expect=0)
    env.tool("check", store, "0", "30", "--max-kb", "64", "--allow-missing", expect=0)

# qdbuild itself: a pack that cannot be written is an environment failure (3), no partial file.
out = env.path("out.qdpack")
p = env.qdbuild("pack", out, "--store", store, env={"QD_TEST_FAIL_WRITES_AFTER_BYTES": "5000"})
env.check(p.returncode == 3 and "No space left on device" in p.stderr and out in p.stderr,
          f"pack on a full disk: exit {p.returncode}: {p.stderr}")
env.check(not os.path.exists(out) and not [f for f in os.listdir(env.dir) if f.endswith(".tmp")],
          "a partial pack was left")
# gc's index rewrite failing leaves the old index and every object.
p = env.qdbuild("gc", "--store", store, "--max-size", "1K", "--grace", "0",
                env={"QD_TEST_FAIL_WRITES_AFTER_BYTES": "10"})
env.check(p.returncode == 3, f"gc on a full disk: exit {p.returncode}: {p.stderr}")
env.qdbuild("verify", "--store", store, expect=0)
env.tool("check", store, "0", "4", "--max-kb", "64", expect=0)

# --- a real small filesystem, when this process may mount one ---------------------------------
mnt = env.path("tmpfs")
os.makedirs(mnt)
mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt],
                         capture_output=True).returncode == 0
if not mounted:
    env.check(skip_policy.may_skip_part("no-mount", "store_disk_full: the real 1 MiB tmpfs part "
                                        "(the injected failures ran)"),
              "the tmpfs part could not run")
else:
    try:
        small = os.path.join(mnt, "store")
        p = env.tool("put", small, "0", "200", "--max-kb", "64")
        env.check(p.returncode == 1 and "No space left on device" in p.stderr,
                  f"tmpfs: exit {p.returncode}: {p.stderr[-500:]}")
        env.check(not temp_files(small), f"tmpfs: temp files left: {temp_files(small)}")
        env.qdbuild("verify", "--store", small, expect=0)
        env.tool("check", small, "0", "200", "--max-kb", "64", "--allow-missing", expect=0)
        # Making room lets the store go on.
        env.qdbuild("gc", "--store", small, "--max-size", "100K", "--grace", "0", expect=0)
        env.qdbuild("verify", "--store", small, expect=0)
        print("store_disk_full: tmpfs variant ran")
    finally:
        subprocess.run(["umount", mnt], capture_output=True)
env.finish("store_disk_full")
