#!/usr/bin/env python3
"""Python binding tests (stdlib unittest) over the store make_test_store.py builds.

Env: QDRT_TEST_STORE (the --out directory), QDRT_LIBRARY (libqdrt.so). Values are checked
exactly; hostile use must raise the right qdrt.Error subclass with a clear message, never crash.

Usage: test_python.py [--numpy require|without] [unittest args]
  --numpy require  (ctest runtime_python_numpy, build/venv's Python) numpy must import, else the
                   run skips through tests/lib/skip_policy.py ("no-numpy": a failure under
                   CI=true); the numpy cases run.
  --numpy without  (ctest runtime_python) numpy is hidden from this process, so the binding's
                   paths without it are what runs; the numpy cases are not collected (the other
                   test runs them), so nothing is skipped.
  default          with the numpy cases when numpy imports, else without them.
"""
import array
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
import skip_policy  # noqa: E402


def numpy_mode(argv):
    """Takes --numpy MODE out of argv; returns the mode."""
    mode = "auto"
    if "--numpy" in argv:
        at = argv.index("--numpy")
        mode = argv[at + 1] if at + 1 < len(argv) else ""
        del argv[at:at + 2]
    if mode not in ("auto", "require", "without"):
        print("test_python.py: --numpy takes require or without")
        sys.exit(2)
    return mode


NUMPY_MODE = numpy_mode(sys.argv)
if NUMPY_MODE == "without":
    sys.modules["numpy"] = None  # `import numpy` raises ImportError, in qdrt too
try:
    import numpy
except ImportError as e:
    if NUMPY_MODE == "require":
        skip_policy.skip("no-numpy", f"the binding's numpy cases: {sys.executable} cannot import "
                         f"numpy ({e})")
    numpy = None

sys.path.insert(0, os.path.join(HERE, "..", "python"))
import qdrt  # noqa: E402

STORE = os.environ.get("QDRT_TEST_STORE", os.path.join(HERE, "..", "..", "build",
                                                       "runtime_test_store"))
GOOD, PACK, BAD = (os.path.join(STORE, n) for n in ("good", "good.qdpack", "bad"))


def numpy_case(test):
    """A case that needs numpy: collected only when numpy imports (see --numpy)."""
    test.needs_numpy = True
    return test


def f32(values):
    return array.array("f", values)


