#!/usr/bin/env python3
"""GPU checks for scripts/gpu-check.sh (stdlib + ctypes; numpy not needed).

  gpu_compare.py --probe                          exit 0 when a CUDA GPU is usable, else 125
  gpu_compare.py --selftest STORE --cubin CUBIN   the runtime's hand-written kernels
                                                  (tests/cuda_runtime/kernels.cu) on the GPU,
                                                  then the benchmarks: saxpy on 2^28 floats vs a
                                                  device-to-device cuMemcpy, launch overhead vs
                                                  an empty cuLaunchKernel
  gpu_compare.py --corpus STORE [-k PATTERN]      every differential case (tests/diff/cases_spec)
                                                  built for cpu and cuda:sm_90 in STORE: CPU run
                                                  vs GPU run (arrays copied to the device)
  gpu_compare.py --bandwidth STORE                qdbuild-compiled saxpy and copy
                                                  (tests/cuda/bench_kernels.py) on 2^28 floats
                                                  against a device-to-device cuMemcpy, the graph
                                                  kernel `relax` as a CUDA graph against the host
                                                  loop (QDRT_CUDA_GRAPHS=0), qd.random's draws
                                                  against a model of Quadrants' generator; --cpu:
                                                  the same kernels' results on the CPU (small
                                                  arrays)
  gpu_compare.py --cpu-record STORE OUT           every case on the CPU, its outputs to OUT (JSON)
  gpu_compare.py --cpu-check STORE REF            every case on the CPU against REF: the same
                                                  outputs (the device bundle's CPU-side check,
                                                  scripts/gpu-bundle.sh)
  gpu_compare.py --genesis STORE CALLS [--cpu]    Genesis's kernel calls captured on the CPU
                 [--times FILE]                   (tests/genesis/scenes/capture_calls.py)
                                                  replayed on the GPU (--cpu: on this CPU)
                                                  against the outputs they had there, then each
                                                  timed from the same inputs (--times: to FILE;
                                                  on the GPU with genesis_times_cpu.json beside
                                                  it, a table of both)
--table FILE appends "name|value|verdict" rows for the final table. Exit 0 all good, 1 not.
"""
import argparse
import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import skip_policy  # noqa: E402
os.environ.setdefault("QDRT_LIBRARY", os.path.join(ROOT, "build", "lib", "libqdrt.so"))

_TYPESTR = {"i8": "<i1", "i16": "<i2", "i32": "<i4", "i64": "<i8", "u8": "<u1", "u16": "<u2",
            "u32": "<u4", "u64": "<u8", "f32": "<f4", "f64": "<f8", "u1": "|b1"}


