#!/usr/bin/env python3
"""Builds the runtime tests' stores without the compiler.

Until qdbuild compiles kernels (issue 5), the task modules are hand-written C++ that follows
qdrt/task_abi.h (runtime/tests/modules/*.cpp, each kernel's Python source in a comment), compiled
by a real compiler (clang++-19 -shared -fPIC -O2) where codegen will emit them, and published
with the builder's own store library through build/bin/qd_rt_store_tool, then packed with
`qdbuild store pack`.

Usage: make_test_store.py --out DIR --tool QD_RT_STORE_TOOL --qdbuild QDBUILD [--cxx CXX]
Writes DIR/good (directory store), DIR/good.qdpack, DIR/bad (entries that must fail to load),
DIR/spec-*.json. Exit 0, or 1 with the failing step's output.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "include")


def arr(name, dtype, ndim=1, element_shape=()):
    return {"name": name, "kind": "ndarray", "dtype": dtype, "ndim": ndim,
            "element_shape": list(element_shape)}


def sca(name, dtype):
    return {"name": name, "kind": "scalar", "dtype": dtype, "ndim": 0}


def tpl(name):
    return {"name": name, "kind": "template"}


def rng(name, grain=0, **kw):
    return dict({"name": name, "kind": "range", "grain": grain}, **kw)


def ser(name, **kw):
    return dict({"name": name, "kind": "serial"}, **kw)


def good_entries(so):
    def e(kernel, instance, tasks, arguments, target="cpu"):
        return {"kernel": "rt.basic:" + kernel, "instance": instance, "target": target,
                "module": so, "tasks": tasks, "arguments": arguments}

    r_i64 = {"result_dtype": "i64"}
    r_i32 = {"result_dtype": "i32"}
    shift_args = [arr("a", "f32"), arr("b", "f32")]
    shift_tasks = [rng("shift_t0", **r_i32), ser("shift_t1", flags=1, **r_i32)]
    return [
        e("saxpy", "a=f32, x=ndarray(f32, 1), y=ndarray(f32, 1)", [rng("saxpy_t0", grain=256)],
          [sca("a", "f32"), arr("x", "f32"), arr("y", "f32")]),
        e("sum_i64", "x=ndarray(i64, 1)", [ser("sum_i64_t0", flags=1, **r_i64)],
          [arr("x", "i64")]),
        e("total_fill", "x=ndarray(i32, 1), out=ndarray(i32, 1)",
          [rng("total_fill_t0", grain=64, temps_size=8, **r_i64),
           rng("total_fill_t1", grain=64, temps_size=8, **r_i64),
           ser("total_fill_t2", flags=1, temps_size=8, **r_i64)],
          [arr("x", "i32"), arr("out", "i32")]),
        e("advance", "pos=ndarray(f32[3], 1), vel=ndarray(f32[3], 1), dt=f32",
          [rng("advance_t0", grain=128)],
          [arr("pos", "f32", 1, [3]), arr("vel", "f32", 1, [3]), sca("dt", "f32")]),
        e("fill_k", "out=ndarray(i32, 1), k=2", [rng("fill_k2_t0")], [arr("out", "i32"), tpl("k")]),
        e("fill_k", "out=ndarray(i32, 1), k=3", [rng("fill_k3_t0")], [arr("out", "i32"), tpl("k")]),
        e("scale", "x=ndarray(f32, 1), s=f64", [rng("scale_f32_t0")],
          [arr("x", "f32"), sca("s", "f64")]),
        e("scale", "x=ndarray(f64, 1), s=f64", [rng("scale_f64_t0")],
          [arr("x", "f64"), sca("s", "f64")]),
        e("noop", "x=ndarray(f32, 1), n=i32", [ser("noop_t0")], [arr("x", "f32"), sca("n", "i32")]),
        e("dot", "x=ndarray(f32, 1), y=ndarray(f32, 1)", [ser("dot_t0", result_dtype="f64")],
          [arr("x", "f32"), arr("y", "f32")]),
        e("count_true", "m=ndarray(u1, 1), flag=u1", [ser("count_true_t0", **r_i32)],
          [arr("m", "u1"), sca("flag", "u1")]),
        e("shift", "a=ndarray(f32, 1), b=ndarray(f32, 1)", shift_tasks, shift_args),
        e("shift", "a=ndarray(f32, 1), b=ndarray(f32, 1)", [ser("shift_whole", flags=1, **r_i32)],
          shift_args, target="cpu+whole"),
        e("shift_nowhole", "a=ndarray(f32, 1), b=ndarray(f32, 1)", shift_tasks, shift_args),
        # Draws qd.random (QDRT_LAUNCH_RANDOM = 4): one iteration per chunk, so every thread
        # of the pool can take one.
        e("rand_probe", "out=ndarray(i64, 2)", [rng("rand_probe_t0", grain=1, flags=4)],
          [arr("out", "i64", 2)]),
        # Built for another target only: the runtime lists it and says so on launch.
        e("gpu_only", "x=ndarray(f32, 1)", [rng("saxpy_t0")], [arr("x", "f32")],
          target="cuda:sm_90"),
    ]


def bad_entries(so, bad_abi_so):
    def e(kernel, tasks, module=so, arguments=()):
        return {"kernel": "rt.bad:" + kernel, "instance": "x=ndarray(f32, 1)", "target": "cpu",
                "module": module, "tasks": tasks, "arguments": list(arguments) or [arr("x", "f32")]}

    return [
        e("abi_version", [ser("noop_t0")], module=bad_abi_so),
        e("missing_symbol", [ser("no_such_task")]),
        e("missing_extent", [rng("noop_t0")]),
        e("metadata_size", [ser("noop_t0", metadata_size=16)]),
        e("metadata_version", [ser("noop_t0", abi_version=7)]),
        # Graph loops (launch metadata version 5): a loop that starts after the task ending it,
        # a flag that is not a 0-dim i32 array, a version 4 task with loop ends, a flag past
        # the passed arguments.
        e("loop_forward", [ser("noop_t0", abi_version=5, loop_ends=[[1, 0]])],
          arguments=[arr("flag", "i32", 0)]),
        e("loop_flag_f32", [ser("noop_t0", abi_version=5, loop_ends=[[0, 0]])]),
        e("loop_v4", [ser("noop_t0", loop_ends=[[0, 0]])], arguments=[arr("flag", "i32", 0)]),
        e("loop_flag_missing", [ser("noop_t0", abi_version=5, loop_ends=[[0, 1]])],
          arguments=[arr("flag", "i32", 0)]),
    ]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write("make_test_store: failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--qdbuild", required=True)
    ap.add_argument("--cxx", default=os.environ.get("QDRT_TEST_CXX", "clang++-19"))
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "modules"))
    src = os.path.join(HERE, "modules", "basic.cpp")
    so = os.path.join(out, "modules", "basic.so")
    bad_abi = os.path.join(out, "modules", "bad_abi.so")
    flags = ["-std=c++20", "-shared", "-fPIC", "-O2", "-I" + INCLUDE, "-Wl,--as-needed"]
    run([a.cxx] + flags + [src, "-o", so])
    run([a.cxx] + flags + ["-DTEST_ABI_VERSION=99", src, "-o", bad_abi])
    for name, entries in (("good", good_entries(so)), ("bad", bad_entries(so, bad_abi))):
        spec = os.path.join(out, "spec-%s.json" % name)
        with open(spec, "w") as f:
            json.dump({"store": os.path.join(out, name), "entries": entries}, f, indent=1)
        run([a.tool, "publish", spec])
    run([a.qdbuild, "store", "pack", os.path.join(out, "good.qdpack"),
         "--store", os.path.join(out, "good")])
    print("make_test_store: wrote %s/{good,good.qdpack,bad}" % out)


if __name__ == "__main__":
    main()
