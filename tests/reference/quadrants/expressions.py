"""Expression evaluation for the interpreter (a mixin of Interpreter).

An expression yields either a compile-time Python value or a typed runtime value (Scalar,
Tensor); operators pick between the two levels in ops.py. Calls to qd.func objects are inlined
with the parameter rules of docs/language.md"""

import ast
import builtins
import itertools

from . import dtypes as dt
from . import mathlib, printing
from .loops import kernel_range
from .lvalues import ArrayLV, CellLV, ComponentLV
from .fields import StructElement, StructElementLV, StructField
from .local_struct import Struct
from .ndarray import ArrayArg
from .scope import Scope
from .ops import binop, cast, is_typed, logical, truth, typed, unop
from .tensor_methods import swizzle_indices
from . import tiles
from .values import Cell, LazyValue, Scalar, Tensor

_BIN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
        ast.BitOr: "|", ast.BitXor: "^"}
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_UN = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}


def _typed_or(py_fun, dtype):
    def f(x=0):
        return cast(x, dtype) if is_typed(x) else py_fun(x)

    f.builtin = py_fun  # still the type where one is expected: qd.random(int)
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
    "max": _typed_math(max, mathlib.max), "len": _len, "print": printing.kernel_print,
}


def static(x, *rest):
    """qd.static(x): x is a compile-time value."""
    return x if not rest else (x,) + rest