class Cuda:
    """A tiny driver wrapper: device 0's primary context made current on this thread."""

    def __init__(self):
        self.lib = ctypes.CDLL(os.environ.get("QDRT_CUDA_LIBRARY") or "libcuda.so.1")
        self.check("cuInit", 0)
        n = ctypes.c_int()
        self.check("cuDeviceGetCount", ctypes.byref(n))
        if n.value < 1:
            raise RuntimeError("no CUDA device")
        self.ctx = ctypes.c_void_p()
        self.check("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), 0)
        self.check("cuCtxSetCurrent", self.ctx)
        name = ctypes.create_string_buffer(256)
        self.check("cuDeviceGetName", name, 256, 0)
        self.name = name.value.decode()

    def check(self, fn, *args):
        names = {"cuMemAlloc": "cuMemAlloc_v2", "cuMemFree": "cuMemFree_v2",
                 "cuMemcpyHtoD": "cuMemcpyHtoD_v2", "cuMemcpyDtoH": "cuMemcpyDtoH_v2",
                 "cuMemcpyDtoD": "cuMemcpyDtoD_v2", "cuMemsetD8": "cuMemsetD8_v2",
                 "cuEventDestroy": "cuEventDestroy_v2"}
        r = getattr(self.lib, names.get(fn, fn))(*args)
        if r != 0:
            raise RuntimeError("%s failed: CUresult %d" % (fn, r))

    def alloc(self, nbytes):
        p = ctypes.c_uint64()
        self.check("cuMemAlloc", ctypes.byref(p), ctypes.c_size_t(max(nbytes, 1)))
        return p.value

    def free(self, p):
        self.check("cuMemFree", ctypes.c_uint64(p))

    def sync(self):
        self.check("cuCtxSynchronize")

    def event(self):
        e = ctypes.c_void_p()
        self.check("cuEventCreate", ctypes.byref(e), 0)
        return e

    def elapsed_ms(self, fn, reps):
        """Best of `reps` GPU times (events on the default stream) of fn()."""
        a, b = self.event(), self.event()
        best = float("inf")
        for _ in range(reps):
            self.check("cuEventRecord", a, None)
            fn()
            self.check("cuEventRecord", b, None)
            self.check("cuEventSynchronize", b)
            ms = ctypes.c_float()
            self.check("cuEventElapsedTime", ctypes.byref(ms), a, b)
            best = min(best, ms.value)
        return best


class DeviceArray:
    """A device copy of a host buffer, passed to qdrt through __cuda_array_interface__."""

    def __init__(self, cuda, host, dtype, shape):
        self.cuda, self.host, self.shape = cuda, host, tuple(shape)
        mv = memoryview(host).cast("B")
        self.nbytes = mv.nbytes
        self.initial = bytes(mv)
        self.ptr = cuda.alloc(self.nbytes)
        if self.nbytes:
            cuda.check("cuMemcpyHtoD", ctypes.c_uint64(self.ptr),
                       ctypes.c_char.from_buffer(mv), ctypes.c_size_t(self.nbytes))
        self.__cuda_array_interface__ = {"shape": self.shape, "typestr": _TYPESTR[dtype],
                                         "data": (self.ptr, False), "strides": None,
                                         "version": 3}

    def fetch(self):
        """The device bytes into the host buffer."""
        if self.nbytes:
            mv = memoryview(self.host).cast("B")
            self.cuda.check("cuMemcpyDtoH", ctypes.c_char.from_buffer(mv),
                            ctypes.c_uint64(self.ptr), ctypes.c_size_t(self.nbytes))

    def upload(self, data=None):
        """`data` (default: the bytes the array was made from) onto the device again."""
        data = bytearray(self.initial if data is None else data)
        if self.nbytes:
            self.cuda.check("cuMemcpyHtoD", ctypes.c_uint64(self.ptr),
                            ctypes.c_char.from_buffer(data), ctypes.c_size_t(self.nbytes))

    def release(self):
        if self.ptr is not None:
            self.cuda.free(self.ptr)
            self.ptr = None

    def copy_back(self):
        self.fetch()
        self.release()


class RawF32:
    """A device allocation of n floats, passed to qdrt through __cuda_array_interface__."""

    def __init__(self, p, n):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "data": (p, False),
                                         "version": 3}


def copy_baseline(cuda, n=1 << 28):
    """Three zeroed device buffers of n floats and the device-to-device copy's time and
    bandwidth (bytes read + written) over one of them: (nbytes, (a, b, c), ms, GB/s)."""
    nbytes = n * 4
    bufs = tuple(cuda.alloc(nbytes) for _ in range(3))
    for p in bufs[:2]:
        cuda.check("cuMemsetD8", ctypes.c_uint64(p), 0, ctypes.c_size_t(nbytes))
    a, c = bufs[0], bufs[2]
    ms = cuda.elapsed_ms(lambda: cuda.check("cuMemcpyDtoD", ctypes.c_uint64(c), ctypes.c_uint64(a),
                                            ctypes.c_size_t(nbytes)), 10)
    return nbytes, bufs, ms, 2 * nbytes / ms / 1e6


def probe():
    try:
        cuda = Cuda()
    except (OSError, RuntimeError, AttributeError) as e:
        skip_policy.skip("no-gpu", "gpu-check (%s)" % e)  # exit 125: allowed under CI too
    print("gpu-check: %s" % cuda.name)
    return 0


