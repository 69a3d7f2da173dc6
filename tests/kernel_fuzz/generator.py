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
kernel returns, several ndarray arguments of several dtypes, dimensions and vector elements."""

import ast
import math
import random

from model import (ALL, BITS, FLOATS, INTS, MANT, PYANY, Info, convert, corners, f32,
                   float_result, full, granularity, int_range, int_result, is_float, is_signed,
                   of_literal, promote, round_to, union)


class Reject(Exception):
    """The generator picked something it cannot make valid here; it tries something else."""


# --- storage --------------------------------------------------------------------------------

class Var:
    """A name in scope. env: what it may hold (assignments must fit); mutable: may be assigned;
    role: local, kscope (kernel-scope local), loop, param, template, static, ref."""

    def __init__(self, name, env, mutable, role, src=None, perm=None):
        self.name = name
        self.env = env
        self.mutable = mutable
        self.role = role
        self.src = src or name
        self.perm = perm  # ref / kscope in a parallel loop: None (plain), "ro", or an atomic op


class Array:
    def __init__(self, name, dt, ndim, elem, env):
        self.name = name
        self.dt = dt
        self.ndim = ndim
        self.elem = elem  # () scalar elements, (n,) vector elements
        self.env = env    # per component


class Par:
    """The rules inside one top-level parallel loop."""

    def __init__(self, dims, index_srcs):
        self.dims = dims              # how many leading axes the loop covers
        self.index_srcs = index_srcs  # source of each covered axis' index ("i", "I[0]")
        self.arrays = {}              # array name -> "own" | "ro" | atomic op ("add", "min", ...)
        self.kscope = {}              # kscope var name -> "ro" | atomic op
        self.grouped = None           # the vector index of a qd.grouped loop


ATOMIC_OPS = ("add", "min", "max", "or", "and", "xor")
STALE_VECTOR = ("whole-vector stores into a vector ndarray (real Quadrants 1.3.3 then reads "
                "stale components of that element)")


def atomic_ops_for(dt):
    """The atomic operations the generator uses on dt: min/max of 8-bit integers (and u1)
    crash real Quadrants 1.3.3 (qd.min of two u8 aborts the process), so not those."""
    if is_float(dt):
        return ("add", "min", "max")
    if BITS[dt] <= 8:
        return ("add", "or", "and", "xor")
    return ATOMIC_OPS
AUG_OF = {"add": "+=", "or": "|=", "and": "&=", "xor": "^="}


# --- the generator ---------------------------------------------------------------------------

class KernelGen:
    def __init__(self, rng, module, name, opts):
        self.rng = rng
        self.m = module
        self.name = name
        self.opts = opts
        self.lines = []
        self.depth = 0
        self.scopes = []
        self.counter = 0
        self.par = None       # Par inside a top-level parallel loop
        self.loops = []       # enclosing loops of the current function: "par", "inner", "static"
        self.caller_loops = 0  # runtime loops / ifs around the calls of the func being written
        self.runtime_ifs = 0   # enclosing non-static ifs of the current function
        self.no_funcs = 0      # > 0: no func calls in the expression being written
        self.in_func = 0
        self.arrays = {}
        self.stmt_budget = 0
        self.constructs = set()
        self.qd_skip = None

    # --- helpers ----------------------------------------------------------------------------
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, text):
        self.lines.append("    " * self.depth + text)

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq, weights=None):
        if weights:
            return self.rng.choices(seq, weights=weights)[0]
        return self.rng.choice(list(seq))

    def tag(self, construct):
        self.constructs.add(construct)

    def push(self):
        self.scopes.append({})

    def pop(self):
        self.scopes.pop()

    def declare(self, var):
        self.scopes[-1][var.name] = var

    def visible(self):
        seen = {}
        for scope in self.scopes:
            seen.update(scope)
        return list(seen.values())

    def in_parallel(self):
        return self.par is not None

    # --- dtypes and values ------------------------------------------------------------------
    def rand_dtype(self, floats=True, ints=True):
        choices, weights = [], []
        if ints:
            for dt, w in zip(INTS, (1, 1, 6, 2, 1, 1, 2, 1)):
                choices.append(dt)
                weights.append(w)
        if floats:
            choices += list(FLOATS)
            weights += [6, 2]
        return self.pick(choices, weights)

    def edge_ints(self, dt):
        lo, hi = int_range(dt)
        return [lo, lo + 1, -1 if lo < 0 else 1, 0, 1, 2, 7, hi - 1, hi]

    def rand_int_value(self, dt, small):
        lo, hi = int_range(dt)
        if small:
            lo, hi = max(lo, -20), min(hi, 20)
            return self.rng.randint(lo, hi)
        if self.chance(0.35):
            return self.pick([v for v in self.edge_ints(dt) if lo <= v <= hi])
        if self.chance(0.5):
            return self.rng.randint(max(lo, -1000), min(hi, 1000))
        return self.rng.randint(lo, hi)

    def rand_exact_float(self, g=2, bound=8):
        return self.rng.randint(-bound * (1 << g), bound * (1 << g)) / (1 << g)

    # --- literals -------------------------------------------------------------------------
    def int_literal(self, lo=-9, hi=9):
        v = self.rng.randint(lo, hi)
        return (str(v) if v >= 0 else f"({v})"), of_literal(v)

    def float_literal(self):
        r = self.rng.random()
        if r < 0.7:
            v = self.rand_exact_float(self.pick([0, 1, 2, 3]), 6)
        elif r < 0.85:
            v = self.pick([0.1, 0.2, 0.3, 1.0 / 3.0, 2.5e-3, 1e3 + 0.1, 0.7])
        else:
            v = self.pick([0.5, 0.25, 1.5, 2.0, 4.0, 1e-2])
        src = repr(v) if v >= 0 else f"({v!r})"
        return src, of_literal(v)

    def typed_literal(self, dt):
        """A literal of dtype dt through T(literal): the literal's kind must match."""
        if is_float(dt):
            if self.chance(0.5):
                v = self.rand_exact_float(2, 8)
            else:
                v = self.pick([0.1, 0.3, 1.0 / 3.0, 1.25, -2.5])
            info = Info(dt, round_to(dt, v), round_to(dt, v), granularity(round_to(dt, v)))
            info = float_result(dt, info.lo, info.hi, info.g, 0.0)
            return f"qd.{dt}({v!r})", info
        lo, hi = int_range(dt)
        if dt == "u1":
            v = self.pick([0, 1])
        else:
            v = self.pick([x for x in self.edge_ints(dt) + [3, 5, 100] if lo <= x <= hi])
        return f"qd.{dt}({v})", Info(dt, v, v)

    def runtime_names(self):
        """Names whose values Quadrants' optimizer never knows: arrays, kernel scalar
        parameters, loop indices."""
        names = set(self.arrays)
        for v in self.visible():
            if v.role in ("param", "loop"):
                names.add(v.name)
        return names

    def foldable(self, src):
        """Whether Quadrants may fold src to a constant (conservatively: yes unless it reads an
        array, a shape, a kernel scalar parameter or a loop index)."""
        runtime = self.runtime_names()
        for node in ast.walk(ast.parse(src, mode="eval")):
            if isinstance(node, ast.Name) and node.id in runtime:
                return False
            if isinstance(node, ast.Attribute) and node.attr == "shape":
                return False
        return True

    def python_level(self, src):
        """Whether src is a plain Python value when Quadrants traces it (only literals,
        template parameters, static loop variables, module constants and Python builtins: no
        local, argument, array or qd.* call), so T(src) must follow the literal rules."""
        py_names = {v.name for v in self.visible() if v.role in ("template", "static")}
        py_names |= set(self.m.consts) | set(self.m.flags) | {"abs", "min", "max", "int",
                                                              "float"}
        for node in ast.walk(ast.parse(src, mode="eval")):
            if isinstance(node, ast.Name) and node.id not in py_names:
                return False
            if isinstance(node, ast.Attribute):
                return False
        return True

    def note_folded_divmod(self, a_src, d_src):
        """Real Quadrants 1.3.3 folds integer // and % of constants with C semantics (7 // -2
        is -3 there): such kernels are not compared with it (tests/diff/README.md)."""
        if self.foldable(a_src) and self.foldable(d_src):
            self.qd_skip = "integer // and % that Quadrants folds as constants (C semantics)"

    # --- expressions ------------------------------------------------------------------------
    def expr(self, want="num", depth=3, exact=False, shape=()):
        """(source, Info) of a runtime or literal expression. want: int | float | num | cond.
        exact: floats must be exact. shape: () scalar, (n,) vector."""
        for _ in range(30):
            try:
                if shape:
                    src, info = self.vector_expr(shape[0], want, depth, exact)
                else:
                    src, info = self.scalar_expr(want, depth, exact)
                if info.shape != tuple(shape):
                    continue
                if want == "int" and info.is_float:
                    continue
                if want == "float" and not info.is_float:
                    continue
                if exact and not info.exact:
                    continue
                return src, info
            except Reject:
                continue
        return self.fallback(want, shape)

    def fallback(self, want, shape):
        if shape:
            n = shape[0]
            if want == "float":
                return (f"qd.Vector([{', '.join(['1.0'] * n)}])",
                        Info("f32", 1.0, 1.0, 0, shape=(n,)))
            return f"qd.Vector([{', '.join(['1'] * n)}])", Info("i32", 1, 1, shape=(n,))
        if want == "float":
            return "0.5", of_literal(0.5)
        return "1", of_literal(1)

    def scalar_expr(self, want, depth, exact):
        if depth <= 0 or self.chance(0.25):
            return self.leaf(want, exact, depth)
        r = self.rng.random()
        if r < 0.40:
            return self.binary(want, depth, exact)
        if r < 0.50:
            return self.unary(want, depth, exact)
        if r < 0.60:
            return self.cast_expr(want, depth, exact)
        if r < 0.70:
            return self.math_call(want, depth, exact)
        if r < 0.76:
            return self.ternary(want, depth, exact)
        if r < 0.83:
            return self.comparison(depth, exact) if want in ("int", "num", "cond") else \
                self.leaf(want, exact, depth)
        if r < 0.90:
            return self.vector_reduce(want, depth, exact)
        if r < 0.95:
            return self.func_call_expr(want, depth, exact)
        return self.literal_fold(want)

    # leaves
    def leaf(self, want, exact, depth=0):
        options = []
        for v in self.visible():
            if v.perm not in (None, "ro") and v.role in ("kscope", "ref"):
                continue  # reduced in this parallel loop: not readable
            if v.env.shape:
                continue
            if want == "int" and v.env.is_float:
                continue
            if want == "float" and v.env.is_int:
                continue
            if exact and not v.env.exact:
                continue
            options.append(("var", v))
        readable = [a for a in self.arrays.values() if depth >= 0 and self.array_readable(a)
                    and (want != "int" or not is_float(a.dt))
                    and (want != "float" or is_float(a.dt))
                    and (not exact or a.env.exact)]
        for a in readable:
            options.append(("array", a))
            options.append(("array", a))
        if want != "float" and self.arrays:
            options.append(("shape", None))
        options.append(("lit", None))
        kind, obj = self.pick(options)
        if kind == "var":
            return obj.src, obj.env
        if kind == "array":
            return self.array_load(obj, depth=depth)
        if kind == "shape":
            a = self.pick(list(self.arrays.values()))
            k = self.rng.randrange(a.ndim)
            n = self.m.dims[k]
            self.tag("shape")
            return f"{a.name}.shape[{k}]", Info("i32", n, n)
        if want == "float" or (want == "num" and self.chance(0.4)):
            if self.chance(0.15):
                self.tag("typed literal")
                return self.typed_literal(self.pick(FLOATS))
            src, info = self.float_literal()
            if exact and not info.exact:
                raise Reject()
            return src, info
        if self.chance(0.15):
            self.tag("typed literal")
            return self.typed_literal(self.pick(INTS))
        return self.int_literal()

    def array_readable(self, a):
        if self.par is None:
            return True
        return self.par.arrays.get(a.name) in ("ro", "own")

    def index_for(self, a, own, depth=1):
        """Index expressions for every axis of a (in bounds)."""
        if own and self.par.grouped and a.ndim == self.par.dims and self.chance(0.5):
            self.tag("vector index")
            return [self.par.grouped]
        idx = []
        for k in range(a.ndim):
            n = self.m.dims[k]
            if own and k < self.par.dims:
                idx.append(self.par.index_srcs[k])
                continue
            r = self.rng.random()
            if r < 0.4 or depth <= 0:
                idx.append(str(self.rng.randrange(n)))
            else:
                src, info = self.expr("int", min(depth, 1) - 1)
                if 0 <= info.lo and info.hi < n:
                    idx.append(src)
                else:
                    self.tag("index modulo")
                    idx.append(f"({src}) % {a.name}.shape[{k}]")
        return idx

    def subscript(self, a, idx):
        if len(idx) == 1:
            return f"{a.name}[{idx[0]}]"
        return f"{a.name}[{', '.join(idx)}]"

    def array_load(self, a, component=True, depth=1):
        own = self.par is not None and self.par.arrays.get(a.name) == "own"
        src = self.subscript(a, self.index_for(a, own, depth))
        info = a.env.with_shape(a.elem)
        if a.elem and component and self.chance(0.6):
            k = self.rng.randrange(a.elem[0])
            self.tag("vector ndarray element")
            if self.chance(0.5):
                return f"{src}[{k}]", info.scalar()
            return f"{src}.{'xyzw'[k]}", info.scalar()
        return src, info

    # operators
    def operand_pair(self, want, depth, exact, int_only=False):
        wa = "int" if int_only else want if want != "cond" else "num"
        a = self.expr(wa, depth - 1, exact)
        b = self.expr(wa, depth - 1, exact)
        return a, b

    def binary(self, want, depth, exact):
        ops = ["+", "-", "*", "//", "%", "/", "**", "<<", ">>", "&", "|", "^", "min", "max"]
        weights = [5, 4, 4, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]
        if want == "float":
            weights = [5, 4, 4, 1, 1, 3, 1, 0, 0, 0, 0, 0, 1, 1]
        op = self.pick(ops, weights)
        if op in ("<<", ">>", "&", "|", "^"):
            return self.int_binary(op, depth, exact)
        (sa, a), (sb, b) = self.operand_pair(want, depth, exact)
        if op in ("min", "max"):
            return self.min_max(op, sa, a, sb, b)
        if op == "/":
            return self.true_div(sa, a, depth, exact)
        if op in ("//", "%"):
            return self.floor_div_mod(op, sa, a, depth, exact)
        if op == "**":
            return self.power(sa, a)
        if a.py is not None and b.py is not None:
            return self.fold(op, sa, a, sb, b)
        return self.arith(op, sa, a, sb, b)

    def fold(self, op, sa, a, sb, b):
        """Both operands compile-time: Python evaluates (two-level evaluation)."""
        if a.py is PYANY or b.py is PYANY:
            # A value per iteration of a static loop: still a Python value; the bounds are
            # those of the typed operation (small values: nothing wraps).
            src, info = self.arith(op, sa, a, sb, b)
            info.py = PYANY
            return src, info
        try:
            v = {"+": lambda x, y: x + y, "-": lambda x, y: x - y,
                 "*": lambda x, y: x * y}[op](a.py, b.py)
        except KeyError as e:
            raise Reject() from e
        if isinstance(v, bool):
            v = int(v)
        if isinstance(v, int) and not -(1 << 31) <= v < (1 << 31):
            raise Reject()
        if isinstance(v, float) and abs(v) > 1e6:
            raise Reject()
        self.tag("constant folding")
        return f"({sa} {op} {sb})", of_literal(v)

    def arith(self, op, sa, a, sb, b):
        t = promote(a.dt, b.dt)
        ca, cb = convert(a.scalar(), t), convert(b.scalar(), t)
        if ca is None or cb is None:
            raise Reject()
        if t != a.dt or t != b.dt:
            self.tag("promotion")
        if is_float(t):
            if op == "*":
                lo, hi = corners(lambda x, y: x * y, ca, cb)
                g = None if ca.g is None or cb.g is None else ca.g + cb.g
                err = ca.err * cb.mag + cb.err * ca.mag + ca.err * cb.err
            else:
                f = (lambda x, y: x + y) if op == "+" else (lambda x, y: x - y)
                lo, hi = corners(f, ca, cb)
                g = None if ca.g is None or cb.g is None else max(ca.g, cb.g)
                err = ca.err + cb.err
            if max(abs(lo), abs(hi)) > (1e6 if t == "f32" else 1e12):
                raise Reject()
            info = float_result(t, lo, hi, g, err, worst=max(ca.mag * cb.mag if op == "*"
                                                            else 0, ca.mag, cb.mag))
        else:
            f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op]
            lo, hi = corners(f, ca, cb)
            info = int_result(t, lo, hi)
        return f"({sa} {op} {sb})", info

    def int_binary(self, op, depth, exact):
        sa, a = self.expr("int", depth - 1)
        if op in ("<<", ">>"):
            sb, b = self.expr("int", depth - 1)
            self.tag("shift")
            amount = f"({sb} & 7)"
            if a.py is not None or a.dt == "u1":
                raise Reject()
            if op == "<<":
                return f"({sa} << {amount})", int_result(a.dt, *int_range(a.dt))
            lo, hi = min(a.lo, 0), max(a.hi, 0)
            return f"({sa} >> {amount})", Info(a.dt, lo, hi)
        sb, b = self.expr("int", depth - 1)
        if a.py is not None and b.py is not None:
            raise Reject()
        t = promote(a.dt, b.dt)
        ca, cb = convert(a.scalar(), t), convert(b.scalar(), t)
        self.tag("bit operation")
        if ca.lo >= 0 and cb.lo >= 0:
            top = (1 << max(ca.hi, cb.hi).bit_length()) - 1
            if op == "&":
                return f"({sa} & {sb})", Info(t, 0, min(ca.hi, cb.hi))
            return f"({sa} {op} {sb})", int_result(t, 0, top)
        return f"({sa} {op} {sb})", int_result(t, *int_range(t))

    def min_max(self, op, sa, a, sb, b):
        t = promote(a.dt, b.dt)
        if BITS[t] <= 8 or BITS[a.dt] <= 8 or BITS[b.dt] <= 8:
            raise Reject()  # min/max of 8-bit / u1 values crashes real Quadrants 1.3.3
        ca, cb = convert(a.scalar(), t), convert(b.scalar(), t)
        if ca is None or cb is None:
            raise Reject()
        f = min if op == "min" else max
        lo, hi = f(ca.lo, cb.lo), f(ca.hi, cb.hi)
        lo, hi = min(lo, hi), max(lo, hi)
        form = self.pick(["qd.{op}({a}, {b})", "{op}({a}, {b})"])
        self.tag("min/max")
        if is_float(t):
            g = None if ca.g is None or cb.g is None else max(ca.g, cb.g)
            info = Info(t, lo, hi, g, max(ca.err, cb.err))
        else:
            info = Info(t, lo, hi)
        return form.format(op=op, a=sa, b=sb), info

    def divisor(self, depth, sign=None):
        """A guarded integer divisor: never 0, never -1 (INT_MIN // -1)."""
        sd, d = self.expr("int", depth - 1)
        if sign is None:
            sign = self.pick([1, -1])
        if d.py is not None:
            v = self.pick([2, 3, 5, 7, 16]) * sign
            return (str(v) if v > 0 else f"({v})"), of_literal(v)
        self.note_folded_divmod(sd, "7")
        if sign > 0 or not is_signed(promote(d.dt, "i32")):
            src = f"({sd} % 7 + 8)"
            t = promote(d.dt, "i32")
            info = Info(t, 8, 14)
            if not is_signed(t) and sign < 0:
                src = f"({sd} % 7 + 8)"
        else:
            src = f"({sd} % 7 - 10)"
            info = Info(promote(d.dt, "i32"), -10, -4)
        return src, info

    def floor_div_mod(self, op, sa, a, depth, exact):
        self.tag("floordiv/mod")
        if a.is_float:
            if not a.exact:
                raise Reject()
            d = self.pick([0.5, 2.0, 4.0, -2.0, 0.25])
            ds = repr(d) if d > 0 else f"({d!r})"
            dinfo = of_literal(d)
            t = promote(a.dt, "f32")
            ca = convert(a.scalar(), t)
            if op == "//":
                lo, hi = sorted((math.floor(ca.lo / d), math.floor(ca.hi / d)))
                return f"({sa} // {ds})", float_result(t, float(lo), float(hi), 0, 0.0)
            m = abs(d)
            g = max(ca.g, granularity(m))
            return f"({sa} % {ds})", float_result(t, -m, m, g, 0.0)
        if a.py is not None:
            raise Reject()
        sd, d = self.divisor(depth)
        t = promote(a.dt, d.dt)
        if a.dt == "i8" and d.dt == "i8":
            self.qd_skip = "i8 // and % (real Quadrants 1.3.3 computes them wrongly)"
        self.note_folded_divmod(sa, sd)
        ca, cd = convert(a.scalar(), t), convert(d, t)
        if op == "//":
            if cd.lo > 0 or cd.hi < 0:
                lo, hi = corners(lambda x, y: x // y, ca, cd)
                return f"({sa} // {sd})", int_result(t, lo, hi)
            return f"({sa} // {sd})", int_result(t, *int_range(t))
        if cd.lo > 0:
            return f"({sa} % {sd})", Info(t, 0, cd.hi - 1)
        if cd.hi < 0:
            return f"({sa} % {sd})", Info(t, cd.lo + 1, 0)
        return f"({sa} % {sd})", int_result(t, *int_range(t))

    def true_div(self, sa, a, depth, exact):
        """a / b: a float result (integers go to default_fp first); the divisor is kept away
        from zero."""
        self.tag("true division")
        t = "f32" if a.is_int else a.dt
        ca = convert(a.scalar(), t)
        if ca is None:
            raise Reject()
        if self.chance(0.4):
            d = self.pick([2.0, 4.0, 0.5, -8.0])
            k = int(math.log2(abs(d)))  # d = +-2^k
            lo, hi = sorted((ca.lo / d, ca.hi / d))
            g = None if ca.g is None else max(0, ca.g + k)
            ds = repr(d) if d > 0 else f"({d!r})"
            return f"({sa} / {ds})", float_result(t, lo, hi, g, ca.err / abs(d))
        if exact:
            raise Reject()
        sb, b = self.expr("num", depth - 1)
        tb = promote(t, b.dt) if b.is_float else t
        cb = convert(b.scalar(), tb)
        if cb is None:
            raise Reject()
        t = promote(t, tb)
        m = ca.mag
        lo, hi = -m, m
        err = ca.err + m * cb.err
        return (f"({sa} / (qd.abs({sb}) + 1.0))",
                float_result(t, lo, hi, None, err, worst=m + cb.mag))

    def power(self, sa, a):
        self.tag("power")
        n = self.pick([0, 1, 2, 3])
        if a.py is not None:
            raise Reject()
        if a.is_int:
            lo, hi = min(a.lo ** n, a.hi ** n, 0 if n else 1), max(a.lo ** n, a.hi ** n)
            return f"({sa} ** {n})", int_result(a.dt, lo, hi)
        m = a.mag ** n
        if m > 1e6:
            raise Reject()
        g = None if a.g is None else a.g * n
        lo, hi = (-m, m) if n % 2 else (0.0 if n else 1.0, m if n else 1.0)
        if self.chance(0.3) and a.exact:
            # a negative exponent: 1 / a**n, with the base kept away from zero
            return (f"((qd.abs({sa}) + 1.0) ** (-{max(n, 1)}))",
                    float_result(a.dt, 0.0, 1.0, None, 0.0, worst=(a.mag + 1) ** max(n, 1)))
        return f"({sa} ** {n})", float_result(a.dt, lo, hi, g, a.err * max(n, 1) * max(
            1.0, a.mag) ** max(n - 1, 0), worst=max(m, 1.0))

    def unary(self, want, depth, exact):
        sa, a = self.expr(want if want != "cond" else "num", depth - 1, exact)
        if a.py is not None:
            raise Reject()
        op = self.pick(["-", "abs", "~", "not"], [4, 3, 1, 1])
        if op == "-":
            if a.is_int:
                return f"(-{sa})", int_result(a.dt, -a.hi, -a.lo)
            return f"(-{sa})", Info(a.dt, -a.hi, -a.lo, a.g, a.err)
        if op == "abs":
            self.tag("abs")
            form = self.pick(["abs({a})", "qd.abs({a})"])
            if a.is_int:
                if is_signed(a.dt) and a.lo == int_range(a.dt)[0]:
                    raise Reject()  # abs of the minimum is poison in Quadrants' LLVM code
                if a.lo >= 0:
                    lo, hi = a.lo, a.hi
                elif a.hi <= 0:
                    lo, hi = -a.hi, -a.lo
                else:
                    lo, hi = 0, max(-a.lo, a.hi)
                return form.format(a=sa), int_result(a.dt, lo, hi)
            return form.format(a=sa), Info(a.dt, 0.0, a.mag, a.g, a.err)
        if a.is_float:
            raise Reject()
        if op == "~":
            self.tag("bit operation")
            return f"(~{sa})", int_result(a.dt, -a.hi - 1, -a.lo - 1) if is_signed(
                a.dt) else int_result(a.dt, *int_range(a.dt))
        self.tag("not")
        return f"(not {sa})", Info("u1", 0, 1)

    def cast_expr(self, want, depth, exact):
        t = self.rand_dtype(floats=want != "int", ints=want != "float")
        sa, a = self.expr("num", depth - 1, exact)
        if a.py is not None:
            raise Reject()
        c = convert(a.scalar(), t)
        if c is None:
            raise Reject()
        self.tag("cast")
        form = self.rng.random()
        if form < 0.5 or self.python_level(sa):
            return f"qd.cast({sa}, qd.{t})", c
        if form < 0.8:
            return f"qd.{t}({sa})", c
        if t == "i32":
            return f"int({sa})", c
        if t == "f32":
            return f"float({sa})", c
        return f"qd.cast({sa}, qd.{t})", c

    def math_call(self, want, depth, exact):
        if want == "int":
            sa, a = self.expr("int", depth - 1)
            if a.py is not None:
                raise Reject()
            if self.chance(0.5):
                self.tag("min/max")
                sb, b = self.expr("int", depth - 1)
                return self.min_max(self.pick(["min", "max"]), sa, a, sb, b)
            sb, b = self.expr("int", depth - 1)
            lo_s, lo_i = self.int_literal(-20, 0)
            hi_s, hi_i = self.int_literal(1, 20)
            self.tag("clamp")
            t = promote(a.dt, "i32")
            ca = convert(a, t)
            return f"qd.math.clamp({sa}, {lo_s}, {hi_s})", Info(t, lo_i.lo, hi_i.lo)
        fn = self.pick(["floor", "ceil", "round", "sqrt", "sin", "cos", "exp", "log", "tanh",
                        "atan2", "clamp"])
        # sqrt / exp / log take integers (as default_fp); the others need real inputs.
        ints_ok = fn in ("sqrt", "exp", "log")
        sa, a = self.expr("num" if ints_ok and self.chance(0.3) else "float", depth - 1, exact)
        if a.py is not None:
            raise Reject()
        t = a.dt if a.is_float else "f32"
        ca = convert(a.scalar(), t)
        if ca is None:
            raise Reject()
        if fn in ("floor", "ceil", "round"):
            if not ca.exact or a.is_int:
                raise Reject()
            self.tag("floor/ceil/round")
            lo, hi = math.floor(ca.lo) - 1, math.ceil(ca.hi) + 1
            return f"qd.{fn}({sa})", float_result(t, float(lo), float(hi), 0, 0.0)
        if fn == "clamp":
            self.tag("clamp")
            lo = self.rand_exact_float(1, 4)
            hi = lo + abs(self.rand_exact_float(1, 4))
            g = None if ca.g is None else max(ca.g, granularity(lo), granularity(hi))
            return f"qd.math.clamp({sa}, {lo!r}, {hi!r})", Info(t, lo, hi, g, ca.err)
        if exact:
            raise Reject()
        self.tag("transcendental")
        m = ca.mag
        if fn == "sqrt":
            return (f"qd.sqrt(qd.abs({sa}) + 1.0)",
                    float_result(t, 1.0, math.sqrt(m + 1), None, ca.err, worst=math.sqrt(m + 1)))
        if fn in ("sin", "cos", "tanh"):
            return f"qd.{fn}({sa})", float_result(t, -1.0, 1.0, None, ca.err + 16 * 2.0 ** -MANT[
                t], worst=1.0)
        if fn == "exp":
            if m > 6:
                raise Reject()
            e = math.exp(m)
            return f"qd.exp({sa})", float_result(t, math.exp(-m), e, None, ca.err * e, worst=e)
        if fn == "log":
            return (f"qd.log(qd.abs({sa}) + 1.0)",
                    float_result(t, 0.0, math.log(m + 1), None, ca.err, worst=math.log(m + 1) + 1))
        sb, b = self.expr("float", depth - 1)
        cb = convert(b.scalar(), promote(t, b.dt))
        if cb is None:
            raise Reject()
        t2 = promote(t, b.dt)
        return (f"qd.atan2({sa}, qd.abs({sb}) + 1.0)",
                float_result(t2, -math.pi, math.pi, None, (ca.err + cb.err) * 4 + 16 * 2.0 **
                             -MANT[t2], worst=4.0))

    def ternary(self, want, depth, exact):
        sc, c = self.condition(depth - 1)
        # Quadrants builds both sides of `a if c else b` before choosing, so the statements of
        # a func called in either run whatever c is (docs/language.md says one side runs):
        # no func calls in the branches.
        self.no_funcs += 1
        try:
            sa, a = self.expr(want if want != "cond" else "num", depth - 1, exact)
            sb, b = self.expr(want if want != "cond" else "num", depth - 1, exact)
        finally:
            self.no_funcs -= 1
        if a.py is not None or a.shape:
            raise Reject()
        cb = convert(b.scalar(), a.dt)
        if cb is None:
            raise Reject()
        if b.dt != a.dt or b.py is not None:
            sb = f"qd.cast({sb}, qd.{a.dt})"
        info = union(a.scalar(), cb) if a.dt == cb.dt else a
        if self.chance(0.5):
            self.tag("ternary")
            return f"({sa} if {sc} else {sb})", info
        self.tag("qd.select")
        return f"qd.select({sc}, {sa}, {sb})", info

    def comparison(self, depth, exact=True):
        """A u1 comparison (a chain sometimes); float operands exact."""
        want = self.pick(["int", "float", "num"])
        (sa, a), (sb, b) = self.expr(want, depth - 1, True), self.expr(want, depth - 1, True)
        if a.py is not None and b.py is not None:
            raise Reject()
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        t = promote(a.dt, b.dt)
        if convert(a.scalar(), t) is None or convert(b.scalar(), t) is None:
            raise Reject()
        if self.chance(0.15):
            sc, c = self.expr(want, depth - 1, True)
            if convert(c.scalar(), promote(t, c.dt)) is None:
                raise Reject()
            self.tag("comparison chain")
            return f"({sa} {op} {sb} {self.pick(['<', '<=', '!='])} {sc})", Info("u1", 0, 1)
        self.tag("comparison")
        return f"({sa} {op} {sb})", Info("u1", 0, 1)

    def condition(self, depth):
        """An integral runtime condition (a float condition is a type error)."""
        r = self.rng.random()
        if r < 0.6:
            return self.comparison(max(depth, 1))
        if r < 0.75:
            self.no_funcs += 1  # `and` / `or` as the ternary: no func calls in the operands
            try:
                (sa, a), (sb, b) = self.comparison(max(depth - 1, 1)), self.comparison(
                    max(depth - 1, 1))
            finally:
                self.no_funcs -= 1
            self.tag("and/or")
            return f"({sa} {self.pick(['and', 'or'])} {sb})", Info("u1", 0, 1)
        if r < 0.85:
            sa, a = self.comparison(max(depth - 1, 1))
            self.tag("not")
            return f"(not {sa})", Info("u1", 0, 1)
        sa, a = self.expr("int", depth)
        if a.py is not None:
            raise Reject()
        self.tag("integer condition")
        return sa, a

    def literal_fold(self, want):
        """Compile-time arithmetic Python folds before typing (1/3 -> f32(1/3), 7 // 2 -> 3)."""
        self.tag("constant folding")
        if want == "float" or (want == "num" and self.chance(0.5)):
            a, b = self.pick([1, 2, 3, 7, 10]), self.pick([3, 4, 7, 8])
            v = a / b
            return f"({a} / {b})", of_literal(v)
        a, b = self.rng.randint(-50, 50), self.pick([2, 3, -4, 7])
        op = self.pick(["//", "%", "*", "-"])
        v = {"//": a // b, "%": a % b, "*": a * b, "-": a - b}[op]
        return f"({a} {op} {b if b > 0 else f'({b})'})", of_literal(v)

    # --- vectors ----------------------------------------------------------------------------
    def vector_expr(self, n, want, depth, exact):
        r = self.rng.random()
        cand = [v for v in self.visible() if v.env.shape == (n,) and (
            want != "int" or v.env.is_int) and (want != "float" or v.env.is_float) and (
            not exact or v.env.exact) and (v.perm in (None, "ro") or v.role not in ("kscope",
                                                                                    "ref"))]
        arrays = [a for a in self.arrays.values() if a.elem == (n,) and self.array_readable(a)
                  and (want != "int" or not is_float(a.dt)) and (want != "float" or is_float(
                      a.dt)) and (not exact or a.env.exact)]
        if r < 0.3 and cand:
            v = self.pick(cand)
            return v.src, v.env
        if r < 0.45 and arrays:
            a = self.pick(arrays)
            return self.array_load(a, component=False)
        if r < 0.75 or depth <= 0:
            items = [self.expr(want if want != "cond" else "num", depth - 1, exact)
                     for _ in range(n)]
            self.tag("vector constructor")
            if self.chance(0.3):
                t = self.rand_dtype(floats=want != "int", ints=want != "float")
                infos = [convert(i.scalar(), t) for _, i in items]
                if any(i is None for i in infos):
                    raise Reject()
                self.tag("typed vector type")
                info = infos[0]
                for i in infos[1:]:
                    info = union(info, i)
                return (f"qd.types.vector({n}, qd.{t})({', '.join(s for s, _ in items)})",
                        info.with_shape((n,)))
            t = items[0][1].dt
            for _, i in items[1:]:
                t = promote(t, i.dt)
            infos = [convert(i.scalar(), t) for _, i in items]
            if any(i is None for i in infos):
                raise Reject()
            info = infos[0]
            for i in infos[1:]:
                info = union(info, i)
            return f"qd.Vector([{', '.join(s for s, _ in items)}])", info.with_shape((n,))
        # element-wise arithmetic
        sa, a = self.expr(want, depth - 1, exact, (n,))
        if self.chance(0.5):
            sb, b = self.expr(want, depth - 1, exact, (n,))
        else:
            sb, b = self.expr(want if want != "cond" else "num", depth - 1, exact)
        op = self.pick(["+", "-", "*"])
        self.tag("vector arithmetic")
        s, info = self.arith(op, sa, a.scalar(), sb, b.scalar())
        return s, info.with_shape((n,))

    def vector_reduce(self, want, depth, exact):
        n = self.pick([2, 3, 4])
        sa, a = self.expr(want if want in ("int", "float") else "num", depth - 1, exact, (n,))
        fn = self.pick(["sum", "max", "min", "dot", "norm_sqr", "component", "swizzle",
                        "dynamic", "cross", "matvec"])
        self.tag("vector " + fn)
        if fn == "component":
            return f"{sa}[{self.rng.randrange(n)}]", a.scalar()
        if fn == "swizzle":
            return f"{sa}.{'xyzw'[self.rng.randrange(n)]}", a.scalar()
        if fn == "dynamic":
            si, i = self.expr("int", 1)
            index = f"({si}) % {n}"
            if promote(i.dt, "i32") != "i32":
                index = f"qd.cast({index}, qd.i32)"  # a vector index must be an i32
            return f"{sa}[{index}]", a.scalar()
        if fn in ("max", "min"):
            if BITS[a.dt] <= 8:
                raise Reject()
            return f"{sa}.{fn}()", a.scalar()
        if fn == "sum":
            return f"{sa}.sum()", self.reshape_sum(a.scalar(), n)
        if fn == "norm_sqr":
            sq = self.arith("*", sa, a.scalar(), sa, a.scalar())[1]
            return f"{sa}.norm_sqr()", self.reshape_sum(Info(sq.dt, 0 if sq.lo >= 0 else sq.lo,
                                                               sq.hi, sq.g, sq.err), n)
        if fn == "dot":
            sb, b = self.expr(want if want in ("int", "float") else "num", depth - 1, exact, (n,))
            pr = self.arith("*", sa, a.scalar(), sb, b.scalar())[1]
            return f"{sa}.dot({sb})", self.reshape_sum(pr, n)
        if fn == "cross":
            sa, a = self.expr(want if want in ("int", "float") else "num", depth - 1, exact, (3,))
            sb, b = self.expr(want if want in ("int", "float") else "num", depth - 1, exact, (3,))
            pr = self.arith("*", sa, a.scalar(), sb, b.scalar())[1]
            d = self.arith("-", "x", pr, "y", pr)[1]
            return f"{sa}.cross({sb})[{self.rng.randrange(3)}]", d
        # a 2x2 / 3x3 matrix times a vector, one component
        n = self.pick([2, 3])
        sa, a = self.expr(want if want in ("int", "float") else "num", depth - 1, exact, (n,))
        rows = [[self.expr(want if want in ("int", "float") else "num", 0, exact)
                 for _ in range(n)] for _ in range(n)]
        t = a.dt
        for row in rows:
            for _, i in row:
                t = promote(t, i.dt)
        entry = None
        for row in rows:
            for _, i in row:
                c = convert(i.scalar(), t)
                if c is None:
                    raise Reject()
                entry = c if entry is None else union(entry, c)
        mat = "qd.Matrix([" + ", ".join("[" + ", ".join(s for s, _ in row) + "]"
                                         for row in rows) + "])"
        ca = convert(a.scalar(), t)
        if ca is None:
            raise Reject()
        pr = self.arith("*", "m", entry, "v", ca)[1]
        op = self.pick(["@", "transpose", "outer"])
        k = self.rng.randrange(n)
        self.tag("matrix " + op)
        if op == "@":
            return f"({mat} @ {sa})[{k}]", self.reshape_sum(pr, n)
        if op == "transpose":
            return f"({mat}.transpose() @ {sa})[{k}]", self.reshape_sum(pr, n)
        return f"{sa}.outer_product({sa})[{k}, {self.rng.randrange(n)}]", self.arith(
            "*", "a", ca, "b", ca)[1]

    def reshape_sum(self, term, n):
        """The bounds of a sum of n terms, each within term's bounds."""
        lo, hi = term.lo * n, term.hi * n
        if term.is_float:
            if max(abs(lo), abs(hi)) > 1e7:
                raise Reject()
            return float_result(term.dt, lo, hi, term.g, term.err * n, worst=max(abs(lo), abs(hi)))
        return int_result(term.dt, lo, hi)

    # --- funcs ------------------------------------------------------------------------------
    def func_call_expr(self, want, depth, exact):
        if self.in_func >= 2 or self.no_funcs:
            raise Reject()
        return self.make_func_call(want, depth, exact, as_stmt=False)

    def make_func_call(self, want, depth, exact, as_stmt):
        """Writes a new qd.func and returns a call of it (an expression, or a statement)."""
        fname = self.m.fresh("f")
        params, args = [], []
        binds = []  # (param name, Var in the func)
        nparams = self.rng.randint(1, 3)
        for _ in range(nparams):
            pname = self.fresh("p")
            r = self.rng.random()
            places = self.places() if not self.in_parallel() or True else []
            if r < 0.35 and places:
                src, env, perm = self.pick(places)
                params.append(f"{pname}: qd.template()")
                args.append(src)
                binds.append(Var(pname, env, perm != "ro", "ref", perm=None if perm == "own"
                                 else perm))
                self.tag("func template by reference")
                continue
            if r < 0.45 and self.arrays:
                a = self.pick(list(self.arrays.values()))
                if self.array_readable(a):
                    params.append(f"{pname}: qd.template()" if self.chance(0.5) else
                                  f"{pname}: qd.types.ndarray()")
                    args.append(a.name)
                    binds.append(("array", pname, a))
                    self.tag("func ndarray parameter")
                    continue
            sa, a = self.expr("num", 1)
            if self.chance(0.5) and a.shape == ():
                t = self.rand_dtype()
                c = convert(a.scalar(), t)
                if c is None:
                    raise Reject()
                params.append(f"{pname}: qd.{t}")
                args.append(sa)
                binds.append(Var(pname, full(t) if not is_float(t) else Info(
                    t, -1e30, 1e30, None, c.err if not c.exact else 0.0), True, "local"))
                binds[-1].env = self.widen(c)
                self.tag("func by value (annotated)")
            else:
                params.append(pname)
                args.append(sa)
                if a.py is not None:
                    a = typed(a)
                binds.append(Var(pname, self.widen(a), True, "local"))
                self.tag("func by value (unannotated)")
        # The func's body in its own scopes: only its parameters are visible.
        saved = (self.lines, self.depth, self.scopes, self.loops, self.arrays, self.caller_loops)
        self.caller_loops += sum(1 for kind in self.loops if kind != "static") + self.runtime_ifs
        saved_ifs, self.runtime_ifs = self.runtime_ifs, 0
        arrays = {}
        func_scope = {}
        for b in binds:
            if isinstance(b, tuple):
                _, pname, a = b
                alias = Array(pname, a.dt, a.ndim, a.elem, a.env)
                arrays[pname] = alias
                if self.par is not None:
                    self.par.arrays[pname] = "ro"
            else:
                func_scope[b.name] = b
        self.lines, self.depth, self.scopes, self.loops = [], 1, [func_scope], []
        self.arrays = arrays
        self.in_func += 1
        try:
            self.body_or_pass(self.rng.randint(1, 3))
            ret = self.pick(["none", "scalar", "tuple", "vector"], [1, 4, 1, 1]) \
                if not as_stmt else self.pick(["none", "scalar"])
            if not as_stmt:
                ret = "scalar"
            result = None
            if ret == "scalar":
                sr, r = self.expr(want if want in ("int", "float") else "num", 2, exact)
                if r.py is not None:
                    r = typed(r)
                if self.chance(0.3) and r.shape == ():
                    t = r.dt
                    header_ret = f" -> qd.{t}"
                    self.tag("func return annotation")
                else:
                    header_ret = ""
                self.emit(f"return {sr}")
                result = ("scalar", r, header_ret)
            elif ret == "tuple":
                (s1, r1), (s2, r2) = self.expr("num", 1), self.expr("num", 1)
                r1 = typed(r1) if r1.py is not None else r1
                r2 = typed(r2) if r2.py is not None else r2
                self.emit(f"return {s1}, {s2}")
                result = ("tuple", (r1, r2), "")
                self.tag("func tuple return")
            elif ret == "vector":
                n = self.pick([2, 3])
                sv, v = self.expr("num", 1, False, (n,))
                self.emit(f"return {sv}")
                result = ("vector", v, "")
                self.tag("func vector return")
            body = self.lines
        finally:
            self.in_func -= 1
            if self.par is not None:
                for b in binds:
                    if isinstance(b, tuple):
                        self.par.arrays.pop(b[1], None)
            (self.lines, self.depth, self.scopes, self.loops, self.arrays,
             self.caller_loops) = saved
            self.runtime_ifs = saved_ifs
        header_ret = result[2] if result else ""
        self.m.funcs.append("@qd.func\n" + f"def {fname}({', '.join(params)}){header_ret}:\n" +
                            "\n".join(body) + "\n")
        call = f"{fname}({', '.join(args)})"
        if as_stmt or result is None:
            return call, None
        kind, info, _ = result
        if kind == "scalar":
            if header_ret:
                return call, info
            return call, info
        if kind == "vector":
            return call, info
        return call, ("tuple", info)

    def widen(self, info):
        """The envelope of a variable first assigned `info`."""
        if info.is_float:
            if info.exact:
                m = max(info.mag, 1.0)
                bound = 2.0 ** math.ceil(math.log2(m) + 1)
                g = max(info.g, 2)
                if bound * 2.0 ** g > 2.0 ** (MANT[info.dt] - 3):
                    return Info(info.dt, -bound, bound, None, 0.0, info.shape)
                return Info(info.dt, -bound, bound, g, 0.0, info.shape)
            m = max(info.mag, 1.0) * 4
            return Info(info.dt, -m, m, None, max(info.err, m * 2.0 ** -(MANT[info.dt] - 8)),
                        info.shape)
        return full(info.dt, info.shape)

    def places(self):
        """Assignable places here: (source, envelope, permission)."""
        out = []
        for v in self.visible():
            if not v.mutable:
                continue
            if v.role in ("kscope", "ref") and v.perm not in (None, "ro"):
                continue
            if v.role == "kscope" and self.par is not None:
                continue
            if v.env.shape:
                out.append((v.src, v.env, None))
                k = self.rng.randrange(v.env.shape[0])
                out.append((f"{v.src}[{k}]", v.env.scalar(), None))
            else:
                out.append((v.src, v.env, None))
        for a in self.arrays.values():
            own = self.par is not None and self.par.arrays.get(a.name) == "own"
            if self.par is None or own:
                src = self.subscript(a, self.index_for(a, own))
                out.append((src, a.env.with_shape(a.elem), None))
        return out

    # --- statements -------------------------------------------------------------------------
    def block(self, n):
        for _ in range(n):
            if self.stmt_budget <= 0:
                break
            self.stmt_budget -= 1
            for _attempt in range(8):
                # A statement the generator cannot complete is taken back whole.
                mark = (len(self.lines), [dict(sc) for sc in self.scopes], len(self.m.funcs),
                        self.depth, list(self.loops), set(self.constructs), self.qd_skip)
                try:
                    self.statement()
                    break
                except Reject:
                    del self.lines[mark[0]:]
                    for sc, saved in zip(self.scopes, mark[1]):
                        sc.clear()
                        sc.update(saved)
                    del self.m.funcs[mark[2]:]
                    self.depth, self.loops, self.constructs, self.qd_skip = mark[3:]

    def body_or_pass(self, n):
        start = len(self.lines)
        self.block(n)
        if len(self.lines) == start:
            self.emit("pass")

    def statement(self):
        r = self.rng.random()
        nested = len(self.loops) + self.depth
        if r < 0.22:
            return self.declare_local()
        if r < 0.36:
            return self.assign_existing()
        if r < 0.50:
            return self.store()
        if r < 0.58:
            return self.atomic_stmt()
        if r < 0.68 and nested < 7:
            return self.if_stmt()
        if r < 0.74 and nested < 6:
            return self.inner_for()
        if r < 0.78 and nested < 6:
            return self.while_stmt()
        if r < 0.83 and nested < 7:
            return self.static_for()
        if r < 0.86 and nested < 7:
            return self.static_if()
        if r < 0.91 and self.in_func < 2:
            return self.func_call_stmt()
        if r < 0.96:
            return self.break_continue()
        return self.probe()

    # --- constructs at the edge of what qdbuild compiles: valid Quadrants the reference runs;
    # a QD201 from qdbuild on them is the language gap, counted by construct ---------------
    def probe(self):
        # (no qd.atomic_mul: it aborts real Quadrants 1.3.3 on the CPU, tests/diff/README.md)
        kind = self.pick(["any_all", "fill", "row_slice", "math_helper", "matrix", "print",
                          "norm"])
        n = self.pick([2, 3, 4])
        if kind == "any_all":
            sv, v = self.expr("num", 1, True, (n,))
            sb, b = self.expr("num", 1, True)
            if convert(v.scalar(), promote(v.dt, b.dt)) is None or \
                    convert(b.scalar(), promote(v.dt, b.dt)) is None:
                raise Reject()
            name = self.fresh("v")
            fn = self.pick(["any", "all"])
            self.tag(f"vector .{fn}()")
            self.emit(f"{name} = ({sv} {self.pick(['>', '<=', '!='])} {sb}).{fn}()")
            self.declare(Var(name, Info("u1", 0, 1), True, "local"))
            return
        if kind == "fill":
            name = self.fresh("v")
            sv, v = self.expr("num", 1, False, (n,))
            v = typed(v)
            env = self.widen(v)
            self.emit(f"{name} = {sv}")
            self.declare(Var(name, env, True, "local"))
            self.tag("vector .fill()")
            self.emit(f"{name}.fill({self.fitting(env.scalar())})")
            return
        if kind == "row_slice":
            rows, cols = self.pick([2, 3]), self.pick([2, 3])
            entries = [[self.expr("int", 0)[0] for _ in range(cols)] for _ in range(rows)]
            m = self.fresh("m")
            self.emit(f"{m} = qd.Matrix([" + ", ".join("[" + ", ".join(r) + "]"
                                                       for r in entries) + "])")
            k = self.rng.randrange(rows)
            r = self.fresh("v")
            self.tag("matrix row slice")
            self.emit(f"{r} = {m}[{k}, :]")
            self.emit(f"{m}[{self.rng.randrange(rows)}, :] = {r} * 2")
            self.declare(Var(r, full("i32", (cols,)), True, "local"))
            return
        if kind == "math_helper":
            fn = self.pick(["sign", "step", "fract", "mix", "length", "distance", "log2"])
            self.tag(f"qd.math.{fn}")
            name = self.fresh("v")
            if fn in ("length", "distance"):
                sa, a = self.expr("float", 1, False, (n,))
                if fn == "length":
                    self.emit(f"{name} = qd.math.length({sa})")
                else:
                    sb, b = self.expr("float", 1, False, (n,))
                    self.emit(f"{name} = qd.math.distance({sa}, {sb})")
                m = max(a.mag, 1.0) * 2 * n
                self.declare(Var(name, Info(a.dt, 0.0, m, None, m * 2.0 ** -(MANT[a.dt] - 8)),
                                 True, "local"))
                return
            sa, a = self.expr("float", 1, fn != "mix" and fn != "log2")
            if fn == "sign":
                self.emit(f"{name} = qd.math.sign({sa})")
                info = Info(a.dt, -1.0, 1.0, 0)
            elif fn == "step":
                sb, b = self.expr("float", 1, True)
                self.emit(f"{name} = qd.math.step({sb}, {sa})")
                info = Info(promote(a.dt, b.dt), 0.0, 1.0, 0)
            elif fn == "fract":
                self.emit(f"{name} = qd.math.fract({sa})")
                info = float_result(a.dt, 0.0, 1.0, a.g, 0.0)
            elif fn == "mix":
                sb, b = self.expr("float", 1)
                self.emit(f"{name} = qd.math.mix({sa}, {sb}, 0.25)")
                m = a.mag + b.mag
                info = Info(promote(a.dt, b.dt), -m, m, None, (a.err + b.err + m * 2.0 ** -20))
            else:
                self.emit(f"{name} = qd.math.log2(qd.abs({sa}) + 1.0)")
                m = math.log2(a.mag + 1) + 1
                info = Info(a.dt, 0.0, m, None, a.err + m * 2.0 ** -(MANT[a.dt] - 6))
            self.declare(Var(name, self.widen(info), True, "local"))
            return
        if kind == "matrix":
            rows = self.pick([2, 3])
            entries = [[str(self.rng.randint(-3, 3)) for _ in range(rows)] for _ in range(rows)]
            m = self.fresh("m")
            self.emit(f"{m} = qd.Matrix([" + ", ".join("[" + ", ".join(r) + "]"
                                                       for r in entries) + "])")
            name = self.fresh("v")
            fn = self.pick(["determinant", "trace", "transpose_at", "matmul"])
            self.tag(f"matrix local .{fn}")
            if fn == "determinant":
                self.emit(f"{name} = {m}.determinant()")
            elif fn == "trace":
                self.emit(f"{name} = {m}.trace()")
            elif fn == "transpose_at":
                self.emit(f"{name} = ({m}.transpose() @ {m})[0, {rows - 1}]")
            else:
                self.emit(f"{name} = ({m} @ {m} @ {m})[{rows - 1}, 0]")
            self.declare(Var(name, full("i32"), True, "local"))
            return
        if kind == "print":
            sa, _ = self.expr("num", 1)
            self.tag("print")
            self.emit(f"print({sa})")
            return
        if kind == "atomic_mul":
            if self.par is not None:
                raise Reject()  # a product of racing updates is order-independent only mod 2^n
            cands = [v for v in self.visible() if v.role == "local" and v.mutable and
                     not v.env.shape and v.env.is_int and v.env.dt != "u1"]
            if not cands:
                raise Reject()
            v = self.pick(cands)
            self.tag("qd.atomic_mul")
            self.emit(f"qd.atomic_mul({v.src}, {self.expr('int', 1)[0]})")
            return
        sa, a = self.expr("float", 1, False, (n,))
        name = self.fresh("v")
        self.tag("vector .norm()")
        self.emit(f"{name} = {sa}.norm()")
        m = max(a.mag, 1.0) * 2 * n
        self.declare(Var(name, Info(a.dt, 0.0, m, None, m * 2.0 ** -(MANT[a.dt] - 8)), True,
                         "local"))

    def declare_local(self, shape=None):
        name = self.fresh("v")
        if shape is None:
            shape = self.pick([(), (), (), (2,), (3,), (4,)])
        want = self.pick(["int", "float", "num"])
        src, info = self.expr(want, 3, shape=shape)
        if info.py is not None:
            info = typed(info)
        if not shape and self.chance(0.15):
            t = self.rand_dtype()
            c = convert(info, t)
            if c is not None:
                self.emit(f"{name}: qd.{t} = {src}")
                self.tag("annotated declaration")
                self.declare(Var(name, self.widen(c), True, "local"))
                return
        self.emit(f"{name} = {src}")
        self.declare(Var(name, self.widen(info), True, "local"))

    def assign_existing(self):
        locals_ = [v for v in self.visible() if v.mutable and v.role in ("local", "ref", "static")
                   or (v.role == "kscope" and self.par is None and v.mutable)]
        locals_ = [v for v in locals_ if v.perm in (None,)]
        if not locals_:
            return self.declare_local()
        v = self.pick(locals_)
        env = v.env
        if env.shape and self.chance(0.4):
            k = self.rng.randrange(env.shape[0])
            target = f"{v.src}[{k}]" if self.chance(0.6) else f"{v.src}.{'xyzw'[k]}"
            env = env.scalar()
            self.tag("vector component store")
        else:
            target = v.src
            if env.shape and v.role == "ref":
                self.qd_skip = STALE_VECTOR  # the place may be a vector ndarray element
        if self.chance(0.35) and not env.shape:
            return self.aug_assign(target, env)
        self.emit(f"{target} = {self.fitting(env)}")

    def fitting(self, env):
        """The source of a value that fits the envelope env (converted on assignment)."""
        want = "float" if env.is_float else "int" if self.chance(0.7) else "num"
        for _ in range(6):
            src, info = self.expr(want, 3, exact=env.exact and env.is_float, shape=env.shape)
            if info.py is not None:
                info = typed(info)
            c = convert(info.scalar(), env.dt)
            if c is None:
                continue
            if c.with_shape(env.shape).fits(env):
                return src
            if env.is_float and c.exact and env.g is not None and c.g <= env.g and not env.shape:
                self.tag("clamp")
                return f"qd.math.clamp({src}, {env.lo!r}, {env.hi!r})"
            if env.is_int:
                return src
        if env.shape:
            n = env.shape[0]
            return f"qd.Vector([{', '.join(['0'] * n)}])" if env.is_int else \
                f"qd.Vector([{', '.join(['0.0'] * n)}])"
        return "0" if env.is_int else "0.0"

    def aug_assign(self, target, env):
        if env.is_int:
            op = self.pick(["+=", "-=", "*=", "//=", "%=", "<<=", ">>=", "&=", "|=", "^=",
                            "**="])
            self.tag("augmented assignment")
            if op in ("//=", "%="):
                sd, _ = self.divisor(2)
                self.note_folded_divmod(target, sd)
                self.emit(f"{target} {op} {sd}")
                return
            if op in ("<<=", ">>="):
                sb, _ = self.expr("int", 1)
                self.emit(f"{target} {op} ({sb} & 7)")
                return
            if op == "**=":
                self.emit(f"{target} **= {self.pick([0, 1, 2])}")
                return
            sb, b = self.expr("int", 2)
            self.emit(f"{target} {op} {sb}")
            return
        # floats: the envelope must still hold after the update
        op = self.pick(["+=", "-=", "*="])
        sb, b = self.expr("float", 2, exact=env.exact)
        if b.py is not None:
            b = typed(b)
        cb = convert(b.scalar(), env.dt)
        if cb is None:
            self.emit(f"{target} = {self.fitting(env)}")
            return
        res = self.arith(op[0], target, env, sb, cb)[1]
        if res.fits(env):
            self.tag("augmented assignment")
            self.emit(f"{target} {op} {sb}")
        else:
            self.emit(f"{target} = {self.fitting(env)}")

    def store(self):
        cands = []
        for a in self.arrays.values():
            mode = None if self.par is None else self.par.arrays.get(a.name)
            if self.par is None or mode == "own":
                cands.append(a)
        if not cands:
            return self.declare_local()
        a = self.pick(cands)
        own = self.par is not None
        target = self.subscript(a, self.index_for(a, own))
        if a.elem and self.chance(0.5):
            k = self.rng.randrange(a.elem[0])
            target = f"{target}[{k}]" if self.chance(0.5) else f"{target}.{'xyzw'[k]}"
            self.emit(f"{target} = {self.fitting(a.env)}")
            return
        if a.elem:
            self.qd_skip = STALE_VECTOR
        self.emit(f"{target} = {self.fitting(a.env.with_shape(a.elem))}")

    def atomic_stmt(self):
        """An atomic update: on an array element the current loop may update with this op, or on
        a kernel-scope reduction variable, or (serial) anywhere; old values only in serial code."""
        cands = []
        if self.par is not None:
            for name, mode in self.par.arrays.items():
                if mode in ATOMIC_OPS and name in self.arrays:
                    cands.append(("array", self.arrays[name], mode))
            for v in self.visible():
                if v.role == "kscope" and v.perm in ATOMIC_OPS:
                    cands.append(("var", v, v.perm))
                if v.role == "ref" and v.perm in ATOMIC_OPS:
                    cands.append(("var", v, v.perm))
            for v in self.visible():
                if v.role == "local" and v.mutable and not v.env.shape and v.env.dt != "u1":
                    cands.append(("var", v, None))
        else:
            for a in self.arrays.values():
                if not a.elem and a.dt != "u1":
                    cands.append(("array", a, None))
            for v in self.visible():
                if v.mutable and not v.env.shape and v.role in ("local", "kscope", "ref") and \
                        v.perm is None and v.env.dt != "u1":
                    cands.append(("var", v, None))
        if not cands:
            return self.declare_local()
        kind, obj, op = self.pick(cands)
        if kind == "array":
            env = obj.env
            target = self.subscript(obj, self.index_for(obj, False))
        else:
            env = obj.env
            target = obj.src
        if op is None:
            op = self.pick(atomic_ops_for(env.dt))
        value = self.atomic_operand(env, op)
        if value is None:
            return self.declare_local()
        self.tag("atomic " + op)
        want_old = self.par is None and self.chance(0.4)
        if op in AUG_OF and self.chance(0.5) and not want_old:
            self.emit(f"{target} {AUG_OF[op]} {value}")
            return
        call = f"qd.atomic_{op}({target}, {value})"
        if want_old:
            name = self.fresh("old")
            self.emit(f"{name} = {call}")
            self.declare(Var(name, self.widen(env), True, "local"))
            self.tag("atomic old value")
        else:
            self.emit(call)

    def atomic_operand(self, env, op):
        """An operand whose updates keep the target inside its envelope however the threads
        interleave (floats: exact, with room for every update of the loop)."""
        if env.is_int:
            for _ in range(4):
                src, info = self.expr("int", 2)
                if op not in ("min", "max") or (info.dt != "u1" and not isinstance(info.py,
                                                                                    bool)):
                    return src  # (min/max with a u1 operand crashes real Quadrants)
            return None
        # a float accumulation: exact small steps so that any order gives the same sum
        if op in ("min", "max"):
            src, info = self.expr("float", 2, exact=env.exact)
            c = convert(info.scalar(), env.dt)
            if c is None:
                return None
            if c.fits(env):
                return src
            if env.g is not None and c.exact and c.g <= env.g:
                return f"qd.math.clamp({src}, {env.lo!r}, {env.hi!r})"
            return None
        if env.g is None:
            src, info = self.expr("float", 2)
            c = convert(info.scalar(), env.dt)
            if c is None or c.mag * self.m.total_iterations() > env.hi:
                return None
            return src
        g = min(env.g, 2)
        step = self.rand_exact_float(g, 2)
        if abs(step) * self.m.total_iterations() * 4 > env.hi:
            return None
        return repr(step) if step >= 0 else f"({step!r})"

    def if_stmt(self):
        sc, _ = self.condition(2)
        self.tag("if")
        self.emit(f"if {sc}:")
        self.runtime_ifs += 1
        try:
            self.if_branches()
        finally:
            self.runtime_ifs -= 1

    def if_branches(self):
        self.nested_block()
        r = self.rng.random()
        while r < 0.3:
            sc, _ = self.condition(2)
            self.tag("elif")
            self.emit(f"elif {sc}:")
            self.nested_block()
            r = self.rng.random() * 2
        if self.chance(0.5):
            self.emit("else:")
            self.nested_block()

    def nested_block(self, before=None):
        self.depth += 1
        self.push()
        if before:
            before()
        self.body_or_pass(self.rng.randint(1, 3))
        self.pop()
        self.depth -= 1

    def at_kernel_root(self):
        """Whether a `for` here would be a top-level (parallel) loop of the kernel: outside every
        runtime loop, also through the funcs being inlined (static ifs and loops leave it at the
        root)."""
        return self.par is None and self.caller_loops == 0 and self.runtime_ifs == 0 and not any(
            kind != "static" for kind in self.loops)

    def inner_for(self):
        if self.at_kernel_root():
            raise Reject()  # would be a parallel loop without the generator's race rules
        name = self.fresh("k")
        lo = self.rng.randint(-2, 1)
        hi = lo + self.rng.randint(0, 4)
        if self.chance(0.5):
            self.emit(f"for {name} in range({hi}):" if lo == 0 else
                      f"for {name} in range({lo}, {hi}):")
        else:
            sb, b = self.expr("int", 1)
            self.emit(f"for {name} in range({lo}, {lo} + ({sb}) % 4):")
            self.tag("inner loop runtime bound")
        self.tag("inner for")
        self.loops.append("inner")
        self.nested_block(lambda: self.declare(Var(name, Info("i32", lo - 4, hi + 4), False,
                                                   "loop")))
        self.loops.pop()

    def while_stmt(self):
        name = self.fresh("w")
        n = self.rng.randint(0, 4)
        self.emit(f"{name} = 0")
        self.declare(Var(name, Info("i32", 0, n + 1), False, "loop"))
        self.emit(f"while {name} < {n}:")
        self.tag("while")
        self.loops.append("inner")

        def before():
            self.emit(f"{name} += 1")

        self.nested_block(before)
        self.loops.pop()

    def break_continue(self):
        if not self.loops:
            return self.declare_local()
        top = self.loops[-1]
        if top == "static":
            return self.declare_local()
        ops = ["continue"] if top == "par" else ["break", "continue"]
        sc, _ = self.condition(1)
        stmt = self.pick(ops)
        self.tag(stmt + (" in parallel loop" if top == "par" else ""))
        self.emit(f"if {sc}:")
        self.depth += 1
        self.emit(stmt)
        self.depth -= 1

    def static_for(self):
        name = self.fresh("s")
        r = self.rng.random()
        if r < 0.5:
            n = self.rng.randint(0, 3)
            self.emit(f"for {name} in qd.static(range({n})):")
            env = Info("i32", 0, max(n - 1, 0), py=PYANY)
            self.tag("static for range")
        elif r < 0.75 and self.m.consts:
            cname, values = self.pick(list(self.m.consts.items()))
            self.emit(f"for {name} in qd.static({cname}):")
            env = of_literal(values[0])
            for v in values[1:]:
                env = union(env, of_literal(v))
            env.py = PYANY
            self.tag("static for module tuple")
        else:
            places = [p for p in self.places() if not p[1].shape and p[1].is_int]
            if len(places) < 2:
                return self.declare_local()
            chosen = [self.pick(places) for _ in range(2)]
            if chosen[0][0] == chosen[1][0]:
                chosen = chosen[:1]
            self.emit(f"for {name} in qd.static(({', '.join(p[0] for p in chosen)},)):")
            self.tag("static for over places")
            self.loops.append("static")
            self.depth += 1
            self.push()
            self.declare(Var(name, full(chosen[0][1].dt) if len(chosen) == 1 else
                             full(promote(chosen[0][1].dt, chosen[1][1].dt)), False, "static"))
            # only integer updates that keep any envelope: the places have full-range envelopes
            op = self.pick(["+=", "^=", "-="])
            sb, _ = self.expr("int", 1)
            if all(p[1].dt == chosen[0][1].dt for p in chosen):
                self.emit(f"{name} {op} {sb}")
                self.scopes[-1][name].mutable = False
            self.body_or_pass(self.rng.randint(0, 2))
            self.pop()
            self.depth -= 1
            self.loops.pop()
            return
        self.loops.append("static")
        self.nested_block(lambda: self.declare(Var(name, env, False, "static")))
        self.loops.pop()

    def static_if(self):
        conds = []
        visible = {v.name for v in self.visible()}
        for t, v in self.m.kernel_templates.items():
            if t not in visible:
                continue  # inside a func: the kernel's template parameter is not in scope
            if isinstance(v, bool):
                conds.append((f"qd.static({t})", v))
            else:
                k = self.rng.randint(0, 3)
                conds.append((f"qd.static({t} > {k})", v > k))
        for cname, v in self.m.flags.items():
            conds.append((f"qd.static({cname})", v))
        if not conds:
            return self.declare_local()
        src, taken = self.pick(conds)
        self.tag("static if")
        self.emit(f"if {src}:")
        # Only the taken branch is compiled; like any block it is a scope of its own.
        self.depth += 1
        self.push()
        if taken:
            self.body_or_pass(self.rng.randint(1, 2))
        else:
            self.emit("pass")
        self.pop()
        self.depth -= 1
        self.emit("else:")
        self.depth += 1
        self.push()
        if not taken:
            self.body_or_pass(self.rng.randint(1, 2))
        else:
            self.emit("pass")
        self.pop()
        self.depth -= 1

    def func_call_stmt(self):
        kind = self.rng.random()
        call, res = self.make_func_call("num", 2, False, as_stmt=kind < 0.4)
        if res is None:
            self.emit(call)
            return
        if isinstance(res, tuple) and res and res[0] == "tuple":
            a, b = self.fresh("t"), self.fresh("t")
            self.emit(f"{a}, {b} = {call}")
            self.declare(Var(a, self.widen(res[1][0]), True, "local"))
            self.declare(Var(b, self.widen(res[1][1]), True, "local"))
            return
        name = self.fresh("r")
        self.emit(f"{name} = {call}")
        self.declare(Var(name, self.widen(res), True, "local"))

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


def typed(info):
    """A compile-time value as the runtime value it becomes (a typed literal)."""
    if info.py is None:
        return info
    if info.py is PYANY:
        return Info(info.dt, info.lo, info.hi, info.g, info.err, info.shape)
    return of_literal(info.py)


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