def is_static_call(node, interp):
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Name, ast.Attribute)):
        return False
    root = node.func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False  # `Vector([f(x)]).norm_sqr()`: evaluating the callee would run f twice
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
        """An f-string: text, values, values with a spec (printing.Formatted)."""
        pieces = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                pieces.append(part.value)
                continue
            value = self.eval(part.value)
            spec = part.format_spec
            if spec is None or not spec.values:
                pieces.append(value)
            elif len(spec.values) == 1 and isinstance(spec.values[0], ast.Constant):
                pieces.append(printing.with_spec(value, spec.values[0].value))
            else:
                raise NotImplementedError("a format spec with a replacement field")
        return printing.formatted(pieces)

    def ex_Slice(self, node):
        part = [None if p is None else self.eval(p) for p in (node.lower, node.upper, node.step)]
        return slice(*part)

    def deferred(self, node, later):
        """The value of operand `node` as Quadrants reads it: a variable or an ndarray element is
        loaded where the expression using it is completed, after the funcs that the `later`
        operands inline have run (`x * f(x)` where f assigns x reads the new x). A getter."""
        if any(isinstance(n, ast.Call) for later_node in later for n in ast.walk(later_node)) \
                and self.is_place(node):
            return self.lvalue(node).get
        v = self.eval(node)
        return lambda: v

    def ex_BinOp(self, node):
        get_left = self.deferred(node.left, [node.right])
        right = self.eval(node.right)
        left = get_left()
        if isinstance(node.op, ast.MatMult):
            from .tensor_methods import matmul

            return matmul(left, right)
        return binop(_BIN[type(node.op)], left, right)

    def ex_UnaryOp(self, node):
        return unop(_UN[type(node.op)], self.eval(node.operand))

    def ex_Compare(self, node):
        nodes = [node.left] + list(node.comparators)
        getters = [self.deferred(n, nodes[i + 1:]) for i, n in enumerate(nodes)]
        operands = [g() for g in getters]
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
        if isinstance(base, StructField):
            return StructElement(base, self.index_list(node.slice))
        if isinstance(base, ArrayArg):
            if self.has_slice(node.slice):
                return self.tile_slice(base, node.slice)  # a register tile's rows or column
            return ArrayLV(base, self.index_list(node.slice), self.ctx).get()
        if isinstance(base, Tensor):
            return self.tensor_component(base, node.slice, lambda: base)
        index = self.eval(node.slice)
        if is_typed(index):
            raise TypeError("a Python list/tuple needs a compile-time index")
        return base[index]

    def tile_slice(self, arr, slice_node):
        items = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        parts = []
        for x in items:
            if isinstance(x, ast.Slice):
                if x.step is not None:
                    raise TypeError("a tile slice takes no step")
                parts.append(("slice", None if x.lower is None else self.eval(x.lower),
                              None if x.upper is None else self.eval(x.upper)))
            else:
                parts.append(("index", self.eval(x)))
        return tiles.array_slice(arr, parts, self.ctx)

    @staticmethod
    def has_slice(slice_node):
        items = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        return any(isinstance(x, ast.Slice) for x in items)

    def slice_ks(self, t, slice_node):
        """The flat components a slice index selects (impl.subscript with _calc_slice: `start or
        0`, `stop or n`, `step or 1`, compile-time ints only, no negative bounds), and the
        result's shape."""
        items = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        if len(items) != len(t.shape):
            raise TypeError(f"a slice of a tensor of shape {t.shape} takes {len(t.shape)} indices")
        axes, shape = [], []
        for x, n in zip(items, t.shape):
            if isinstance(x, ast.Slice):
                lo, hi, st = (None if p is None else self.eval(p) for p in (x.lower, x.upper, x.step))
                for b in (lo, hi, st):
                    if is_typed(b):
                        raise TypeError("Quadrants does not support variables in slice now")
                if (lo is not None and lo < 0) or (hi is not None and hi < 0):
                    raise SyntaxError("Negative indices are not supported in Quadrants kernels.")
                ks = list(range(lo or 0, hi or n, st or 1))
                if not ks or max(ks) >= n:
                    raise IndexError(f"slice {ks} of an axis of {n}")
                axes.append(ks)
                shape.append(len(ks))
            else:
                i = self.eval(x)
                axes.append([i.v if isinstance(i, Scalar) else int(i)])
        flat = []
        for idx in itertools.product(*axes):
            flat.append(t.flat_index(tuple(idx)))
        return flat, tuple(shape)

    def tensor_component(self, t, slice_node, get):
        if self.has_slice(slice_node):
            ks, shape = self.slice_ks(t, slice_node)
            return Tensor(t.dtype, shape, [t.data[k] for k in ks])
        return t.elem(self.flat_component(t, slice_node))

    def flat_component(self, t, slice_node):
        idx = [i.v if isinstance(i, Scalar) else int(i) for i in self.index_list(slice_node)]
        return t.flat_index(tuple(idx))

    def index_list(self, slice_node):
        raw = self.eval(slice_node)
        if raw is None:  # x[None]: the element of a 0-d ndarray
            return []
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
            if self.struct_field_of(node.value) is not None:
                return True  # sf[i, j].member
            if isinstance(node.value, ast.Name) and isinstance(self.lookup(node.value.id),
                                                               Struct):
                return True  # s.member of a qd.Struct
            return swizzle_indices(node.attr) is not None and self.is_place(node.value)
        return False

    def struct_field_of(self, node):
        """The struct field `node` (sf[i, j]) indexes, else None."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.value,
                                                                 (ast.Attribute, ast.Name)):
            return None
        base = self.eval(node.value)
        return base if isinstance(base, StructField) else None

    def lvalue(self, node):
        if isinstance(node, ast.Name):
            v = self.lookup(node.id)
            if not isinstance(v, Cell):
                raise SyntaxError(f"'{node.id}' is not an assignable variable")
            return CellLV(v, self.ctx)
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value)
            if isinstance(base, StructField):
                return StructElementLV(base, self.index_list(node.slice), self.ctx)
            if isinstance(base, ArrayArg):
                return ArrayLV(base, self.index_list(node.slice), self.ctx)
            parent = self.lvalue(node.value)
            t = parent.get()
            if self.has_slice(node.slice):
                ks, shape = self.slice_ks(t, node.slice)
                return ComponentLV(parent, ks, shape)
            return ComponentLV(parent, [self.flat_component(t, node.slice)], None)
        if isinstance(node, ast.Attribute):
            sf = self.struct_field_of(node.value)
            if sf is not None:
                element = StructElement(sf, self.index_list(node.value.slice))
                return element.member_lvalue(node.attr, self.ctx)
            if isinstance(node.value, ast.Name):
                base = self.lookup(node.value.id)
                if isinstance(base, Struct):
                    return CellLV(base.cell(node.attr), self.ctx)
            parent = self.lvalue(node.value)
            ks = swizzle_indices(node.attr)
            if ks is None:
                raise SyntaxError(f"cannot assign to attribute '{node.attr}'")
            return ComponentLV(parent, ks, None if len(ks) == 1 else (len(ks),))
        raise SyntaxError(f"cannot assign to {type(node).__name__}")

    # --- calls ----------------------------------------------------------------------------
    def ex_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "fill" and \
                self.is_place(node.func.value):
            # v.fill(x) / a[i].fill(x): matrix_ops.fill assigns every component of the place.
            lv = self.lvalue(node.func.value)
            t = lv.get()
            if not isinstance(t, Tensor) or len(node.args) != 1:
                raise TypeError("fill() needs a vector or matrix and one value")
            val = self.eval(node.args[0])
            if isinstance(val, (Tensor, tuple, list)):
                raise TypeError("fill() takes a scalar")
            t = t.copy()
            from .tensor_methods import fill
            fill(t, val)
            if not self.ctx.dry:
                lv.set(t)
            return None
        fun = self.eval(node.func)
        from .kernel import BoundFunc, Func, Kernel

        if isinstance(fun, Func):
            return fun.inline(self, node)
        if isinstance(fun, BoundFunc):
            return fun.func.inline(self, node, receiver=fun.obj)  # self.weight(x)
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
        if getattr(fun, "__name__", None) == "format" and isinstance(
                getattr(fun, "__self__", None), str):
            return printing.str_format(fun.__self__, args, kwargs)  # "...".format(...)
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
            self.scopes.append(Scope())
            try:
                self.bind_static_target(gen.target, item)
                if all(truth(self.eval(c)) for c in gen.ifs):
                    self._comprehend(generators[1:], emit)
            finally:
                self.scopes.pop()
