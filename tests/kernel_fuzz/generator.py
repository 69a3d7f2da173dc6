"""A seeded, grammar-based generator of random Quadrants kernels (tier-1 language) with random
inputs, for differential testing (scripts/kernel_fuzz.py).

Every kernel it writes is meant to be valid Quadrants whose result does not depend on the
implementation: no undefined behaviour (division by zero, out-of-range indices, shifts by the bit
width, float-to-int casts out of range, infinite loops), no races (in a parallel loop an array is
read-only, written only at the loop's own index, or updated only by one commutative atomic
operation; a kernel-scope local is read-only or reduced the same way), and floats that decide
control flow or become integers are exact (model.py). Values whose result may legitimately
differ between implementations (inexact floats) only reach float outputs, which carry a
tolerance derived from the generator's error bounds.

Constructs: dtypes i8..u64/f32/f64/u1, literal typing and two-level folding, promotion, casts
(qd.cast, T(x), int(), float()), // % / ** << >> & | ^ ~ on edge values, comparisons and chains,
and/or/not, ternaries and qd.select, math builtins, if/elif/else, inner for/while with break and
continue, continue in parallel loops, qd.static for (range, tuples, enumerate) and qd.static if
on templates and module constants, qd.func by value and by reference (qd.template() bound to
locals, array elements, vector components) returning scalars, tuples and vectors, vectors and
matrices (constructors, typed types, components, swizzles, element-wise ops, @, dot, cross,
sum/min/max, norm_sqr, transpose, outer_product, runtime indices), atomics (+= and qd.atomic_*
on array elements and kernel-scope reductions), several top-level loops (range, ndrange,
grouped, struct-for over an ndarray, qd.loop_config(serialize=True)) with values crossing tasks,
kernel returns, several ndarray arguments of several dtypes, dimensions and vector elements.

The generator is split by what it writes: gen_storage.py (variables, arrays), gen_expr.py
(expressions), gen_stmt.py (statements) and this file (kernels, modules)."""

import math
import random

from model import (MANT, Info, convert, full, granularity, is_float, of_literal, round_to)
from gen_storage import Var, Array, Par, atomic_ops_for
from gen_stmt import StmtGen


