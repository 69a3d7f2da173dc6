#!/usr/bin/env python3
"""Corruption tests: a flipped byte, a truncated object, a truncated or garbled index, wrong magic
or version (objects, index, packs) give a clear error naming the file and exit 1, never a crash;
the next build (a put of the same content / a publish) replaces what was damaged. Hostile kernel
ids never become file names."""
import json
import os
import random
import shutil

from store_common import Env, object_files, parse_args

args = parse_args(__doc__)
env = Env(args)
pristine = env.path("pristine")
env.tool("put", pristine, "0", "6", "--max-kb", "40", expect=0)
rng = random.Random(7)
counter = [0]


def fresh():
    counter[0] += 1
    d = env.path(f"case{counter[0]}")
    shutil.copytree(pristine, d)
    return d


def mutate(path, fn):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    data = fn(data)
    with open(path, "wb") as f:
        f.write(data)


def expect_damage(store, name, what, commands=("verify",)):
    """Each command exits 1 (not a crash, not 3) and names `name` on stderr."""
    for cmd in commands:
        p = env.qdbuild(*cmd.split(), "--store", store)
        env.check(p.returncode == 1, f"{what}: `store {cmd}` exit {p.returncode}, expected 1\n"
                                     f"{p.stderr[-1500:]}")
        env.check(name in p.stderr, f"{what}: `store {cmd}` does not name {name}:\n{p.stderr[-1500:]}")
        env.check("qdbuild: error: " in p.stderr, f"{what}: no 'qdbuild: error: ' line")


def flip(data, at):
    data[at] ^= 0x41
    return data


# --- objects ---------------------------------------------------------------------------------
object_cases = [
    ("flipped payload byte", lambda d: flip(d, len(d) // 2), "damaged"),
    ("flipped last byte", lambda d: flip(d, len(d) - 1), "damaged"),
    ("flipped header byte", lambda d: flip(d, 30), "header checksum"),
    ("truncated to half", lambda d: d[: len(d) // 2], "truncated"),
    ("truncated in the header", lambda d: d[:20], "truncated"),
    ("emptied", lambda d: bytearray(), "truncated"),
    ("extended", lambda d: d + b"xyz", "extended"),
    ("wrong magic", lambda d: bytearray(b"NOTANOBJ") + d[8:], "wrong magic"),
    ("wrong version", lambda d: d[:8] + bytearray([9, 0, 0, 0]) + d[12:], "version 9"),
]
for what, fn, why in object_cases:
    store = fresh()
    victim = rng.choice(object_files(store))
    address = os.path.basename(os.path.dirname(victim)) + os.path.basename(victim)[:-4]
    mutate(victim, fn)
    expect_damage(store, victim, what, ("verify", "inspect " + address, "pack " + env.path("x.qdpack")))
    p = env.tool("get", store, address)
    env.check(p.returncode == 1 and victim in p.stderr and why in p.stderr,
              f"{what}: get: exit {p.returncode}: {p.stderr}")
    env.check(not os.path.exists(env.path("x.qdpack")), f"{what}: a pack was written from damage")
    # The next build re-puts the same content: the damaged file is replaced.
    p = env.tool("put", store, "0", "6", "--max-kb", "40", expect=0)
    env.check("replacing damaged object" in p.stderr, f"{what}: no warning on replace: {p.stderr}")
    env.qdbuild("verify", "--store", store, expect=0)
    env.tool("check", store, "0", "6", "--max-kb", "40", expect=0)

# A valid object under the wrong address (files swapped).
store = fresh()
a, b = object_files(store)[:2]
shutil.copyfile(a, b)
expect_damage(store, b, "object at the wrong address")

# A missing object the index references.
store = fresh()
victim = object_files(store)[0]
os.unlink(victim)
expect_damage(store, victim, "missing object", ("verify", "ls"))

# --- index -----------------------------------------------------------------------------------
index_cases = [
    ("index emptied", lambda d: bytearray(), "truncated"),
    ("index truncated in the header", lambda d: d[:50], "truncated"),
    ("index truncated", lambda d: d[: len(d) - 8], "truncated"),
    ("index garbled", lambda d: d[:200] + bytearray(rng.randrange(256) for _ in range(64)) + d[264:],
     "checksum"),
    ("index byte flipped", lambda d: flip(d, len(d) - 20), "checksum"),
    ("index wrong magic", lambda d: bytearray(b"QDXNDEX\0") + d[8:], "wrong magic"),
    ("index wrong version", lambda d: d[:8] + bytearray([3, 0, 0, 0]) + d[12:], "version 3"),
]
for what, fn, why in index_cases:
    store = fresh()
    index = os.path.join(store, "index.qdi")
    mutate(index, fn)
    expect_damage(store, index, what, ("verify", "ls", "stats", "gc", "pack " + env.path("y.qdpack")))
    p = env.qdbuild("verify", "--store", store)
    env.check(why in p.stderr, f"{what}: verify does not say '{why}': {p.stderr}")
    # The next build's publish replaces the damaged index (its entries are rebuilt later).
    p = env.tool("put", store, "6", "8", "--max-kb", "40", expect=0)
    env.check("replacing it" in p.stderr, f"{what}: no warning: {p.stderr}")
    env.qdbuild("verify", "--store", store, expect=0)
    env.tool("check", store, "6", "8", "--max-kb", "40", expect=0)

# --- packs -----------------------------------------------------------------------------------
pack = env.path("good.qdpack")
env.qdbuild("pack", pack, "--store", pristine, expect=0)
env.qdbuild("verify", "--store", pack, expect=0)
pack_cases = [
    ("pack header flipped", lambda d: flip(d, 40), "checksum"),
    ("pack truncated", lambda d: d[: len(d) // 2], "truncated"),
    ("pack wrong magic", lambda d: bytearray(b"XXPACK\0\0") + d[8:], "wrong magic"),
    ("pack wrong version", lambda d: d[:8] + bytearray([3, 0, 0, 0]) + d[12:], "version 3"),
    ("pack index flipped", lambda d: flip(d, 64 + 140), "checksum"),
    ("pack object flipped", lambda d: flip(d, len(d) - 300), "damaged"),
]
for what, fn, why in pack_cases:
    bad = env.path("bad.qdpack")
    shutil.copyfile(pack, bad)
    mutate(bad, fn)
    expect_damage(bad, bad, what, ("verify",))
    p = env.qdbuild("verify", "--store", bad)
    env.check(why in p.stderr, f"{what}: verify does not say '{why}': {p.stderr}")

# --- hostile kernel ids ----------------------------------------------------------------------
store = env.path("hostile")
env.tool("hostile", store, expect=0)
env.qdbuild("verify", "--store", store, expect=0)
entries = json.loads(env.qdbuild("ls", "--json", "--store", store, expect=0).stdout)["entries"]
env.check(len(entries) == 9, f"hostile entries: {len(entries)}")
env.qdbuild("ls", "--store", store, expect=0)
for root, dirs, files in os.walk(env.dir):
    for name in dirs + files:
        env.check(len(name) < 100, f"a long name became a file: {name[:80]}")
env.check(not os.path.exists(os.path.join(env.dir, "etc")), "a hostile id escaped the store")
allowed = {"index.qdi", "index.lock", "objects", "CACHEDIR.TAG"}
for root, dirs, files in os.walk(store):
    for name in dirs + files:
        ok = name in allowed or len(name) == 2 or (len(name) == 66 and name.endswith(".qdo"))
        env.check(ok, f"unexpected file name in the store: {os.path.join(root, name)!r}")
env.finish("store_corruption")
