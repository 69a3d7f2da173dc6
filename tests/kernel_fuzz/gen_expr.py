"""Expressions of the kernel generator (generator.py): literals, folding, operators, casts,
math, vectors and matrices, func calls, each safe by construction (model.py)."""

import ast
import math

from model import (BITS, FLOATS, INTS, MANT, PYANY, Info, convert, corners, float_result, full,
                   granularity, int_range, int_result, is_float, is_signed, of_literal, promote,
                   round_to, union)
from gen_storage import Reject, Var, Array, typed


class ExprGen:
    """The generator's state, its helpers (names, scopes, dtypes, literals, folding) and the
    expressions it writes (gen_stmt.StmtGen adds statements, generator.KernelGen kernels)."""

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
