"""Operators with kernel-language semantics (docs/language.md §3).

Two-level evaluation: when both operands are compile-time Python values the operator runs in
Python (so 1/3 folds to a Python float). Otherwise Python operands become typed literals (int ->
i32, float -> f32 rounded, bool -> u1), both sides are cast to the promoted type, the operation is
done on Python numbers and the result is normalized into the result dtype (wraparound, f32
rounding after every operation). Vectors/matrices apply the scalar rule element by element.
"""

import math
import numbers
import operator

from . import dtypes as dt
from .values import Scalar, Tensor

_PY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<<": operator.lshift,
    ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "min": min, "max": max,
}
COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def is_typed(x):
    return isinstance(x, (Scalar, Tensor))


def typed(x):
    """A compile-time Python number as a strongly typed literal."""
    if is_typed(x):
        return x
    if isinstance(x, bool):
        return Scalar(dt.u1, x)
    if isinstance(x, numbers.Integral):
        if not dt.DEFAULT_IP.in_range(int(x)):
            raise TypeError(f"Integer literal {x} exceeded the range of default_ip: i32")
        return Scalar(dt.DEFAULT_IP, int(x))
    if isinstance(x, numbers.Real):
        return Scalar(dt.DEFAULT_FP, float(x))
    raise TypeError(f"cannot use {type(x).__name__} value {x!r} as a kernel value")


def convert(v, src, dst):
    """Casts the normalized number v of dtype src to dtype dst."""
    if dst.is_float:
        return dst.normalize(float(v))
    if dst.bits == 1:
        return 1 if v != 0 else 0
    if src.is_float:
        if math.isnan(v) or math.isinf(v):
            return 0  # undefined in the language; any value is right
        return dst.normalize(math.trunc(v))
    return dst.normalize(v)


def constant(x, dtype):
    """A compile-time Python number as a constant of dtype (T(x), kernel arguments)."""
    if isinstance(x, bool):
        return Scalar(dtype, convert(int(x), dt.u1, dtype))
    if isinstance(x, numbers.Integral):
        return Scalar(dtype, convert(int(x), dt.i64, dtype))
    if isinstance(x, numbers.Real):
        return Scalar(dtype, convert(float(x), dt.f64, dtype))
    raise TypeError(f"cannot convert {x!r} to {dtype}")


def cast(x, dtype):
    """qd.cast(x, T) and every implicit cast. A Python number is a typed literal first, so
    qd.cast(0.1, qd.f64) is the f32-rounded 0.1 (only qd.f64(0.1) keeps the precision)."""
    x = typed(x)
    if isinstance(x, Tensor):
        return Tensor(dtype, x.shape, [convert(v, x.dtype, dtype) for v in x.data])
    return Scalar(dtype, convert(x.v, x.dtype, dtype))


def truth(x, what="condition"):
    """The truth value of a condition: integral only (a float condition is a type error)."""
    if isinstance(x, Scalar):
        if x.dtype.is_float:
            raise TypeError(f"{what} must be an integer, got {x.dtype}")
        return x.v != 0
    if isinstance(x, Tensor):
        raise TypeError(f"{what} cannot be a vector; use qd.select")
    return bool(x)


def _zero_div(a, b, t):
    if t.is_float:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return 0  # undefined in the language


def _int_pow(base, e, t):
    """Repeated squaring in the base's dtype, rounding (or wrapping) after each multiply."""
    result, tmp, n = t.normalize(1), base, abs(e)
    while n:
        if n & 1:
            result = t.normalize(result * tmp)
        tmp = t.normalize(tmp * tmp)
        n >>= 1
    if e < 0:
        if not t.is_float:
            raise TypeError("integer base with a negative integer exponent")
        result = t.normalize(1.0 / result) if result != 0 else math.inf
    return result


