#!/usr/bin/env python3
"""qdrt.bridge's argument side under the real Quadrants (build/venv), without a GPU: what a call's
arguments become for libqdrt on the CPU and on CUDA (the pointer extraction of the CUDA path: a
Quadrants ndarray is a DeviceArray over the same data pointer its runtime gives), the calls that
fall back and why, and the thread count the bridge opens the store with.

  test_bridge_units.py --python build/venv/bin/python

Runs itself under that Python (it needs Quadrants); exit 0 all passed, 1 a failure, 125 without
build/venv (skip policy no-quadrants-venv)."""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

INNER = r'''
import ctypes, sys, unittest
import numpy as np
import quadrants as qd
sys.path.insert(0, sys.argv.pop(1))
import qdrt
from qdrt import bridge
QDBUILD = sys.argv.pop(1)

qd.init(arch=qd.cpu, offline_cache=False, cpu_max_num_threads=1)
prog = qd.lang.impl.get_runtime().prog


class Getters(unittest.TestCase):
    def setUp(self):
        self.b = bridge._Bridge("/nonexistent", None)

    def test_ndarray_cpu_and_cuda(self):
        nd = qd.ndarray(qd.f32, shape=(7,))
        vec = qd.ndarray(qd.math.vec3, shape=(5,))
        ptr = prog.get_ndarray_data_ptr_as_int(nd.arr)
        host = self.b.getter(0, "", nd, "x", "cpu")((nd,))
        self.assertIs(type(host), qdrt.HostArray)
        self.assertEqual((host.data, host.dtype, host.shape), (ptr, "f32", (7,)))
        dev = self.b.getter(0, "", nd, "x", "cuda")((nd,))
        self.assertIs(type(dev), qdrt.DeviceArray)
        self.assertEqual((dev.data, dev.dtype, dev.shape), (ptr, "f32", (7,)))
        v = self.b.getter(1, "", vec, "v", "cuda")((nd, vec))
        self.assertEqual((v.data, v.dtype, v.shape),
                         (prog.get_ndarray_data_ptr_as_int(vec.arr), "f32", (5, 3)))

    def test_member_path_read_at_each_call(self):
        class Holder:
            pass
        h = Holder()
        h.a = qd.ndarray(qd.i32, shape=(3,))
        g = self.b.getter(0, "a", h.a, "h.a", "cuda")
        first = g((h,))
        h.a = qd.ndarray(qd.i32, shape=(4,))
        second = g((h,))
        self.assertEqual(first.shape, (3,))
        self.assertEqual((second.data, second.shape),
                         (prog.get_ndarray_data_ptr_as_int(h.a.arr), (4,)))

    def test_host_arrays_in_a_cuda_call_fall_back(self):
        with self.assertRaisesRegex(bridge._Fallback, "a host array in a cuda call"):
            self.b.getter(0, "", np.zeros(4, np.float32), "x", "cuda")
        g = self.b.getter(0, "", np.zeros(4, np.float32), "x", "cpu")
        self.assertEqual(g((np.ones(2),)).shape, (2,))

    def test_scalars_and_unknown(self):
        self.assertEqual(self.b.getter(0, "", 2.5, "s", "cuda")((2.5,)), 2.5)
        with self.assertRaisesRegex(bridge._Fallback, "argument 'o': a object"):
            self.b.getter(0, "", object(), "o", "cpu")

    def test_descriptions_cached_for_frozen_dataclasses(self):
        import dataclasses

        @dataclasses.dataclass(frozen=True)
        class Inner:
            v: qd.types.NDArray[qd.f32, 1]

        @dataclasses.dataclass(frozen=True)
        class State:
            x: qd.types.NDArray[qd.f32, 1]
            inner: Inner
            n: int

        @dataclasses.dataclass
        class Loose:
            x: qd.types.NDArray[qd.f32, 1]

        @dataclasses.dataclass(frozen=True)
        class WithNumpy:
            x: object

        st = State(qd.ndarray(qd.f32, shape=(3,)), Inner(qd.ndarray(qd.f32, shape=(2,))), 4)
        d1, t1 = self.b.describe(State, st)
        d2, t2 = self.b.describe(State, st)
        self.assertIs(d1, d2)  # described once
        self.assertEqual(t1, t2)
        self.assertNotIn("needs_grad", t1)
        # What the description reads that can still change is checked at every use.
        st.inner.v.grad = qd.ndarray(qd.f32, shape=(2,))
        d3, t3 = self.b.describe(State, st)
        self.assertIsNot(d3, d1)
        self.assertIn("needs_grad=True", t3)
        # Not frozen all the way down: described at every use.
        lo = Loose(qd.ndarray(qd.f32, shape=(3,)))
        self.assertIsNot(self.b.describe(Loose, lo)[0], self.b.describe(Loose, lo)[0])
        wn = WithNumpy(np.zeros(3, np.float32))
        self.assertIsNot(self.b.describe(WithNumpy, wn)[0], self.b.describe(WithNumpy, wn)[0])

    def test_fields_described_or_refused(self):
        from qdrt import describe
        plain = qd.field(qd.i32, shape=(3, 2))
        mat = qd.Matrix.field(2, 2, qd.f32, shape=(5,), needs_grad=True)
        shifted = qd.field(qd.f32, shape=(4,), offset=(-2,))
        sparse = qd.field(qd.f32)
        qd.root.pointer(qd.i, 2).dense(qd.i, 2).place(sparse)
        self.assertEqual(describe.describe_field(plain), {"field": "i32", "shape": [3, 2]})
        self.assertEqual(describe.describe_field(mat),
                         {"field": "f32", "shape": [5], "element": [2, 2], "grad": True})
        self.assertEqual(describe.describe_field(shifted),
                         {"unsupported": "a qd.field with offset=(-2,)"})
        self.assertEqual(describe.describe_field(sparse), {
            "unsupported": "a qd.field under a sparse SNode (pointer, bitmasked, dynamic)"})

    def test_data_oriented_self_described_as_the_instance_reads_it(self):
        import os
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(sys.path[0])), "tests",
                                        "record"))
        from app import kernels  # (the record app's data_oriented solver over fields)
        from qdrt import objects
        s = kernels.Particles(4, scene=None)
        pos = "pos={__field__=True, dtype='vector(3, f32)', ndim=1, shape=(4,)}"
        m = "m={__field__=True, dtype='f32', ndim=1, shape=(4,)}"
        seg = ("data_oriented app.kernels.Particles {__class__='app.kernels.Particles', n=4, "
               "p={__struct_field__=True, " + m + ", " + pos + "}, res=(4, 2)}")
        desc, text, guards = objects.describe(s, seg)
        self.assertTrue(seg.endswith(" " + text), text)  # only the members the instance names
        self.assertNotIn("scene", text)
        self.assertTrue(objects.guards_hold(guards))
        # Values the trace read are frozen, as Quadrants freezes them into the kernel it traced
        # for this object (it never traces it again for them): a numpy array read by value and
        # changed in place, a number reassigned.
        s.res[1] = 3
        s.n = 5
        self.assertTrue(objects.guards_hold(guards))
        s.res[1] = 2
        s.n = 4
        s.p = type(s.p)  # a member reassigned to another object: selected again
        self.assertFalse(objects.guards_hold(guards))
        s2 = kernels.Particles(8, scene=None)
        _, text2, _ = objects.describe(s2, seg)
        self.assertEqual(objects.difference(seg, text2), "self.n is 8 here, 4 in the built instance")
        s2.n = 4
        _, text2, _ = objects.describe(s2, seg)
        why = objects.difference(seg, text2)
        self.assertTrue(why.startswith("self.p.m is {__field__=True, dtype='f32', ndim=1, "
                                       "shape=(8,)} here, {"), why)
        self.assertTrue(why.endswith("shape=(4,)} in the built instance"), why)
        self.assertIsNone(objects.describe(s2, seg.replace("n=4", "gone=4")))

    def test_fields_in_place_or_refused_naming_the_field(self):
        from qdrt import fields
        st = qd.types.struct(pos=qd.math.vec3, m=qd.f32)
        aos = st.field(shape=(5,), layout=qd.Layout.AOS)
        arr = self.b.field_array(aos.pos, "self.p.pos", "cpu")  # (no torch in this venv)
        self.assertEqual((arr.dtype, arr.shape, arr.strides), ("f32", (5, 3), (16, 4)))
        self.assertEqual(arr.data + 12, self.b.field_array(aos.m, "self.p.m", "cpu").data)
        aos.m[3] = 7.5
        self.assertEqual(float(np.ctypeslib.as_array((ctypes.c_float * 1).from_address(
            arr.data + 3 * 16 + 12))[0]), 7.5)
        self.assertIs(self.b.field_array(aos.pos, "self.p.pos", "cpu"), arr)  # one per field
        dev = self.b.field_array(aos.pos, "self.p.pos", "cuda")
        self.assertIs(type(dev), qdrt.DeviceArray)
        nested = qd.field(qd.f32)
        qd.root.dense(qd.i, 4).dense(qd.j, 2).place(nested)
        with self.assertRaises(bridge._Fallback) as e:
            self.b.field_array(nested, "self.x", "cpu")
        self.assertEqual(str(e.exception), "argument 'self.x': under nested SNodes "
                         "(qd.root.dense(...).dense(...)); only one dense level is a strided array")
        self.assertRaises(fields.NotStrided, fields.layout, qd.field(qd.f32, shape=(4,),
                                                                      offset=(-2,)))

    def test_field_layouts_are_the_memory(self):
        """Every layout qdrt.fields reads, against the field's own to_numpy(): the strides and
        the address it gives, read as a numpy view of Quadrants' memory."""
        import ctypes
        from qdrt import fields
        st = qd.types.struct(pos=qd.types.vector(3, qd.f32), rho=qd.f32, k=qd.f64,
                             m=qd.types.matrix(2, 2, qd.i32))
        sa = st.field(shape=(6, 5), layout=qd.Layout.AOS)
        ss = st.field(shape=(6,), layout=qd.Layout.SOA)
        cases = {"scalar": qd.field(qd.f32, shape=(5, 3)),
                 "vector": qd.Vector.field(3, qd.f32, shape=(4,)),
                 "matrix": qd.Matrix.field(2, 3, qd.f64, shape=(2, 2)),
                 "soa vector": qd.Vector.field(3, qd.f32, shape=(4,), layout=qd.Layout.SOA),
                 "soa matrix": qd.Matrix.field(2, 2, qd.f32, shape=(3,), layout=qd.Layout.SOA),
                 "0-d": qd.field(qd.i32, shape=()),
                 "0-d vector": qd.Vector.field(2, qd.f64, shape=()),
                 "order kij": qd.field(qd.f32, shape=(3, 5, 2), order="kij"),
                 "vector order ji": qd.Vector.field(3, qd.f32, shape=(4, 6), order="ji")}
        for k in ("pos", "rho", "k", "m"):
            cases["aos." + k] = getattr(sa, k)
            cases["soa." + k] = getattr(ss, k)
        rng = np.random.default_rng(0)
        types = {"f32": np.float32, "f64": np.float64, "i32": np.int32}
        for name, f in cases.items():
            a = f.to_numpy()
            f.from_numpy(rng.integers(-1000, 1000, size=a.shape).astype(a.dtype))
        strides = {}
        for name, f in cases.items():
            lay = fields.layout(f, name)
            span = sum((d - 1) * s for d, s in zip(lay.shape, lay.strides)) + 8
            buf = (ctypes.c_char * span).from_address(fields.address(lay))
            view = np.ndarray(lay.shape, dtype=types[lay.dtype], buffer=buf, strides=lay.strides)
            self.assertTrue(np.array_equal(view, f.to_numpy()), name)
            strides[name] = (lay.strides, lay.contiguous)
        self.assertEqual(strides["aos.pos"], ((200, 40, 4), False))  # 40-byte cells
        self.assertEqual(strides["aos.k"], ((200, 40), False))
        self.assertEqual(strides["soa vector"], ((4, 16), False))
        self.assertEqual(strides["order kij"], ((20, 4, 60), False))
        self.assertEqual(strides["soa.pos"], ((12, 4), True))

    def test_random_states_located_then_drawn(self):
        # Found by their initial values; the memory found is the state Quadrants draws from
        # (its draw is the located state's next output); once the only state has drawn, it
        # can no longer be told from other memory: NotFound, with the reason.
        import ctypes
        from qdrt import quadrants_random as qr
        addr = qr.locate(1, 0)
        st = (ctypes.c_uint32 * 5).from_address(addr)
        self.assertEqual(list(st), [qr.initial_x(0, 0), 362436069, 521288629, 88675123, 0])

        import importlib, tempfile
        src = tempfile.mkdtemp(prefix="qd-units-random-")
        with open(src + "/units_draw.py", "w") as f:  # Quadrants reads a kernel's source file
            f.write("import quadrants as qd\n\n@qd.kernel\ndef draw(a: qd.types.ndarray("
                    "qd.u32, 1)):\n    a[0] = qd.random(qd.u32)\n")
        sys.path.insert(0, src)
        a = np.zeros(1, np.uint32)
        importlib.import_module("units_draw").draw(a)
        self.assertEqual(st[3] * 1000000007 & 0xFFFFFFFF, int(a[0]))
        self.assertEqual(list(st)[:3], [362436069, 521288629, 88675123])
        with self.assertRaisesRegex(qr.NotFound, "no array of 1 generator states for "
                                                 "random_seed 0"):
            qr.locate(1, 0)

    def test_random_on_cuda_falls_back(self):
        # A kernel that draws, built for CUDA: on CUDA the bridge leaves it to Quadrants (its
        # device states are out of reach), naming why.
        import importlib, shutil, subprocess, tempfile
        src = tempfile.mkdtemp(prefix="qd-units-cuda-random-")
        with open(src + "/units_cuda_draw.py", "w") as f:
            f.write("import quadrants as qd\n\n@qd.kernel\ndef draw(a: qd.types.NDArray["
                    "qd.u32, 1]) -> None:\n    for i in range(a.shape[0]):\n"
                    "        a[i] = qd.random(qd.u32)\n")
        store = src + "/store"
        subprocess.run([QDBUILD, "build", src + "/units_cuda_draw.py", "--root", src, "--store",
                        store, "--target", "cpu", "--target", "cuda:sm_90"], check=True,
                       stdout=subprocess.DEVNULL)
        sys.path.insert(0, src)
        kernel = importlib.import_module("units_cuda_draw").draw._primal
        a = qd.ndarray(qd.u32, shape=(4,))
        b = bridge._Bridge(store, None)
        self.assertTrue(b.open().kernel("units_cuda_draw:draw").draws_random(0))
        arch = bridge._arch
        try:
            bridge._arch = lambda: "cuda"
            with self.assertRaisesRegex(bridge._Fallback, "qd.random on CUDA: Quadrants keeps "
                                        "its generator states in device memory"):
                b.make_plan(kernel, (a,))
        finally:
            bridge._arch = arch
        shutil.rmtree(src)

    def test_field_address_after_a_destroyed_tree(self):
        # Quadrants gives a destroyed SNode tree's id to the next tree; its buffer is elsewhere.
        import ctypes
        from qdrt import fields

        def view(f):
            lay = fields.layout(f)
            buf = (ctypes.c_char * (lay.shape[0] * 4)).from_address(fields.address(lay))
            return np.ndarray(lay.shape, dtype=np.float32, buffer=buf)

        fb = qd.FieldsBuilder()
        a = qd.field(qd.f32)
        fb.dense(qd.i, 8).place(a)
        tree = fb.finalize()
        first_id = tree.id
        a.from_numpy(np.arange(8, dtype=np.float32))
        self.assertTrue(np.array_equal(view(a), a.to_numpy()))
        tree.destroy()
        fb = qd.FieldsBuilder()
        b = qd.field(qd.f32)
        fb.dense(qd.i, 4096).place(b)
        tree = fb.finalize()
        self.assertEqual(tree.id, first_id)
        b.from_numpy(np.arange(4096, dtype=np.float32) * 2)
        self.assertTrue(np.array_equal(view(b), b.to_numpy()))

    def test_calls_with_the_same_objects_skip_the_lookup(self):
        # A stand-in for Quadrants' Kernel class and for the store's selection (make_plan): what
        # is under test is which plan a call runs.
        import types

        def stand_in():
            pass

        class Kernel:
            arg_metas = ()
            func = staticmethod(stand_in)

            def __call__(self, *args, **kwargs):
                return "quadrants"

        made = []

        class Launch:
            def prepare(self, *values):
                return lambda: ("store", self.args)

        def make_plan(kernel, args):
            made.append(args)
            k = Launch()
            k.args = args
            return "m:k", k, [], guards.get(id(args[0]), ())

        guards = {}
        self.b.make_plan = make_plan
        self.b.patch(types.SimpleNamespace(Kernel=Kernel))
        kern, obj = Kernel(), object()
        x = 1.5 + len(made)  # a float object of its own
        self.assertEqual(kern(obj, x), ("store", (obj, x)))
        self.assertEqual(kern(obj, x), ("store", (obj, x)))
        self.assertEqual((len(made), len(self.b.fast)), (1, 1))
        # Equal values in other objects: the plan of the value, found by the full key; the
        # fast cache does not grow with the objects.
        for _ in range(50):
            y = float("1.5")
            self.assertEqual(kern(obj, y)[0], "store")
        self.assertEqual((len(made), len(self.b.fast)), (1, 1))
        # Another value: its own plan.
        self.assertEqual(kern(obj, 2.5), ("store", (obj, 2.5)))
        self.assertEqual(len(made), 2)
        # Keyword arguments take the full path (Quadrants' fuse_args).
        self.assertEqual(kern(obj, x, extra=1), "quadrants")
        # A plan whose guards no longer hold is made again, on the fast path too.
        class Holder:
            pass
        h = Holder()
        h.member = object()
        guards[id(h)] = ((h, "member", h.member, None),)
        kern(h, x)
        kern(h, x)
        self.assertEqual(len(made), 3)
        h.member = object()
        kern(h, x)
        self.assertEqual(len(made), 4)

    def test_instance_selection_reads_only_what_it_needs(self):
        # select_segments reads each instance string only as far as its first differing segment;
        # it must choose what splitting every instance and comparing (_matches) chooses.
        import random
        from qdrt import instances as qi
        rnd = random.Random(7)
        atoms = [0, 1, 12, -3, 2.5, "a", "a,b", "x]y", "q'uote", True, None]

        def value(depth=0):
            r = rnd.random()
            if depth < 2 and r < 0.3:
                return {"object": "m.O", "fields": {f"k{i}": value(depth + 1)
                                                    for i in range(rnd.randint(1, 3))}}
            if depth < 2 and r < 0.45:
                return {"tuple": [value(depth + 1) for _ in range(rnd.randint(0, 3))]}
            return rnd.choice(atoms)

        def text(v):
            return qi.config_text({"template": v})

        checked = 0
        for _ in range(300):
            names = [f"p{i}" for i in range(rnd.randint(1, 4))]
            params = {n: {"template": value()} for n in names}
            try:
                texts = qi._texts(params)
            except ValueError:
                continue
            built = []
            for _ in range(rnd.randint(1, 4)):
                parts = []
                for n in names:
                    t = texts[n] if rnd.random() < 0.7 else text(value())
                    if rnd.random() < 0.2:
                        t = "dataclass m.C " + t  # a flat prefix
                    elif rnd.random() < 0.1:
                        t = "f(a, b) " + t  # a prefix with structure
                    elif rnd.random() < 0.1:
                        t = t + "0"  # the text only the start of the segment
                    parts.append(f"{n}={t}")
                if rnd.random() < 0.1:
                    parts.append("extra=1")
                rnd.shuffle(parts)
                built.append(", ".join(parts))
            if rnd.random() < 0.5:
                built.append(", ".join(f"{n}={texts[n]}" for n in names))
            want = [i for i, s in enumerate(built)
                    if qi._matches(qi.split_instance(s), params, texts)]
            idx, segments = qi.select_segments(built, params, texts)
            self.assertEqual(idx, want[0] if len(want) == 1 else None, (built, params))
            if idx is not None:
                full = qi.split_instance(built[idx])
                self.assertEqual({n: segments[n] for n in names}, {n: full[n] for n in names})
            checked += 1
        self.assertGreater(checked, 200)

    def test_arch_and_threads(self):
        self.assertEqual(bridge._arch(), "cpu")
        self.assertEqual(bridge._quadrants_threads(), 1)


unittest.main(argv=["test_bridge_units"], verbosity=2)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=os.path.join(ROOT, "build", "venv", "bin", "python"))
    ap.add_argument("--qdbuild", default=os.path.join(ROOT, "build", "bin", "qdbuild"))
    opts = ap.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
    import skip_policy

    if not os.path.exists(opts.python):
        skip_policy.skip("no-quadrants-venv", "the bridge units need the real Quadrants")
    p = subprocess.run([opts.python, "-c", INNER, os.path.join(ROOT, "runtime", "python"),
                        opts.qdbuild],
                       env={k: v for k, v in os.environ.items()
                            if k not in ("QDRT_STORE", "QDRT_RECORD")})
    return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
