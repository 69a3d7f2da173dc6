"""Expression evaluation for the interpreter (a mixin of Interpreter).

An expression yields either a compile-time Python value or a typed runtime value (Scalar,
Tensor); operators pick between the two levels in ops.py. Calls to qd.func objects are inlined
with the parameter rules of kernel-language.md 1.8."""

import ast
import builtins

from . import dtypes as dt
from . import mathlib
from .loops import kernel_range
from .lvalues import ArrayLV, CellLV, ComponentLV
from .ndarray import ArrayArg
from .ops import binop, cast, is_typed, logical, truth, typed, unop
from .tensor_methods import swizzle_indices
from .values import Cell, LazyValue, Scalar, Tensor

_BIN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
        ast.BitOr: "|", ast.BitXor: "^"}
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_UN = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}


def _typed_or(py_fun, dtype):
    def f(x=0):
        return cast(x, dtype) if is_typed(x) else py_fun(x)

    return f


def _typed_math(py_fun, fun):
    def f(*args):
        return fun(*args) if any(is_typed(a) for a in args) else py_fun(*args)

    return f


def _len(x):
    return x.shape[0] if isinstance(x, Tensor) else len(x)


KERNEL_BUILTINS = {
    "range": kernel_range, "int": _typed_or(int, dt.DEFAULT_IP),
    "float": _typed_or(float, dt.DEFAULT_FP), "bool": _typed_or(bool, dt.u1),
    "abs": _typed_math(abs, mathlib.abs), "min": _typed_math(min, mathlib.min),
    "max": _typed_math(max, mathlib.max), "len": _len, "print": lambda *a, **k: None,
}


def static(x, *rest):
    """qd.static(x): x is a compile-time value."""
    return x if not rest else (x,) + rest


def is_static_call(node, interp):
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        return False
    try:
        return interp.eval(node.func) is static
    except (NameError, AttributeError):
        return False