def scalar_binop(op, a, b):
    if op in ("<<", ">>"):
        if not (a.dtype.is_int and b.dtype.is_int):
            raise TypeError(f"'{op}' needs integer operands")
        shifted = a.v << b.v if op == "<<" else a.v >> b.v
        return Scalar(a.dtype, shifted)
    if op == "**":
        if b.dtype.is_int:
            return Scalar(a.dtype, _int_pow(a.v, b.v, a.dtype))
        t = dt.promote(a.dtype, b.dtype)
        x, y = convert(a.v, a.dtype, t), convert(b.v, b.dtype, t)
        try:
            return Scalar(t, math.pow(x, y))
        except (ValueError, OverflowError):
            return Scalar(t, math.nan if x < 0 else math.inf)
    t = dt.promote(a.dtype, b.dtype)
    if op == "/" and t.is_int:
        t = dt.DEFAULT_FP
    if op in ("&", "|", "^") and not t.is_int:
        raise TypeError(f"'{op}' needs integer operands")
    x, y = convert(a.v, a.dtype, t), convert(b.v, b.dtype, t)
    if op in COMPARISONS:
        return Scalar(dt.u1, _PY[op](x, y))
    if op in ("/", "//", "%") and y == 0:
        return Scalar(t, _zero_div(x, y, t))
    if op == "/":
        return Scalar(t, x / y)
    if op == "//" and t.is_float:
        return Scalar(t, math.floor(t.normalize(x / y)))
    if op == "%" and t.is_float:
        q = math.floor(t.normalize(x / y))
        return Scalar(t, t.normalize(x - t.normalize(y * q)))
    if op in ("min", "max") and t.is_float:
        if math.isnan(x) or math.isnan(y):
            return Scalar(t, y if math.isnan(x) else x)
    return Scalar(t, _PY[op](x, y))


def _broadcast(a, b):
    shape = a.shape if isinstance(a, Tensor) else b.shape
    for x in (a, b):
        if isinstance(x, Tensor) and x.shape != shape:
            raise TypeError(f"shape mismatch {a.shape} vs {b.shape}")
    n = len(a.data) if isinstance(a, Tensor) else len(b.data)
    ea = a.elems() if isinstance(a, Tensor) else [a] * n
    eb = b.elems() if isinstance(b, Tensor) else [b] * n
    return shape, ea, eb


def from_scalars(shape, scalars):
    dtype = scalars[0].dtype
    return Tensor(dtype, shape, [s.v for s in scalars])


def binop(op, a, b):
    if not is_typed(a) and not is_typed(b):
        if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
            return _PY[op](a, b)
        return _PY[op](a, b)
    a, b = typed(a), typed(b)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        shape, ea, eb = _broadcast(a, b)
        return from_scalars(shape, [scalar_binop(op, x, y) for x, y in zip(ea, eb)])
    return scalar_binop(op, a, b)


def unop(op, a):
    if not is_typed(a):
        return {"-": operator.neg, "+": operator.pos, "~": operator.invert,
                "not": operator.not_}[op](a)
    if isinstance(a, Tensor):
        return from_scalars(a.shape, [unop(op, e) for e in a.elems()])
    if op == "+":
        return a
    if op == "-":
        return Scalar(a.dtype, -a.v)
    if op == "~":
        if not a.dtype.is_int:
            raise TypeError("'~' needs an integer operand")
        return Scalar(a.dtype, ~a.v)
    if op == "not":
        return Scalar(dt.u1, a.v == 0)
    raise ValueError(op)


def logical(op, a, b):
    """and/or on evaluated operands (the interpreter does the short circuit): the value Python
    would return, in the promoted type of both operands."""
    if not is_typed(a) and not is_typed(b):
        return (a and b) if op == "and" else (a or b)
    a, b = typed(a), typed(b)
    if not (a.dtype.is_int and b.dtype.is_int):
        raise TypeError(f"'{op}' needs integer operands")
    t = dt.promote(a.dtype, b.dtype)
    pick_b = (a.v != 0) if op == "and" else (a.v == 0)
    src = b if pick_b else a
    return Scalar(t, convert(src.v, src.dtype, t))