class KernelGen(StmtGen):
    """Whole kernels: signature, kernel-scope locals, top-level loops, returns."""

    # --- the kernel -------------------------------------------------------------------------
    def gen(self):
        m = self.m
        params = []
        args = []
        self.push()
        nargs = self.rng.randint(1, 4)
        for _ in range(nargs):
            name = self.fresh("a")
            dt = self.rand_dtype()
            if self.chance(0.1):
                dt = "u1"
            ndim = self.pick([1, 1, 2, 2, 3])
            elem = ()
            if dt != "u1" and self.chance(0.25):
                elem = (self.pick([2, 3, 4]),)
            shape = tuple(m.dims[:ndim]) + elem
            small = self.chance(0.5)
            if is_float(dt):
                inexact = self.chance(0.25)
                g = self.pick([0, 1, 2, 3])
                bound = self.pick([2, 4, 8])
                count = math.prod(shape)
                if inexact:
                    values = [round_to(dt, self.rng.uniform(-bound, bound)) for _ in range(count)]
                    env = Info(dt, -bound * 16.0, bound * 16.0, None,
                               bound * 16.0 * 2.0 ** -(MANT[dt] - 10))
                else:
                    values = [self.rand_exact_float(g, bound) for _ in range(count)]
                    env = Info(dt, -bound * 16.0, bound * 16.0, max(g, 3))
            elif dt == "u1":
                values = [self.rng.random() < 0.5 for _ in range(math.prod(shape))]
                env = Info("u1", 0, 1)
            else:
                values = [self.rand_int_value(dt, small) for _ in range(math.prod(shape))]
                env = full(dt)
            a = Array(name, dt, ndim, elem, env)
            self.arrays[name] = a
            dts = f"qd.types.vector({elem[0]}, qd.{dt})" if elem else f"qd.{dt}"
            params.append(f"{name}: qd.types.NDArray[{dts}, {ndim}]")
            args.append({"array": dt, "shape": list(shape), "init": values})
        for _ in range(self.rng.randint(0, 2)):
            name = self.fresh("n")
            dt = self.pick(["i32", "i32", "f32", "i64", "u8", "f64", "u32"])
            if is_float(dt):
                v = self.rand_exact_float(2, 8)
                info = Info(dt, v, v, granularity(v))
            else:
                v = self.rand_int_value(dt, self.chance(0.6))
                info = Info(dt, v, v)
            params.append(f"{name}: qd.{dt}")
            args.append(v)
            self.declare(Var(name, info, False, "param"))
            self.tag("scalar parameter")
        for t, v in m.kernel_templates.items():
            params.append(f"{t}: qd.template()")
            args.append(v)
            self.declare(Var(t, of_literal(v), False, "template"))
            self.tag("template parameter")
        ret_dt = None
        if self.chance(0.3):
            ret_dt = self.rand_dtype()
            self.tag("kernel return")
        header = f"def {self.name}({', '.join(params)}) -> " + (f"qd.{ret_dt}" if ret_dt
                                                               else "None") + ":"
        self.depth = 1
        self.stmt_budget = self.rng.randint(6, 22)
        self.body()
        if not self.lines:
            self.emit("pass")
        if ret_dt is not None:
            if is_float(ret_dt):
                s, info = self.expr("float", 2, exact=True)
                src = s
                c = convert(info.scalar(), ret_dt)
                if c is None:
                    src = "1.0"
                    c = of_literal(1.0)
                self.ret_info = c
            else:
                s, info = self.expr("int", 2)
                src = s
                self.ret_info = full(ret_dt)
            self.emit(f"return {src}")
        else:
            self.ret_info = None
        body = self.lines
        self.lines = []
        source = "@qd.kernel\n" + header + "\n" + "\n".join(body) + "\n"
        tol = {}
        for i, a in enumerate(self.arrays.values()):
            if is_float(a.dt) and not a.env.exact:
                tol[str(i)] = tolerance(a.env)
        if ret_dt and is_float(ret_dt) and not self.ret_info.exact:
            tol["return"] = tolerance(self.ret_info)
        outputs = [i for i, x in enumerate(args) if isinstance(x, dict)]
        return source, {"args": args, "outputs": outputs, "tol": tol,
                        "constructs": sorted(self.constructs), "qd_skip": self.qd_skip,
                        "templates": dict(m.kernel_templates)}

    def body(self):
        """Top level: kernel-scope locals, then segments (parallel loops, serial runs,
        serialized loops)."""
        for _ in range(self.rng.randint(0, 2)):
            self.kscope_decl()
        nseg = self.rng.randint(1, 4)
        for _ in range(nseg):
            r = self.rng.random()
            if r < 0.6:
                self.parallel_loop()
            elif r < 0.8:
                self.block(self.rng.randint(1, 3))
            else:
                self.serialized_loop()
            if self.chance(0.3):
                self.kscope_decl()

    def kscope_decl(self):
        name = self.fresh("acc")
        dt = self.pick(["i32", "i32", "i64", "u32", "f32", "f64", "i8", "u16"])
        if is_float(dt):
            v = self.rand_exact_float(1, 4)
            env = Info(dt, -4096.0, 4096.0, 3)
            self.emit(f"{name} = {v!r}" if dt == "f32" else f"{name} = qd.f64({v!r})")
        else:
            v = self.rng.randint(-5, 5)
            env = full(dt)
            self.emit(f"{name} = {v}" if dt == "i32" else f"{name} = qd.{dt}({max(v, 0) if dt.startswith('u') else v})")
        self.tag("kernel-scope local")
        self.declare(Var(name, env, True, "kscope"))

    def parallel_loop(self):
        m = self.m
        ndims = self.pick([1, 1, 2, 2, 3]) if any(a.ndim >= 2 for a in self.arrays.values()) \
            else 1
        ndims = min(ndims, max(a.ndim for a in self.arrays.values()))
        kind = self.pick(["range", "ndrange", "grouped", "struct"]) if ndims > 1 else self.pick(
            ["range", "range", "ndrange", "struct"])
        a0 = self.pick([a for a in self.arrays.values() if a.ndim >= ndims])
        names = [self.fresh("i") for _ in range(ndims)]
        if kind == "range" and ndims == 1:
            if self.chance(0.7):
                head = f"for {names[0]} in range({a0.name}.shape[0]):"
            else:
                head = f"for {names[0]} in range({self.rng.randint(0, 1)}, {a0.name}.shape[0]):"
            index_srcs = names
            self.tag("parallel range")
        elif kind == "struct":
            head = f"for {', '.join(names)} in {a0.name}:" if a0.ndim == ndims else None
            if head is None:
                kind = "ndrange"
            else:
                index_srcs = names
                self.tag("struct-for")
        if kind in ("ndrange", "range") and (ndims > 1 or kind == "ndrange"):
            bounds = []
            for k in range(ndims):
                if self.chance(0.3):
                    bounds.append(f"({self.rng.randint(0, 1)}, {a0.name}.shape[{k}])")
                else:
                    bounds.append(f"{a0.name}.shape[{k}]")
            head = f"for {', '.join(names)} in qd.ndrange({', '.join(bounds)}):"
            index_srcs = names
            self.tag("parallel ndrange")
        elif kind == "grouped":
            gname = self.fresh("I")
            bounds = ", ".join(f"{a0.name}.shape[{k}]" for k in range(ndims))
            head = f"for {gname} in qd.grouped(qd.ndrange({bounds})):"
            index_srcs = [f"{gname}[{k}]" for k in range(ndims)]
            self.tag("parallel grouped")
        par = Par(ndims, index_srcs)
        if kind == "grouped":
            par.grouped = gname
        for a in self.arrays.values():
            r = self.rng.random()
            if a.ndim >= ndims and r < 0.45:
                par.arrays[a.name] = "own"
            elif r < 0.65 and not a.elem and a.dt != "u1":
                ops = atomic_ops_for(a.dt)
                par.arrays[a.name] = self.pick(ops)
            else:
                par.arrays[a.name] = "ro"
        kvars = [v for v in self.visible() if v.role == "kscope"]
        saved_perm = {v.name: v.perm for v in kvars}
        for v in kvars:
            if self.chance(0.5):
                v.perm = "ro"
            else:
                v.perm = self.pick(atomic_ops_for(v.env.dt))
        if self.chance(0.2):
            self.emit(f"qd.loop_config(block_dim={self.pick([1, 2, 8, 32, 128])})")
            self.tag("loop_config block_dim")
        self.emit(head)
        self.par = par
        self.loops.append("par")
        self.depth += 1
        self.push()
        if kind == "grouped":
            self.declare(Var(gname, Info("i32", 0, max(m.dims), shape=(ndims,)), False, "loop"))
        else:
            for k, n in enumerate(names):
                self.declare(Var(n, Info("i32", 0, m.dims[k] - 1), False, "loop"))
        self.body_or_pass(self.rng.randint(1, 5))
        self.pop()
        self.depth -= 1
        self.loops.pop()
        self.par = None
        for v in kvars:
            v.perm = saved_perm[v.name]

    def serialized_loop(self):
        self.emit("qd.loop_config(serialize=True)")
        name = self.fresh("q")
        a0 = self.pick(list(self.arrays.values()))
        self.emit(f"for {name} in range({a0.name}.shape[0]):")
        self.tag("serialized loop")
        self.loops.append("inner")
        self.nested_block(lambda: self.declare(Var(name, Info("i32", 0, self.m.dims[0] - 1),
                                                   False, "loop")))
        self.loops.pop()


