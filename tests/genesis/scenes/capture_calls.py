"""Captures kernel calls the store serves (qdrt's bridge), for replaying them elsewhere: the first
call of each kernel instance, its arguments as libqdrt takes them (arrays in memory order,
scalars, template texts) before the call and its arrays after it. Written to DIR as index.json
and zlib-compressed little-endian bytes per array (N_K.in.z; N_K.out.z where the call changed
it), so a replay needs no numpy (tests/diff/gpu_compare.py --genesis). A call with an array that
is not C-contiguous host memory, or with over MAX_CALL_BYTES of compressed arrays, is listed with
why and not captured."""
import json
import os
import zlib

import numpy as np

MAX_CALL_BYTES = 1 << 20  # a call's arrays, compressed; larger ones (meshes, SDFs) are listed

_NAMES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
          "uint16": "u16", "uint32": "u32", "uint64": "u64", "float32": "f32", "float64": "f64",
          "bool": "u1"}


def _host_view(v):
    """A numpy view of an argument's memory (a qdrt.HostArray over a Quadrants ndarray, a numpy
    array), or None where it is not C-contiguous host memory."""
    import ctypes
    from qdrt import HostArray
    if isinstance(v, HostArray):
        if v.strides is not None or type(v) is not HostArray:
            return None
        dtype = np.dtype({v_: k for k, v_ in _NAMES.items()}[v.dtype])
        n = int(np.prod(v.shape, dtype=np.int64))
        if n == 0:
            return np.zeros(v.shape, dtype)
        buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(v.data)
        return np.frombuffer(buf, dtype).reshape(v.shape)
    a = np.asarray(v)
    if a.dtype.name not in _NAMES or not a.flags.c_contiguous:
        return None
    return a


def enable(out_dir):
    from qdrt import bridge
    os.makedirs(out_dir, exist_ok=True)
    calls, skipped, seen = [], {}, set()
    original = bridge._Plan.run

    def run(self, args):
        key = (self.kid, id(self.kernel), tuple(v for v in self.values if isinstance(v, str)))
        if key in seen:
            return original(self, args)
        seen.add(key)
        values = list(self.arguments(args))
        n = len(calls)
        entry = {"kernel": self.kid, "args": []}
        arrays = []
        for k, v in enumerate(values):
            if isinstance(v, str):
                entry["args"].append({"kind": "text", "value": v})
            elif isinstance(v, (bool, np.bool_)):
                entry["args"].append({"kind": "bool", "value": bool(v)})
            elif isinstance(v, (int, np.integer)):
                entry["args"].append({"kind": "int", "value": int(v)})
            elif isinstance(v, (float, np.floating)):
                entry["args"].append({"kind": "float", "value": float(v)})
            else:
                a = _host_view(v)
                if a is None:
                    skipped[self.kid] = f"argument {k}: {type(v).__name__} {v!r}"
                    return original(self, args)
                name = f"{n}_{k}"
                before = a.tobytes()
                entry["args"].append({"kind": "array", "dtype": _NAMES[a.dtype.name],
                                      "shape": list(a.shape), "file": name})
                arrays.append((a, name, before, entry["args"][-1]))
        result = self.kernel(*values)
        written, files = 0, []
        for a, name, before, desc in arrays:
            after = a.tobytes()
            for ext, data in ((".in.z", before), (".out.z", after)):
                if ext == ".out.z" and after == before:
                    desc["unchanged"] = True
                    continue
                z = zlib.compress(data, 6)
                written += len(z)
                files.append((name + ext, z))
        if written > MAX_CALL_BYTES:
            skipped[self.kid] = f"{written} bytes of compressed arrays (over {MAX_CALL_BYTES})"
            return result
        for name, z in files:
            with open(os.path.join(out_dir, name), "wb") as f:
                f.write(z)
        if result is not None:
            entry["result"] = result.item() if hasattr(result, "item") else result
        calls.append(entry)
        return result

    bridge._Plan.run = run

    def write():
        with open(os.path.join(out_dir, "index.json"), "w") as f:
            json.dump({"calls": calls, "not_captured": skipped}, f, indent=0)
    import atexit
    atexit.register(write)