class Values:
    """Computed values, for a directory store and a pack, eager and lazy (subclasses)."""
    path, lazy = GOOD, False

    @classmethod
    def setUpClass(cls):
        cls.store = qdrt.open(cls.path, lazy=cls.lazy)

    @classmethod
    def tearDownClass(cls):
        cls.store.close()

    def k(self, name):
        return self.store.kernel("rt.basic:" + name)

    def test_kernels(self):
        ids = self.store.kernels()
        self.assertEqual(len(ids), 13)
        self.assertIn("rt.basic:saxpy", ids)
        self.assertEqual(ids, sorted(ids))

    def test_random_states(self):
        from qdrt.quadrants_random import initial_x
        k = self.k("rand_probe")
        self.assertTrue(k.draws_random(0))
        self.assertFalse(self.k("saxpy").draws_random(0))
        n = 64
        out = array.array("q", [0] * (3 * n))
        addr, _ = out.buffer_info()

        def probe():
            k(qdrt.HostArray(addr, "i64", (n, 3)))
            return [tuple(out[3 * i:3 * i + 3]) for i in range(n)]

        # The store's own states: one per thread, seeded as random_seed 0; each thread draws
        # from its own (its first x is its state's initial value).
        rows = probe()
        count = rows[0][1]
        self.assertGreaterEqual(count, 1)
        self.assertTrue(all(r[1] == count and 0 <= r[0] < count for r in rows), rows)
        first = {}
        for w, _, x in rows:
            first.setdefault(w, x)
        self.assertEqual(first, {w: initial_x(0, w) for w in first})
        # Bound: one state (random_seed 7's first), advanced in place, every iteration on
        # worker 0 whatever the pool's size.
        state = (ctypes.c_uint32 * 5)(initial_x(7, 0), 362436069, 521288629, 88675123, 0)
        self.store.bind_random_states(ctypes.addressof(state), 1)
        rows = probe()
        self.assertEqual({(r[0], r[1]) for r in rows}, {(0, 1)})
        xs, s = [], [initial_x(7, 0), 362436069, 521288629, 88675123]
        for _ in range(n):
            xs.append(s[0])
            t = (s[0] ^ (s[0] << 11)) & 0xFFFFFFFF
            s = [s[1], s[2], s[3], (s[3] ^ (s[3] >> 19)) ^ (t ^ (t >> 8))]
        self.assertEqual([r[2] for r in rows], xs)
        self.assertEqual(list(state)[:4], s)
        # Unbound, then re-seeded: the store's own states again, as random_seed 5 makes them.
        self.store.bind_random_states(0, 0)
        self.store.seed_random(5)
        first = {}
        for w, c, x in probe():
            first.setdefault(w, x)
        self.assertEqual(first, {w: initial_x(5, w) for w in first})
        with self.assertRaises(qdrt.Error):
            self.store.bind_random_states(ctypes.addressof(state), 0)

    def test_saxpy(self):
        n = 100000
        x, y = f32(range(n)), f32([1.0] * n)
        self.assertIsNone(self.k("saxpy")(2.0, x, y))
        self.assertEqual(list(y), [2.0 * i + 1.0 for i in range(n)])
        self.k("saxpy")(1, x, y)  # an int for an f32 scalar
        self.assertEqual(y[10], 31.0)

    def test_prepared_and_host_array(self):
        # A prepared launch converts the arguments once and launches many times; HostArray passes
        # memory by address (what the bridge does for a Quadrants ndarray).
        x, y = f32([1, 2, 3]), f32([0, 0, 0])
        addr = ctypes.addressof(ctypes.c_char.from_buffer(y))
        run = self.k("saxpy").prepare(2.0, x, qdrt.HostArray(addr, "f32", (3,)))
        for _ in range(3):
            self.assertIsNone(run())
        self.assertEqual(list(y), [6.0, 12.0, 18.0])
        xs = array.array("q", [5, 6, 7])
        total = self.k("sum_i64").prepare(xs)
        self.assertEqual(total(), 18)
        xs[0] = 1  # the same memory: the next launch reads the new value
        self.assertEqual(total(), 14)
        with self.assertRaises(qdrt.ArgumentError):
            qdrt.HostArray(addr, "f33", (3,))
        with self.assertRaises(qdrt.ArgumentError):  # libqdrt checks every launch
            self.k("sum_i64").prepare(qdrt.HostArray(addr, "f32", (3,)))()

    def test_serial_result(self):
        xs = array.array("q", [i * i - 7 for i in range(1000)])
        self.assertEqual(self.k("sum_i64")(xs), sum(xs))
        self.assertEqual(self.k("dot")(f32([1, 2, 3]), f32([4, 5, 6])), 32.0)
        mask = memoryview(bytearray([1, 0, 1, 1])).cast("?")
        self.assertEqual(self.k("count_true")(mask, True), 3)
        self.assertEqual(self.k("count_true")(mask, False), 1)

    def test_temporaries_between_tasks(self):
        x = array.array("i", [i % 7 for i in range(50001)])
        out = array.array("i", [-1] * 50001)
        for _ in range(3):
            self.assertEqual(self.k("total_fill")(x, out), sum(x))
        self.assertEqual(set(out), {sum(x)})

    def test_vector_dtype(self):
        n = 500
        pos = memoryview(bytearray(4 * 3 * n)).cast("f", (n, 3))
        vel = memoryview(bytearray(4 * 3 * n)).cast("f", (n, 3))
        for i in range(n):
            for c in range(3):
                pos[i, c] = float(i * 3 + c)
                vel[i, c] = float(c)
        self.k("advance")(pos, vel, 0.5)
        self.assertEqual(pos[7, 2], 7 * 3 + 2 + 1.0)
        self.assertEqual(pos[0, 0], 0.0)

    def test_instances(self):
        fill = self.k("fill_k")
        self.assertEqual(fill.instances, ["out=ndarray(i32, 1), k=2", "out=ndarray(i32, 1), k=3"])
        out = array.array("i", [0] * 10)
        for k in (2, 3):
            fill(out, k)
            self.assertEqual(list(out), [k * i for i in range(10)])
        sf, sd = f32([1, 2, 3]), array.array("d", [1, 2, 3])
        self.k("scale")(sf, 1.5)
        self.k("scale")(sd, 0.25)
        self.assertEqual(list(sf), [1.5, 3.0, 4.5])
        self.assertEqual(list(sd), [0.25, 0.5, 0.75])

    def test_observations(self):
        k = self.k("noop")
        before = k.observations
        # Loaded = the kernel's module is in memory: always after an eager open; in lazy mode once
        # this kernel or another kernel of the same module has launched.
        if not self.lazy:
            self.assertTrue(before["loaded"])
        k(f32([0]), 3)
        o = k.observations
        self.assertTrue(o["loaded"])
        self.assertEqual(o["launches"], before["launches"] + 1)
        self.assertEqual(o["instance"], "x=ndarray(f32, 1), n=i32")
        self.assertEqual(len(o["object"]), 64)
        self.assertEqual(o["target"], "cpu")

    def test_empty_array(self):
        self.k("saxpy")(1.0, f32([]), f32([]))

    @numpy_case
    def test_numpy(self):
        x = numpy.arange(10, dtype=numpy.float32)
        y = numpy.ones(10, dtype=numpy.float32)
        self.k("saxpy")(numpy.float32(2), x, y)
        self.assertEqual(y.tolist(), [2.0 * i + 1 for i in range(10)])
        with self.assertRaises(qdrt.ArgumentError):
            self.k("saxpy")(2.0, x[::2], y[:5])
        # numpy.ndarray is learned as a plain buffer type after its first use: later calls take
        # the fast path and must give the same results.
        self.assertIn(numpy.ndarray, qdrt._PLAIN_BUFFERS)
        for _ in range(3):
            self.k("saxpy")(1.0, x, y)
        self.assertEqual(y.tolist(), [5.0 * i + 1 for i in range(10)])
        with self.assertRaises(qdrt.ArgumentError) as cm:
            self.k("saxpy")(1.0, x.astype(numpy.float64), y)
        self.assertIn("dtype", str(cm.exception))

    @numpy_case
    def test_numpy_scalars(self):
        # numpy scalars are read-only 0-d buffers too; they pass as values.
        mask = numpy.array([True, False, True, True])
        self.assertEqual(self.k("count_true")(mask, numpy.True_), 3)
        self.assertEqual(self.k("count_true")(mask, numpy.bool_(False)), 1)
        out = numpy.zeros(10, dtype=numpy.int32)
        self.k("fill_k")(out, numpy.int64(3))  # a template value: selects the k=3 instance
        self.assertEqual(out.tolist(), [3 * i for i in range(10)])
        self.assertEqual(self.k("sum_i64")(numpy.arange(5, dtype=numpy.int64)), 10)
        x = numpy.ones(3, dtype=numpy.float32)
        self.k("scale")(x, numpy.float64(2.5))
        self.assertEqual(x.tolist(), [2.5, 2.5, 2.5])
        with self.assertRaises(qdrt.ArgumentError) as cm:
            self.k("scale")(x, numpy.complex64(1))
        self.assertIn("complex", str(cm.exception))

    @numpy_case
    def test_numpy_subclass_with_cuda_interface(self):
        # A host array type that also exposes __cuda_array_interface__ (like numba's mapped
        # arrays) is a device array for routing; it never joins the plain-buffer fast path.
        class Mapped(numpy.ndarray):
            @property
            def __cuda_array_interface__(self):
                return {"shape": self.shape, "typestr": "<f4", "data": (self.ctypes.data, False),
                        "version": 3, "strides": None}

        x = numpy.arange(4, dtype=numpy.float32)
        y = numpy.zeros(4, dtype=numpy.float32)
        self.k("saxpy")(1.0, x, y)  # numpy.ndarray itself on the fast path
        for _ in range(2):
            with self.assertRaises(qdrt.Error) as cm:
                self.k("saxpy")(1.0, x.view(Mapped), y)
            self.assertIn("CUDA", str(cm.exception))
        self.assertNotIn(Mapped, qdrt._PLAIN_BUFFERS)
        self.assertEqual(y.tolist(), [0.0, 1.0, 2.0, 3.0])


