#!/usr/bin/env python3
"""`qdbuild store` commands: stats (with build statistics), ls, pack (with --target), inspect, gc
(--max-size, unreferenced objects), exit statuses and usage errors."""
import json
import os
import shutil

from store_common import Env, object_files, parse_args

args = parse_args(__doc__)
env = Env(args)
store = env.path("store")
env.tool("put", store, "0", "5", "--max-kb", "30", expect=0)
env.tool("put", store, "0", "3", "--max-kb", "30", "--target", "cuda:sm_90", expect=0)
env.tool("build-stats", store, "10", "2", "1500", "30000", expect=0)
env.tool("build-stats", store, "12", "0", "0", "36000", expect=0)

s = json.loads(env.qdbuild("stats", "--store", store, "--json", expect=0).stdout)
env.check(s["entries"] == 8 and s["entries_per_target"] == {"cpu": 5, "cuda:sm_90": 3}, f"{s}")
env.check(s["objects"] == len(object_files(store)), f"objects: {s}")
env.check(s["raw_bytes"] > s["stored_bytes"] > 0 and s["ratio"] > 1, f"sizes: {s}")
env.check(s["builds"]["recorded"] == 2 and s["builds"]["total"]["hits"] == 22
          and s["builds"]["total"]["saved_ms"] == 66000, f"builds: {s['builds']}")
text = env.qdbuild("stats", "--store", store, expect=0).stdout
env.check("ratio:" in text and "22 hits" in text, text)

rows = json.loads(env.qdbuild("ls", "--store", store, "--json", expect=0).stdout)["entries"]
env.check(len(rows) == 8 and all(r["bytes"] > 0 and r["tasks"] >= 1 for r in rows), f"{rows[:2]}")
cpu_rows = json.loads(env.qdbuild("ls", "--store", store, "--json", "--target", "cpu",
                                  expect=0).stdout)["entries"]
env.check(len(cpu_rows) == 5, f"ls --target: {len(cpu_rows)}")
env.check("Solver.kernel_0" in env.qdbuild("ls", "--store", store, expect=0).stdout, "ls text")

# pack: whole store, and one target; the pack reads like the directory.
pack = env.path("all.qdpack")
env.qdbuild("pack", pack, "--store", store, expect=0)
env.qdbuild("verify", "--store", pack, expect=0)
ps = json.loads(env.qdbuild("stats", "--store", pack, "--json", expect=0).stdout)
env.check(ps["entries"] == 8 and ps["raw_bytes"] == s["raw_bytes"], f"pack stats: {ps}")
cuda = env.path("cuda.qdpack")
env.qdbuild("pack", cuda, "--store", store, "--target", "cuda:sm_90", expect=0)
env.check(len(json.loads(env.qdbuild("ls", "--store", cuda, "--json").stdout)["entries"]) == 3,
          "pack --target")
p = env.qdbuild("pack", env.path("none.qdpack"), "--store", store, "--target", "cuda:sm_80")
env.check(p.returncode == 1 and "cuda:sm_80" in p.stderr, f"unknown target: {p.stderr}")
p = env.qdbuild("gc", "--store", pack)
env.check(p.returncode == 1 and "read-only" in p.stderr, f"gc on a pack: {p.stderr}")

# inspect: by address, by prefix, in a pack; unknown address.
victim = object_files(store)[0]
address = os.path.basename(os.path.dirname(victim)) + os.path.basename(victim)[:-4]
info = json.loads(env.qdbuild("inspect", address, "--store", store, "--json", expect=0).stdout)
env.check(info["address"] == address and info["verified"] and info["codec"] in ("zstd", "none")
          and info["file"] == victim and info["level"] == 3, f"inspect: {info}")
env.check(address in env.qdbuild("inspect", address[:10], "--store", store, expect=0).stdout,
          "inspect by prefix")
env.qdbuild("inspect", address, "--store", pack, expect=0)
p = env.qdbuild("inspect", "0" * 64, "--store", store)
env.check(p.returncode == 1 and "qdbuild: error: " in p.stderr, f"inspect missing: {p.stderr}")

# gc: an unreferenced object goes only after the grace period; --max-size evicts LRU entries.
orphan_store = env.path("orphan")
env.tool("put", orphan_store, "100", "101", "--max-kb", "30", expect=0)
orphan = object_files(orphan_store)[0]
dest = os.path.join(store, os.path.relpath(orphan, orphan_store))
os.makedirs(os.path.dirname(dest), exist_ok=True)
shutil.copyfile(orphan, dest)
before = len(object_files(store))
g = json.loads(env.qdbuild("gc", "--store", store, "--json", expect=0).stdout)
env.check(g["objects_removed"] == 0, f"gc removed a young object: {g}")
g = json.loads(env.qdbuild("gc", "--store", store, "--grace", "0", "--json", expect=0).stdout)
env.check(g["objects_removed"] == 1 and len(object_files(store)) == before - 1, f"gc: {g}")
g = json.loads(env.qdbuild("gc", "--store", store, "--grace", "0", "--max-size", "60K",
                           "--json", expect=0).stdout)
env.check(g["entries_evicted"] > 0 and g["bytes_after"] <= 60 * 1024, f"gc --max-size: {g}")
env.qdbuild("verify", "--store", store, expect=0)

# usage and input errors
env.check(env.qdbuild("gc", "--store", store, "--max-size", "lots").returncode == 2, "bad size")
env.check(env.qdbuild("frobnicate", "--store", store).returncode == 2, "bad subcommand")
env.check(env.qdbuild().returncode == 2, "no subcommand")
p = env.qdbuild("stats", "--store", env.path("nope"))
env.check(p.returncode == 1 and "no store at" in p.stderr, f"missing store: {p.stderr}")
env.check("store" in env.run(args.qdbuild, "help").stdout, "help lists store")
env.check(env.qdbuild("--help").returncode == 0, "store --help")
env.finish("store_commands")