def tolerance(info):
    mant = MANT[info.dt]
    atol = 64 * info.err + info.mag * 2.0 ** -(mant - 12)
    return {"atol": atol, "rtol": 2.0 ** -(mant - 10)}


class ModuleGen:
    """One generated module: module constants, funcs and kernels."""

    def __init__(self, rng, name, nkernels, opts=None):
        self.rng = rng
        self.name = name
        self.opts = opts or {}
        self.count = 0
        self.funcs = []
        self.consts = {}
        self.flags = {}
        self.dims = [rng.randint(1, 6), rng.randint(1, 4), rng.randint(1, 3)]
        self.kernel_templates = {}
        for k in range(rng.randint(0, 2)):
            if rng.random() < 0.6:
                vals = tuple(rng.randint(-5, 5) for _ in range(rng.randint(1, 3)))
            else:
                vals = tuple(rng.choice([0.5, -1.25, 2.0, 3.0]) for _ in range(rng.randint(1, 3)))
            self.consts[f"C{k}"] = vals
        for k in range(rng.randint(0, 1)):
            self.flags[f"FLAG{k}"] = rng.random() < 0.5
        self.nkernels = nkernels

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def total_iterations(self):
        return self.dims[0] * self.dims[1] * self.dims[2] * 8

    def generate(self):
        kernels = []
        cases = []
        for k in range(self.nkernels):
            self.kernel_templates = {}
            if self.rng.random() < 0.3:
                self.kernel_templates["tmode"] = self.rng.choice([0, 1, 2, 3, True, False])
            name = f"k{k}"
            kg = KernelGen(random.Random(self.rng.random()), self, name, self.opts)
            source, case = kg.gen()
            case["kernel"] = f"{self.name}:{name}"
            case["name"] = f"{self.name}_{name}"
            kernels.append(source)
            cases.append(case)
        head = ['"""Generated by tests/kernel_fuzz (a random kernel module)."""', "",
                "import quadrants as qd", ""]
        for c, v in self.consts.items():
            head.append(f"{c} = {v!r}")
        for c, v in self.flags.items():
            head.append(f"{c} = {v!r}")
        text = "\n".join(head) + "\n\n\n" + "\n\n".join(self.funcs + kernels)
        return text, cases


def generate_module(seed, name, nkernels, opts=None):
    rng = random.Random(seed)
    return ModuleGen(rng, name, nkernels, opts).generate()