class DirEager(Values, unittest.TestCase):
    path, lazy = GOOD, False


class DirLazy(Values, unittest.TestCase):
    path, lazy = GOOD, True


class PackEager(Values, unittest.TestCase):
    path, lazy = PACK, False


class PackLazy(Values, unittest.TestCase):
    path, lazy = PACK, True


class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.store = qdrt.open(GOOD)
        cls.saxpy = cls.store.kernel("rt.basic:saxpy")

    def raises(self, cls, parts, fn, *args):
        with self.assertRaises(cls) as cm:
            fn(*args)
        for p in parts:
            self.assertIn(p, str(cm.exception))
        self.assertIsInstance(cm.exception, qdrt.Error)
        return cm.exception

    def test_wrong_dtype(self):
        self.raises(qdrt.ArgumentError, ["argument 'x'", "expected dtype f32, got f64"],
                    self.saxpy, 1.0, array.array("d", [1]), f32([1]))

    def test_wrong_ndim_and_shape(self):
        m = memoryview(bytearray(16)).cast("f", (2, 2))
        self.raises(qdrt.ArgumentError, ["argument 'y'", "expected 1 dimensions", "got 2"],
                    self.saxpy, 1.0, f32([1]), m)
        pos = memoryview(bytearray(32)).cast("f", (2, 4))
        self.raises(qdrt.ArgumentError, ["argument 'pos'", "expected 3, got 4"],
                    self.store.kernel("rt.basic:advance"), pos, pos, 1.0)
        self.raises(qdrt.ArgumentError, ["argument 'pos'", "expected 2 dimensions"],
                    self.store.kernel("rt.basic:advance"), f32([1, 2, 3]), f32([1, 2, 3]), 1.0)

    def test_non_contiguous(self):
        x = f32(range(8))
        self.raises(qdrt.ArgumentError, ["argument 1", "not C-contiguous"], self.saxpy, 1.0,
                    memoryview(x)[::2], f32([0] * 4))

    def test_counts_and_scalars(self):
        self.raises(qdrt.ArgumentError, ["takes 3 arguments (a, x, y), got 2"], self.saxpy, 1.0,
                    f32([1]))
        self.raises(qdrt.ArgumentError, ["got 4"], self.saxpy, 1.0, f32([1]), f32([1]), 5)
        noop = self.store.kernel("rt.basic:noop")
        self.raises(qdrt.ArgumentError, ["argument 'n'", "takes no float"], noop, f32([1]), 0.5)
        self.raises(qdrt.ArgumentError, ["out of range for i32"], noop, f32([1]), 1 << 40)
        self.raises(qdrt.ArgumentError, ["cannot pass a dict"], noop, f32([1]), {})
        self.raises(qdrt.ArgumentError, ["read-only"], noop, memoryview(b"abcd").cast("f"), 1)
        self.raises(qdrt.ArgumentError, ["unsupported buffer format"], noop,
                    memoryview(bytearray(8)).cast("c"), 1)

    def test_unknown_kernel(self):
        e = self.raises(qdrt.NotFoundError, ["no kernel 'rt.basic:saxpi'",
                                             "did you mean 'rt.basic:saxpy'?"],
                        self.store.kernel, "rt.basic:saxpi")
        self.assertEqual(e.status, "QDRT_ERROR_NOT_FOUND")
        self.assertIsInstance(e, LookupError)
        self.raises(qdrt.NotFoundError, ["no CPU instance", "cuda:sm_90"],
                    self.store.kernel("rt.basic:gpu_only"), f32([1]))

    def test_missing_instance(self):
        self.raises(qdrt.NoInstanceError, ["2 built instances", "'out=ndarray(i32, 1), k=2'",
                                           "'out=ndarray(i32, 1), k=3'", "template value 5"],
                    self.store.kernel("rt.basic:fill_k"), array.array("i", [0]), 5)
        self.raises(qdrt.NoInstanceError, ["x=ndarray(f32, 1), s=f64", "x=ndarray(f64, 1), s=f64"],
                    self.store.kernel("rt.basic:scale"), array.array("i", [0]), 1.0)

    def test_aliasing_fallback_warns_once(self):
        code = ("import sys, array; sys.path.insert(0, %r); import qdrt\n"
                "s = qdrt.open(%r)\n"
                "buf = array.array('f', [1, 2, 3, 4])\n"
                "k = s.kernel('rt.basic:shift')\n"
                "print(k(buf, array.array('f', [0] * 4)), k(buf, buf), k(buf, buf), list(buf))\n"
                "print(k.observations['fallbacks'], k.observations['target'])\n"
                "n = s.kernel('rt.basic:shift_nowhole')\n"
                "print(n(buf, buf), n(buf, buf), n.observations['fallbacks'])\n"
                % (os.path.join(HERE, "..", "python"), GOOD))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(),
                         ["0 1 1 [3.0, 4.0, 5.0, 6.0]", "2 cpu+whole", "0 0 0"])
        # One warning: the whole variant ran. Without a variant the split tasks run silently.
        warnings = [l for l in p.stderr.splitlines() if l.startswith("[PER_OFFLOAD][FALLBACK]")]
        self.assertEqual(len(warnings), 1, p.stderr)
        self.assertIn("rt.basic:shift: arguments 'a' and 'b' share memory; running the "
                      "whole-kernel variant", warnings[0])
        self.assertNotIn("shift_nowhole", p.stderr)

    def test_debug_log(self):
        code = ("import sys; sys.path.insert(0, %r); import qdrt; qdrt.open(%r)"
                % (os.path.join(HERE, "..", "python"), PACK))
        env = dict(os.environ, QDRT_LOG="debug")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("qdrt: debug: opened pack", p.stderr)
        self.assertIn("qdrt: debug: loaded module", p.stderr)

    def test_closed_store(self):
        s = qdrt.open(GOOD, lazy=True)
        k = s.kernel("rt.basic:noop")
        s.close()
        self.raises(qdrt.Error, ["closed"], k, f32([1]), 1)