def corpus(store_dir, pattern, table):
    import harness
    import qdrt
    cuda = Cuda()
    cases = harness.load_cases(pattern)
    store = qdrt.open(store_dir, lazy=True)
    failed, passed = [], 0
    for case in cases:
        try:
            kern = store.kernel(case["kernel"])
            cpu_args = harness.make_args(case, use_numpy=False)
            cpu_ret = kern(*cpu_args, device="cpu")
            cpu = harness.snapshot(case, cpu_args, cpu_ret)
            host = harness.make_args(case, use_numpy=False)
            dev = [DeviceArray(cuda, h, a["array"], a["shape"]) if isinstance(a, dict) else h
                   for h, a in zip(host, case["args"])]
            gpu_ret = kern(*dev, device="cuda")
            cuda.sync()
            for d in dev:
                if isinstance(d, DeviceArray):
                    d.copy_back()
            gpu = harness.snapshot(case, host, gpu_ret)
            why = harness.compare(case, gpu, cpu)
        except Exception as e:  # noqa: BLE001
            why = "%s: %s" % (type(e).__name__, e)
        if why:
            failed.append(case["name"])
            print("FAIL %s: %s" % (case["name"], why), flush=True)
        else:
            passed += 1
            print("PASS %s" % case["name"], flush=True)
    ok = not failed and passed > 0
    row(table, "corpus GPU vs CPU", "%d/%d cases match" % (passed, len(cases)), ok)
    return 0 if ok else 1


def relaxed(x0, passes):
    """What bench_kernels.relax leaves in x: `passes` times x = x * 0.5 + 1.0 in f32."""
    import struct
    out = []
    for v in x0:
        for _ in range(passes):
            v = struct.unpack("f", struct.pack("f", v * 0.5 + 1.0))[0]  # x * 0.5 is exact
        out.append(v)
    return out


def graph_kernel(cuda, store, table):
    """bench_kernels.relax (1000 passes over 4096 floats) as one CUDA graph and as the host
    loop: both leave the same x as Python's f32 arithmetic; the time of each per call."""
    import array
    relax = store.kernel("bench_kernels:relax")
    n, passes = 4096, 1000
    x0 = array.array("f", (float(i % 61) - 30.0 for i in range(n)))
    want = relaxed(x0, passes)
    counter = array.array("i", [passes])
    dc = DeviceArray(cuda, counter, "i32", ())
    dx = DeviceArray(cuda, array.array("f", x0), "f32", (n,))
    mv_x0 = memoryview(x0).cast("B")

    def reset():
        cuda.check("cuMemcpyHtoD", ctypes.c_uint64(dc.ptr), ctypes.c_char.from_buffer(counter),
                   ctypes.c_size_t(4))
        cuda.check("cuMemcpyHtoD", ctypes.c_uint64(dx.ptr), ctypes.c_char.from_buffer(mv_x0),
                   ctypes.c_size_t(4 * n))

    def check():
        got = array.array("f", bytes(4 * n))
        cuda.check("cuMemcpyDtoH", ctypes.c_char.from_buffer(got), ctypes.c_uint64(dx.ptr),
                   ctypes.c_size_t(4 * n))
        left = array.array("i", [-1])
        cuda.check("cuMemcpyDtoH", ctypes.c_char.from_buffer(left), ctypes.c_uint64(dc.ptr),
                   ctypes.c_size_t(4))
        return sum(1 for i in range(n) if got[i] != want[i]) + (left[0] != 0)

    a, b = cuda.event(), cuda.event()
    times, ok = {}, True
    saved = os.environ.get("QDRT_CUDA_GRAPHS")
    for mode, env in (("CUDA graph", None), ("host loop", "0")):
        if env is None:
            os.environ.pop("QDRT_CUDA_GRAPHS", None)
        else:
            os.environ["QDRT_CUDA_GRAPHS"] = env
        best = float("inf")
        for rep in range(6):  # the first builds the graph (and loads the module): untimed
            reset()
            cuda.sync()
            cuda.check("cuEventRecord", a, None)
            relax(dc, dx)
            cuda.check("cuEventRecord", b, None)
            cuda.check("cuEventSynchronize", b)
            ms = ctypes.c_float()
            cuda.check("cuEventElapsedTime", ctypes.byref(ms), a, b)
            if rep > 0:
                best = min(best, ms.value)
            wrong = check()
            if wrong:
                break
        times[mode] = best
        row(table, "graph kernel (%s)" % mode, "%d passes, %.3f ms, %d wrong" %
            (passes, best, wrong) if not wrong else "%d values wrong" % wrong, wrong == 0)
        ok &= wrong == 0
    if saved is None:
        os.environ.pop("QDRT_CUDA_GRAPHS", None)
    else:
        os.environ["QDRT_CUDA_GRAPHS"] = saved
    if ok:
        row(table, "graph vs host loop", "%.2f us/pass vs %.2f us/pass, %.1fx" %
            (1000 * times["CUDA graph"] / passes, 1000 * times["host loop"] / passes,
             times["host loop"] / times["CUDA graph"]), True)
    cuda.free(dc.ptr)
    cuda.free(dx.ptr)
    return ok


