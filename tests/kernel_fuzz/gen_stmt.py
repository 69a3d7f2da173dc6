"""Statements of the kernel generator (generator.py), on top of its expressions (gen_expr.py)."""

import math

from model import MANT, PYANY, Info, convert, float_result, full, of_literal, promote, union
from gen_storage import Reject, Var, ATOMIC_OPS, STALE_VECTOR, atomic_ops_for, AUG_OF, typed
from gen_expr import ExprGen


class StmtGen(ExprGen):
    """Statements: assignments, stores, atomics, if / for / while, qd.static, func calls."""

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
