#!/usr/bin/env python3
"""Builds the CUDA runtime tests' store without a GPU or the CUDA compile side.

Writes hand-made CUDA bundles (qdrt/task_abi.h "CUDA modules": header, items, images) and
publishes them as "cuda:sm_90" entries with qd_rt_store_tool:
  rt.cuda:saxpy          a well-formed bundle (an ELF-looking cubin for sm_90 and a PTX text)
  rt.cuda:bad_<what>     damaged bundles (every launch must fail with QDRT_ERROR_CORRUPT/VERSION)
With --nvcc, saxpy's bundle holds real code compiled from kernels.cu (cubin + PTX for sm_90),
for scripts/gpu-check.sh.

Usage: make_cuda_store.py --out DIR --tool QD_RT_STORE_TOOL [--nvcc NVCC]
Exit 0, or 1 with the failing step's output."""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "include")
MAGIC = b"QDCUDA\0\0"
CUBIN, PTX = 1, 2


def bundle(items, version=1, count=None):
    """items: [(kind, arch, bytes)] -> the bundle bytes."""
    n = len(items) if count is None else count
    head = MAGIC + struct.pack("<II", version, n)
    offset = 16 + 24 * len(items)
    table, blobs = b"", b""
    for kind, arch, data in items:
        table += struct.pack("<IIQQ", kind, arch, offset + len(blobs), len(data))
        blobs += data
    return head + table + blobs


def fake_items():
    return [(CUBIN, 90, b"\x7fELF" + b"\0" * 60), (PTX, 90, b"// fake PTX\n.version 8.7\n\0")]


def bad_bundles():
    good = bundle(fake_items())
    out = {
        "truncated_header": good[:10],
        "bad_magic": b"NOTCUDA\0" + good[8:],
        "version": bundle(fake_items(), version=2),
        "no_items": bundle([], count=0),
        "truncated_table": good[:16 + 24 + 5],
        "item_outside": good[:-8],
        "unknown_kind": bundle([(7, 90, b"xxxx")]),
        "not_elf": bundle([(CUBIN, 90, b"NOTANELF")]),
        "ptx_unterminated": bundle([(PTX, 90, b".version 8.7")]),
    }
    huge = bytearray(good)
    struct.pack_into("<Q", huge, 16 + 8, (1 << 64) - 8)  # item 0 offset near 2^64
    out["offset_overflow"] = bytes(huge)
    return out


def real_items(nvcc, work):
    src = os.path.join(HERE, "kernels.cu")
    items = []
    for flag, kind, ext in (("-cubin", CUBIN, "cubin"), ("-ptx", PTX, "ptx")):
        path = os.path.join(work, "kernels." + ext)
        cmd = [nvcc, flag, "-arch=sm_90", "-O3", "-I", INCLUDE, "-o", path, src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("make_cuda_store: %s failed:\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
        data = open(path, "rb").read()
        items.append((kind, 90, data + (b"\0" if kind == PTX else b"")))
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--nvcc", help="compile kernels.cu into the saxpy bundle")
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    work = os.path.join(a.out, "work")
    os.makedirs(work)

    def write(name, data):
        path = os.path.join(work, name + ".bundle")
        with open(path, "wb") as f:
            f.write(data)
        return path

    f32 = lambda n: {"name": n, "kind": "scalar", "dtype": "f32", "ndim": 0}  # noqa: E731
    arr = lambda n, d="f32": {"name": n, "kind": "ndarray", "dtype": d, "ndim": 1}  # noqa: E731
    saxpy_args = [f32("a"), arr("x"), arr("y")]
    good = write("saxpy", bundle(real_items(a.nvcc, work) if a.nvcc else fake_items()))

    def entry(kernel, module, tasks, args, instance="a=f32, x=ndarray(f32, 1), y=ndarray(f32, 1)"):
        return {"kernel": "rt.cuda:" + kernel, "instance": instance, "target": "cuda:sm_90",
                "module": module, "tasks": tasks, "arguments": args}

    entries = [
        entry("saxpy", good, [{"name": "saxpy_t0", "kind": "range", "block_dim": 256}],
              saxpy_args),
        # sum: a range task into the temporaries, then a serial task storing the i64 result
        entry("sum", good, [
            {"name": "sum_t0", "kind": "range", "temps_size": 8, "result_dtype": "i64"},
            {"name": "sum_t1", "kind": "serial", "temps_size": 8, "result_dtype": "i64",
             "flags": 1}], [arr("x", "i32")], instance="x=ndarray(i32, 1)"),
        entry("empty", good, [{"name": "empty_t0", "kind": "serial"}], [],
              instance=""),
    ]
    for name, data in sorted(bad_bundles().items()):
        entries.append(entry("bad_" + name, write("bad_" + name, data),
                             [{"name": "saxpy_t0", "kind": "range"}], saxpy_args))
    spec = {"store": os.path.join(a.out, "store"), "entries": entries}
    spec_path = os.path.join(a.out, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1)
    r = subprocess.run([a.tool, "publish", spec_path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("make_cuda_store: qd_rt_store_tool failed:\n" + r.stdout + r.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