def quadrants_draws(seed, i, count):
    """The first `count` u32 outputs of Quadrants' generator state i for random_seed `seed`
    (its runtime.cpp initialize_rand_state and rand_u32: xorshift128, times 1000000007)."""
    m = 0xFFFFFFFF
    x = (123456789 * ((seed * 1048391 + i) & m) * 1000000007) & m
    y, z, w = 362436069, 521288629, 88675123
    out = []
    for _ in range(count):
        t = (x ^ (x << 11)) & m
        x, y, z = y, z, w
        w = (w ^ (w >> 19)) ^ (t ^ (t >> 8))
        out.append((w * 1000000007) & m)
    return out


def random_draws(store, table, cuda=None):
    """bench_kernels.draw and draw_serial against quadrants_draws. On the GPU (cuda given), the
    store's own device states for random_seed 0: iteration i of the parallel loop draws from
    state i (two launches: the states persist between them), the serial loop from state 0. On
    the CPU, one bound state: every draw from it, in iteration order (the model against the
    compiled generator itself)."""
    import array
    draw, serial = store.kernel("bench_kernels:draw"), store.kernel("bench_kernels:draw_serial")

    def f32(d):
        return (d >> 8) * (1.0 / 16777216.0)

    def u64(hi, lo):
        return (hi << 32) + lo

    want_u, want_f, want_s = [], [], []
    if cuda is None:
        n = 1000
        seq = quadrants_draws(0, 0, 4 * n + 6)
        for launch in range(2):
            base = 2 * n * launch
            want_u.append([seq[base + 2 * i] for i in range(n)])
            want_f.append([f32(seq[base + 2 * i + 1]) for i in range(n)])
        want_s = [u64(seq[4 * n + 2 * k], seq[4 * n + 2 * k + 1]) for k in range(3)]
        state = (ctypes.c_uint32 * 5)(0, 362436069, 521288629, 88675123, 0)
        store.bind_random_states(ctypes.addressof(state), 1)
    else:
        n = 4096  # one iteration per thread in any GPU's grid (SMs * blocks per SM * 2 * 128)
        seqs = [quadrants_draws(0, i, 10 if i == 0 else 4) for i in range(n)]
        for launch in range(2):
            want_u.append([seqs[i][2 * launch] for i in range(n)])
            want_f.append([f32(seqs[i][2 * launch + 1]) for i in range(n)])
        want_s = [u64(seqs[0][4 + 2 * k], seqs[0][5 + 2 * k]) for k in range(3)]
    wrong = 0
    try:
        for launch in range(2):
            u, f = array.array("I", bytes(4 * n)), array.array("f", bytes(4 * n))
            if cuda is None:
                draw(u, f, device="cpu")
            else:
                du, df = DeviceArray(cuda, u, "u32", (n,)), DeviceArray(cuda, f, "f32", (n,))
                draw(du, df, device="cuda")
                du.copy_back()
                df.copy_back()
            wrong += sum(1 for i in range(n) if u[i] != want_u[launch][i] or
                         f[i] != want_f[launch][i])
        v = array.array("Q", bytes(24))
        if cuda is None:
            serial(v, device="cpu")
        else:
            dv = DeviceArray(cuda, v, "u64", (3,))
            serial(dv, device="cuda")
            dv.copy_back()
        wrong += sum(1 for k in range(3) if v[k] != want_s[k])
    finally:
        if cuda is None:
            store.bind_random_states(0, 0)
    where = "this CPU, one state" if cuda is None else "GPU, state per thread"
    row(table, "qd.random (%s)" % where, "%d draws, %d wrong" % (4 * n + 6, wrong), wrong == 0)
    return wrong == 0