class BadStores(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="qdrt_py_test.")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy_good(self):
        d = os.path.join(self.tmp, "good")
        shutil.copytree(GOOD, d)
        return d

    def objects(self, d):
        out = []
        for root, _, files in os.walk(os.path.join(d, "objects")):
            out += [os.path.join(root, f) for f in files if f.endswith(".qdo")]
        return out

    def test_bad_entries(self):
        with self.assertRaises(qdrt.VersionError) as cm:
            qdrt.open(BAD)
        self.assertIn("task ABI version 99", str(cm.exception))
        s = qdrt.open(BAD, lazy=True)
        x = f32([1])
        for name, cls, part in [("abi_version", qdrt.VersionError, "task ABI version 99"),
                                ("missing_symbol", qdrt.LoadError, "'no_such_task'"),
                                ("missing_extent", qdrt.LoadError, "'noop_t0__extent'")]:
            with self.assertRaises(cls) as cm:
                s.kernel("rt.bad:" + name)(x)
            self.assertIn(part, str(cm.exception))
        with self.assertRaises(qdrt.CorruptStoreError):
            s.kernel("rt.bad:metadata_size")
        with self.assertRaises(qdrt.VersionError):
            s.kernel("rt.bad:metadata_version")

    def test_corrupt_object(self):
        d = self.copy_good()
        for path in self.objects(d):
            with open(path, "r+b") as f:
                f.seek(-50, os.SEEK_END)
                b = f.read(1)
                f.seek(-50, os.SEEK_END)
                f.write(bytes([b[0] ^ 0x40]))
        with self.assertRaises(qdrt.CorruptStoreError) as cm:
            qdrt.open(d)
        self.assertIn(".qdo' is damaged", str(cm.exception))
        s = qdrt.open(d, lazy=True)
        with self.assertRaises(qdrt.CorruptStoreError):
            s.kernel("rt.basic:noop")(f32([1]), 1)

    def test_truncated_and_missing_object(self):
        d = self.copy_good()
        obj = self.objects(d)[0]
        with open(obj, "r+b") as f:
            f.truncate(100)
        with self.assertRaises(qdrt.CorruptStoreError) as cm:
            qdrt.open(d)
        self.assertIn("truncated", str(cm.exception))
        os.remove(obj)
        with self.assertRaises(qdrt.NotFoundError) as cm:
            qdrt.open(d)
        self.assertIn("missing from the store", str(cm.exception))

    def test_damaged_index(self):
        d = self.copy_good()
        idx = os.path.join(d, "index.qdi")
        with open(idx, "rb") as f:
            data = f.read()
        for damaged, part in [(data[:len(data) - 8], "truncated"),
                              (data[:200] + bytes([data[200] ^ 1]) + data[201:], "checksum"),
                              (b"garbage!" + data[8:], "wrong magic"),
                              (b"", "truncated")]:
            with open(idx, "wb") as f:
                f.write(damaged)
            with self.assertRaises(qdrt.CorruptStoreError) as cm:
                qdrt.open(d)
            self.assertIn(part, str(cm.exception))

    def test_pack_versions_and_damage(self):
        with open(PACK, "rb") as f:
            data = bytearray(f.read())
        p = os.path.join(self.tmp, "x.qdpack")

        def attempt(b, cls, part):
            with open(p, "wb") as f:
                f.write(b)
            with self.assertRaises(cls) as cm:
                qdrt.open(p)
            self.assertIn(part, str(cm.exception))

        newer = bytearray(data)
        newer[8] = 2
        attempt(newer, qdrt.VersionError, "pack format version 2 is newer than this libqdrt")
        attempt(data[:len(data) // 2], qdrt.CorruptStoreError, "truncated")
        flipped = bytearray(data)
        flipped[30] ^= 0xFF
        attempt(flipped, qdrt.CorruptStoreError, "header checksum mismatch")
        flipped = bytearray(data)
        flipped[-60] ^= 0xFF
        attempt(flipped, qdrt.CorruptStoreError, "is damaged")

    def test_not_a_store(self):
        with self.assertRaises(qdrt.NotFoundError):
            qdrt.open(os.path.join(self.tmp, "nothing"))
        with self.assertRaises(qdrt.NotFoundError) as cm:
            qdrt.open(self.tmp)
        self.assertIn("is not a qdbuild store", str(cm.exception))


if numpy is None:
    # Not skipped: not collected. runtime_python_numpy runs them (--numpy require).
    left_out = [n for n, f in list(vars(Values).items()) if getattr(f, "needs_numpy", False)]
    for name in left_out:
        delattr(Values, name)
    print(f"test_python.py: numpy {'hidden' if NUMPY_MODE == 'without' else 'not importable'}: "
          f"{len(left_out)} numpy cases per store variant not collected here "
          "(ctest runtime_python_numpy runs them)", flush=True)

if __name__ == "__main__":
    unittest.main()