class ExpressionEvaluator:
    def eval(self, node):
        handler = getattr(self, "ex_" + type(node).__name__, None)
        if handler is None:
            raise NotImplementedError(f"unsupported expression {type(node).__name__} "
                                      f"(line {getattr(node, 'lineno', '?')})")
        return handler(node)

    def lookup(self, name):
        scope = self.find_local(name)
        if scope is not None:
            return scope[name]
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        if name in KERNEL_BUILTINS:
            return KERNEL_BUILTINS[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise NameError(f"name '{name}' is not defined")

    def ex_Name(self, node):
        v = self.lookup(node.id)
        return v.value if isinstance(v, Cell) else v

    def ex_Constant(self, node):
        return node.value

    def ex_Tuple(self, node):
        return tuple(self.eval(e) for e in node.elts)

    def ex_List(self, node):
        return [self.eval(e) for e in node.elts]

    def ex_Dict(self, node):
        return {self.eval(k): self.eval(v) for k, v in zip(node.keys, node.values)}

    def ex_JoinedStr(self, node):
        return ""

    def ex_Slice(self, node):
        part = [None if p is None else self.eval(p) for p in (node.lower, node.upper, node.step)]
        return slice(*part)

    def ex_BinOp(self, node):
        left, right = self.eval(node.left), self.eval(node.right)
        if isinstance(node.op, ast.MatMult):
            from .tensor_methods import matmul

            return matmul(left, right)
        return binop(_BIN[type(node.op)], left, right)

    def ex_UnaryOp(self, node):
        return unop(_UN[type(node.op)], self.eval(node.operand))

    def ex_Compare(self, node):
        operands = [self.eval(node.left)] + [self.eval(c) for c in node.comparators]
        results = []
        for i, op in enumerate(node.ops):
            l, r = operands[i], operands[i + 1]
            if type(op) in _CMP:
                results.append(binop(_CMP[type(op)], l, r))
            elif isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)):
                if is_typed(l) or is_typed(r):
                    raise SyntaxError("'in'/'is' only inside qd.static")
                res = {ast.In: lambda: l in r, ast.NotIn: lambda: l not in r,
                       ast.Is: lambda: l is r, ast.IsNot: lambda: l is not r}[type(op)]()
                results.append(res)
        if not any(is_typed(x) for x in results):
            return all(results)
        # The logical_and of the pairwise results (element-wise for vectors), as u1.
        result = cast(results[0], dt.u1)
        for r in results[1:]:
            result = binop("&", result, cast(r, dt.u1))
        return result

    def ex_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return self._bool_chain(op, node.values)

    def _bool_chain(self, op, values):
        a = self.eval(values[0])
        if len(values) == 1:
            return a
        if not is_typed(a):
            if (op == "and") != bool(a):
                return a
            return self._bool_chain(op, values[1:])
        taken_a = (truth(a) == (op == "or"))
        if taken_a:
            rest = self.dry_eval(lambda: self._bool_chain(op, values[1:]), a)
        else:
            rest = self._bool_chain(op, values[1:])
        return logical(op, a, rest)

    def dry_eval(self, thunk, fallback):
        """Evaluates an untaken branch for its type only (no stores happen)."""
        self.ctx.dry += 1
        try:
            return thunk()
        except Exception:  # noqa: BLE001 - the branch may be invalid for these values
            return fallback
        finally:
            self.ctx.dry -= 1

    def ex_IfExp(self, node):
        cond = self.eval(node.test)
        if not is_typed(cond):
            return self.eval(node.body if cond else node.orelse)
        taken, other = (node.body, node.orelse) if truth(cond, "condition") else (node.orelse,
                                                                                node.body)
        value = self.eval(taken)
        other_value = self.dry_eval(lambda: self.eval(other), value)
        if isinstance(value, Tensor) or isinstance(other_value, Tensor):
            other_value = self.eval(other)  # qd.select: both sides are evaluated
            value = typed(value)
        if not is_typed(value) and not is_typed(other_value):
            return value
        t = dt.promote(typed(value).dtype, typed(other_value).dtype)
        return cast(value, t)

    def ex_NamedExpr(self, node):
        value = self.eval(node.value)
        self.assign_name(node.target.id, value, node)
        return self.ex_Name(node.target)

    def ex_Attribute(self, node):
        base = self.eval(node.value)
        return getattr(base, node.attr)

    def ex_Subscript(self, node):
        base = self.eval(node.value)
        if isinstance(base, ArrayArg):
            return ArrayLV(base, self.index_list(node.slice), self.ctx).get()
        if isinstance(base, Tensor):
            return self.tensor_component(base, node.slice, lambda: base)
        index = self.eval(node.slice)
        if is_typed(index):
            raise TypeError("a Python list/tuple needs a compile-time index")
        return base[index]

    def tensor_component(self, t, slice_node, get):
        if isinstance(slice_node, ast.Slice):
            ks = list(range(t.shape[0]))[self.eval(slice_node)]
            return Tensor(t.dtype, (len(ks),), [t.data[k] for k in ks])
        return t.elem(self.flat_component(t, slice_node))

    def flat_component(self, t, slice_node):
        idx = [i.v if isinstance(i, Scalar) else int(i) for i in self.index_list(slice_node)]
        return t.flat_index(tuple(idx))

    def index_list(self, slice_node):
        raw = self.eval(slice_node)
        items = list(raw) if isinstance(raw, tuple) else [raw]
        out = []
        for x in items:
            if isinstance(x, Tensor):
                out.extend(x.elems())
            elif isinstance(x, Scalar):
                out.append(cast(x, dt.i32))
            else:
                out.append(x)
        return out

    # --- places ---------------------------------------------------------------------------
    def is_place(self, node):
        """Whether `node` is an assignable place (what lvalue() accepts), without evaluating
        anything but names."""
        if isinstance(node, ast.Name):
            return isinstance(self.lookup(node.id), Cell) and node.id not in self.immutable
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name):
                v = self.lookup(node.value.id)
                return isinstance(v, ArrayArg) or (isinstance(v, Cell) and isinstance(
                    v.value, Tensor) and not isinstance(v, LazyValue))
            return isinstance(node.value, (ast.Subscript, ast.Attribute)) and self.is_place(
                node.value)
        if isinstance(node, ast.Attribute):
            return swizzle_indices(node.attr) is not None and self.is_place(node.value)
        return False

    def lvalue(self, node):
        if isinstance(node, ast.Name):
            v = self.lookup(node.id)
            if not isinstance(v, Cell):
                raise SyntaxError(f"'{node.id}' is not an assignable variable")
            return CellLV(v, self.ctx)
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value)
            if isinstance(base, ArrayArg):
                return ArrayLV(base, self.index_list(node.slice), self.ctx)
            parent = self.lvalue(node.value)
            t = parent.get()
            if isinstance(node.slice, ast.Slice):
                ks = list(range(t.shape[0]))[self.eval(node.slice)]
                return ComponentLV(parent, ks, (len(ks),))
            return ComponentLV(parent, [self.flat_component(t, node.slice)], None)
        if isinstance(node, ast.Attribute):
            parent = self.lvalue(node.value)
            ks = swizzle_indices(node.attr)
            if ks is None:
                raise SyntaxError(f"cannot assign to attribute '{node.attr}'")
            return ComponentLV(parent, ks, None if len(ks) == 1 else (len(ks),))
        raise SyntaxError(f"cannot assign to {type(node).__name__}")

    # --- calls ----------------------------------------------------------------------------
    def ex_Call(self, node):
        fun = self.eval(node.func)
        from .kernel import Func, Kernel

        if isinstance(fun, Func):
            return fun.inline(self, node)
        if isinstance(fun, Kernel):
            raise SyntaxError("a kernel cannot call a kernel")
        if getattr(fun, "takes_lvalue", False):
            if self.ctx.dry:
                return self.eval(node.args[0])
            args = [self.lvalue(node.args[0])] + [self.eval(a) for a in node.args[1:]]
            return fun(*args)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.eval(a.value))
            else:
                args.append(self.eval(a))
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
        return fun(*args, **kwargs)

    def ex_ListComp(self, node):
        out = []
        self._comprehend(node.generators, lambda: out.append(self.eval(node.elt)))
        return out

    def _comprehend(self, generators, emit):
        if not generators:
            emit()
            return
        gen = generators[0]
        for item in self.eval(gen.iter):
            self.scopes.append({})
            try:
                self.bind_static_target(gen.target, item)
                if all(truth(self.eval(c)) for c in gen.ifs):
                    self._comprehend(generators[1:], emit)
            finally:
                self.scopes.pop()