def bandwidth(store_dir, table, cpu_only):
    """qdbuild's own bandwidth-bound kernels against the copy engine's bandwidth, its graph
    kernel as a CUDA graph against the host loop."""
    import array
    import qdrt
    store = qdrt.open(store_dir)
    saxpy, copy = store.kernel("bench_kernels:saxpy"), store.kernel("bench_kernels:copy")
    if cpu_only:
        x = array.array("f", (1.5 + i for i in range(1000)))
        y = array.array("f", (0.25 * i for i in range(1000)))
        z = array.array("f", bytes(4000))
        saxpy(2.0, x, y, device="cpu")
        copy(y, z, device="cpu")
        bad = sum(1 for i in range(1000) if y[i] != 2.0 * (1.5 + i) + 0.25 * i or z[i] != y[i])
        x0 = array.array("f", (float(i % 61) - 30.0 for i in range(1000)))
        rx, counter = array.array("f", x0), array.array("i", [40])
        store.kernel("bench_kernels:relax")(memoryview(counter).cast("B").cast("i", ()), rx,
                                            device="cpu")
        want = relaxed(x0, 40)
        bad += sum(1 for i in range(1000) if rx[i] != want[i]) + (counter[0] != 0)
        row(table, "bench kernels on this CPU", "1000 elements, %d wrong" % bad, bad == 0)
        drawn = random_draws(store, table)
        return 0 if bad == 0 and drawn else 1
    cuda = Cuda()
    nbytes, (a, b, c), copy_ms, copy_gbs = copy_baseline(cuda)
    ra, rb = RawF32(a, nbytes // 4), RawF32(b, nbytes // 4)
    row(table, "D2D cuMemcpy 1 GiB (baseline)", "%.3f ms, %.0f GB/s" % (copy_ms, copy_gbs), True)
    ok = True
    for name, launch, moved in (("saxpy", lambda: saxpy(1.0, ra, rb), 3),
                                ("copy", lambda: copy(ra, rb), 2)):
        launch()  # load the module outside the timing
        cuda.sync()
        ms = cuda.elapsed_ms(launch, 10)
        gbs = moved * nbytes / ms / 1e6
        ratio = gbs / copy_gbs
        row(table, "%s 2^28 f32 (qdbuild)" % name, "%.3f ms, %.0f GB/s, %.0f%% of copy" %
            (ms, gbs, 100 * ratio), ratio >= 0.8)
        ok &= ratio >= 0.8
    for p in (a, b, c):
        cuda.free(p)
    ok &= graph_kernel(cuda, store, table)
    ok &= random_draws(store, table, cuda)
    return 0 if ok else 1


def cpu_outputs(store_dir, pattern):
    """{case name: its CPU snapshot, or {"error": why}} for every case, from STORE's cpu entries."""
    import harness
    import qdrt
    store = qdrt.open(store_dir, lazy=True)
    out = {}
    for case in harness.load_cases(pattern):
        try:
            args = harness.make_args(case, use_numpy=False)
            ret = store.kernel(case["kernel"])(*args, device="cpu")
            out[case["name"]] = harness.snapshot(case, args, ret)
        except Exception as e:  # noqa: BLE001
            out[case["name"]] = {"error": "%s: %s" % (type(e).__name__, e)}
    return out


def cpu_record(store_dir, path, pattern):
    """The outputs of every case that runs through the binding; the others (a qd.field or a
    dataclass argument, which only the bridge passes) are listed with why."""
    import json
    outputs = cpu_outputs(store_dir, pattern)
    ran = {n: v for n, v in outputs.items() if "error" not in v}
    left = {n: v["error"] for n, v in outputs.items() if "error" in v}
    with open(path, "w") as f:
        json.dump({"cases": ran, "not_runnable": left}, f, sort_keys=True)
    print("cpu-record: %d cases run, %d not runnable through the binding: %s" %
          (len(ran), len(left), ", ".join(sorted(left)) or "none"))
    return 0 if ran else 1


def cpu_check(store_dir, path, pattern, table):
    import harness
    import json
    with open(path) as f:
        expected = json.load(f)["cases"]
    cases = {c["name"]: c for c in harness.load_cases(pattern)}
    got = {n: v for n, v in cpu_outputs(store_dir, pattern).items() if n in expected}
    failed = []
    for name, exp in sorted(expected.items()):
        g = got.get(name)
        why = ("not in this bundle's cases" if g is None else g["error"] if "error" in g else
               harness.compare(cases[name], g, exp))
        if why:
            failed.append(name)
            print("FAIL %s: %s" % (name, why), flush=True)
    ok = not failed and len(expected) > 0 and set(got) == set(expected)
    row(table, "corpus on this CPU vs here", "%d/%d cases the same" %
        (len(expected) - len(failed), len(expected)), ok)
    return 0 if ok else 1


# --- Genesis's captured calls (tests/genesis/scenes/capture_calls.py) ----------------------------

def _values(dtype, data):
    import array
    import harness
    a = array.array("B" if dtype == "u1" else harness.FORMATS[dtype])
    a.frombytes(data)
    return a.tolist()


def _array_differs(dtype, got, want):
    """Why `got` is not `want` (bytes of one array), or None: integers exactly, floats within
    rtol 1e-4 and 1e-5 of the array's largest magnitude (compare_kernels.py's tolerance); an
    array that matches only once sorted (slots handed out by atomics) is reported as such."""
    if got == want:
        return None
    g, w = _values(dtype, got), _values(dtype, want)
    if dtype in ("f32", "f64"):
        scale = max([abs(x) for x in w if x == x and abs(x) != float("inf")] or [0.0])

        def close(a, b):
            return a == b or (a != a and b != b) or abs(a - b) <= 1e-4 * abs(b) + 1e-5 * max(scale, 1.0)
        bad = [i for i, (a, b) in enumerate(zip(g, w)) if not close(a, b)]
        if not bad:
            return None
        if all(close(a, b) for a, b in zip(sorted(g), sorted(w))):
            return "equal up to order"
        return "[%d]: %r against %r (%d differ)" % (bad[0], g[bad[0]], w[bad[0]], len(bad))
    if sorted(g) == sorted(w):
        return "equal up to order"
    bad = [i for i, (a, b) in enumerate(zip(g, w)) if a != b]
    return "[%d]: %r against %r (%d differ)" % (bad[0], g[bad[0]], w[bad[0]], len(bad))


def genesis_calls(store_dir, calls_dir, device, table, times_path=None):
    """Every captured call replayed from its inputs on `device` and compared with the outputs it
    had where it was captured (the CPU's, here); then run once more from the same inputs and
    timed (the GPU's time between two events; the CPU's wall time), the first run having loaded
    the kernel's module. `times_path`: the times are written there (JSON); on the GPU, where the
    CPU replay's file is beside it, each kernel's two times are printed side by side."""
    import ctypes
    import json
    import zlib
    import qdrt
    with open(os.path.join(calls_dir, "index.json")) as f:
        index = json.load(f)
    cuda = Cuda() if device == "cuda" else None
    store = qdrt.open(store_dir, lazy=True)
    failed, passed, reordered = [], 0, 0
    times = {}  # label -> ms of the second run

    def read(name):
        with open(os.path.join(calls_dir, name), "rb") as f:
            return zlib.decompress(f.read())
    for n, call in enumerate(index["calls"]):
        label = "%s#%d" % (call["kernel"].split(":")[-1], n)
        devs = []
        try:
            args, arrays = [], []
            for a in call["args"]:
                if a["kind"] == "array":
                    data = read(a["file"] + ".in.z")
                    want = data if a.get("unchanged") else read(a["file"] + ".out.z")
                    if device == "cuda":
                        host = bytearray(data) or bytearray(1)
                        dev = DeviceArray(cuda, host, a["dtype"], a["shape"])
                        devs.append(dev)
                        args.append(dev)
                        arrays.append((a, host, dev, data, want))
                    else:
                        buf = ctypes.create_string_buffer(data, max(1, len(data)))
                        args.append(qdrt.HostArray(ctypes.addressof(buf), a["dtype"], a["shape"]))
                        arrays.append((a, buf, None, data, want))
                else:
                    args.append(a["value"])
            kernel = store.kernel(call["kernel"])
            kernel(*args, device=device)
            if cuda is not None:
                cuda.sync()
            whys = []
            for a, host, dev, data, want in arrays:
                if dev is not None:
                    dev.fetch()
                got = bytes(host[:len(data)]) if dev is not None else host.raw[:len(data)]
                why = _array_differs(a["dtype"], got, want)
                if why and why != "equal up to order":
                    whys.append("argument %s: %s" % (a["file"].split("_")[-1], why))
                elif why:
                    reordered += 1
            if cuda is not None:
                for dev in devs:
                    dev.upload()
                times[label] = cuda.elapsed_ms(lambda: kernel(*args, device="cuda"), 1)
            else:
                bufs = _fresh_buffers(call["args"], arrays)  # alive until the run is done
                again = [qdrt.HostArray(ctypes.addressof(b), a["dtype"], a["shape"])
                         if a["kind"] == "array" else a["value"]
                         for a, b in zip(call["args"], bufs)]
                t0 = time.perf_counter()
                kernel(*again, device="cpu")
                times[label] = (time.perf_counter() - t0) * 1e3
        except Exception as e:  # noqa: BLE001
            whys = ["%s: %s" % (type(e).__name__, e)]
        finally:
            for dev in devs:
                dev.release()
        if whys:
            failed.append(label)
            print("FAIL %s: %s" % (label, "; ".join(whys[:3])), flush=True)
        else:
            passed += 1
            print("PASS %s" % label, flush=True)
    total = len(index["calls"])
    ok = not failed and passed > 0
    row(table, "Genesis calls %s vs CPU" % ("GPU" if device == "cuda" else "this CPU"),
        "%d/%d calls agree (%d arrays up to order)" % (passed, total, reordered), ok)
    if times_path:
        with open(times_path, "w") as f:
            json.dump(times, f, indent=1, sort_keys=True)
        cpu_path = os.path.join(os.path.dirname(times_path), "genesis_times_cpu.json")
        if cuda is not None and os.path.exists(cpu_path):
            with open(cpu_path) as f:
                cpu_times = json.load(f)
            print("%-44s %12s %12s %8s" % ("Genesis kernel call", "GPU ms", "this CPU ms",
                                           "CPU/GPU"))
            for label in sorted(times, key=lambda k: -times[k]):
                c = cpu_times.get(label)
                print("%-44s %12.4f %12s %8s" % (label[:44], times[label],
                                                 "%.4f" % c if c is not None else "-",
                                                 "%.1fx" % (c / times[label])
                                                 if c is not None and times[label] > 0 else "-"))
            both = [k for k in times if k in cpu_times]
            gpu_sum = sum(times[k] for k in both)
            cpu_sum = sum(cpu_times[k] for k in both)
            row(table, "Genesis calls GPU time", "%d calls: %.3f ms (this CPU %.3f ms, %.1fx)" %
                (len(both), gpu_sum, cpu_sum, cpu_sum / gpu_sum if gpu_sum > 0 else 0), True)
    return 0 if ok else 1


def _fresh_buffers(call_args, arrays):
    """New host buffers holding each array argument's captured input again (None for scalars)."""
    import ctypes
    inputs = iter([data for _, _, _, data, _ in arrays])
    out = []
    for a in call_args:
        if a["kind"] == "array":
            d = next(inputs)
            out.append(ctypes.create_string_buffer(d, max(1, len(d))))
        else:
            out.append(None)
    return out


def row(table, name, value, ok):
    print("%-28s %-44s %s" % (name, value, "ok" if ok else "FAIL"))
    if table:
        with open(table, "a") as f:
            f.write("%s|%s|%s\n" % (name, value, "ok" if ok else "FAIL"))


def selftest(store_dir, cubin, table):
    import array
    import qdrt
    cuda = Cuda()
    store = qdrt.open(store_dir)
    saxpy, ksum, empty = (store.kernel("rt.cuda:" + k) for k in ("saxpy", "sum", "empty"))
    ok_all = True
    # correctness: saxpy (odd size), the i64 reduction through temps/result, a user stream
    n = 1000003
    x = array.array("f", (float(i % 97) for i in range(n)))
    y = array.array("f", (float(i % 13) for i in range(n)))
    dx, dy = DeviceArray(cuda, x, "f32", (n,)), DeviceArray(cuda, y, "f32", (n,))
    stream = ctypes.c_void_p()
    cuda.check("cuStreamCreate", ctypes.byref(stream), 1)
    saxpy(2.0, dx, dy, stream=stream.value)
    cuda.check("cuStreamSynchronize", stream)
    dx.copy_back()
    dy.copy_back()
    bad = sum(1 for i in range(n) if y[i] != 2.0 * (i % 97) + (i % 13))
    row(table, "saxpy (user stream)", "%d elements, %d wrong" % (n, bad), bad == 0)
    ok_all &= bad == 0
    v = array.array("i", (i % 1000 - 500 for i in range(n)))
    dv = DeviceArray(cuda, v, "i32", (n,))
    got = [ksum(dv) for _ in range(3)]
    want = sum(v)
    row(table, "sum (temps + result)", "got %s, expected %d" % (got[0], want),
        got == [want] * 3)
    ok_all &= got == [want] * 3
    dv.copy_back()

    # bandwidth: saxpy on 2^28 floats vs a device-to-device copy (bytes read + written)
    nbytes, (a, b, c), copy_ms, copy_gbs = copy_baseline(cuda)
    ra, rb = RawF32(a, nbytes // 4), RawF32(b, nbytes // 4)
    saxpy(1.0, ra, rb)  # load the module outside the timing
    sax_ms = cuda.elapsed_ms(lambda: saxpy(1.0, ra, rb), 10)
    sax_gbs = 3 * nbytes / sax_ms / 1e6
    ratio = sax_gbs / copy_gbs
    row(table, "D2D cuMemcpy 1 GiB (baseline)", "%.3f ms, %.0f GB/s" % (copy_ms, copy_gbs), True)
    row(table, "saxpy 2^28 f32 (qdrt)", "%.3f ms, %.0f GB/s, %.0f%% of copy" %
        (sax_ms, sax_gbs, 100 * ratio), ratio >= 0.8)
    ok_all &= ratio >= 0.8
    for p in (a, b, c):
        cuda.free(p)

    # launch overhead: qdrt's empty kernel vs cuLaunchKernel of a parameterless empty kernel
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    image = open(cubin, "rb").read()
    cuda.check("cuModuleLoadData", ctypes.byref(mod), image)
    cuda.check("cuModuleGetFunction", ctypes.byref(fn), mod, b"bare_empty")
    reps = 20000

    def per_launch_us(launch):
        launch()
        cuda.sync()
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(reps):
                launch()
            cuda.sync()
            best = min(best, (time.perf_counter() - t0) / reps * 1e6)
        return best
    lib = qdrt._store._lib
    opts = qdrt._LaunchOptions(ctypes.sizeof(qdrt._LaunchOptions), 2, None)
    handle = empty._handle
    raw_launch = lib.qdrt_launch_ex
    base = per_launch_us(lambda: cuda.lib.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, None, None,
                                                         None))
    capi = per_launch_us(lambda: raw_launch(handle, None, 0, None, ctypes.byref(opts)))
    binding = per_launch_us(lambda: empty(device="cuda"))
    row(table, "cuLaunchKernel empty (ctypes)", "%.2f us/launch (baseline)" % base, True)
    row(table, "qdrt_launch_ex empty (ctypes)", "%.2f us/launch, %.2fx" % (capi, capi / base), True)
    row(table, "qdrt binding empty()", "%.2f us/launch, %.2fx" % (binding, binding / base), True)
    return 0 if ok_all else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("--selftest", metavar="STORE")
    ap.add_argument("--cubin")
    ap.add_argument("--corpus", metavar="STORE")
    ap.add_argument("--bandwidth", metavar="STORE")
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--cpu-record", nargs=2, metavar=("STORE", "OUT"))
    ap.add_argument("--cpu-check", nargs=2, metavar=("STORE", "REF"))
    ap.add_argument("--genesis", nargs=2, metavar=("STORE", "CALLS"))
    ap.add_argument("-k", dest="pattern")
    ap.add_argument("--table")
    ap.add_argument("--times", help="--genesis: each call's time of its second run to this JSON")
    a = ap.parse_args()
    if a.probe:
        return probe()
    if a.selftest:
        return selftest(a.selftest, a.cubin, a.table)
    if a.corpus:
        return corpus(a.corpus, a.pattern, a.table)
    if a.bandwidth:
        return bandwidth(a.bandwidth, a.table, a.cpu)
    if a.cpu_record:
        return cpu_record(*a.cpu_record, a.pattern)
    if a.cpu_check:
        return cpu_check(*a.cpu_check, a.pattern, a.table)
    if a.genesis:
        return genesis_calls(*a.genesis, "cpu" if a.cpu else "cuda", a.table, a.times)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
