"""Math builtins (qd.sin ... qd.atan2, sqrt, rsqrt, floor/ceil/round, abs, min/max, pow, select)
and the qd.math helpers. Real functions compute in double and round to the argument's float type;
sqrt/exp/log (and rsqrt) take integers as default_fp, sin/cos/tan/asin/acos/tanh/floor/ceil/round
reject them, atan2 is f64 if either side is f64 else f32. Compile-time Python arguments fold in
Python."""

import math

from . import dtypes as dt
from .ops import binop, cast, from_scalars, is_typed, typed, unop
from .values import Scalar, Tensor


def _elementwise1(fun):
    def apply(x):
        if isinstance(x, Tensor):
            return from_scalars(x.shape, [fun(e) for e in x.elems()])
        return fun(x)

    return apply


def _python_fold(pyfun, x):
    """Quadrants runs math on a compile-time Python number with numpy (ops._unary_operation):
    a float result, NaN outside the domain."""
    if pyfun is math.log and float(x) == 0.0:
        return -math.inf
    try:
        return float(pyfun(float(x)))
    except (ValueError, OverflowError):
        return math.nan if pyfun is not math.exp else math.inf


def _real_unary(name, pyfun, int_ok, fold=None):
    @_elementwise1
    def f(x):
        if not is_typed(x):
            return _python_fold(fold or pyfun, x)
        if x.dtype.is_int:
            if not int_ok:
                raise TypeError(f"qd.{name} takes real inputs only, got {x.dtype}")
            x = cast(x, dt.DEFAULT_FP)
        try:
            return Scalar(x.dtype, pyfun(x.v))
        except (ValueError, OverflowError):
            return Scalar(x.dtype, math.nan)

    f.__name__ = name
    return f


def _rsqrt(v):
    return 1.0 / math.sqrt(v)


def _round_half_away(v):
    return math.copysign(math.floor(builtins_abs(v) + 0.5), v)


sin = _real_unary("sin", math.sin, False)
cos = _real_unary("cos", math.cos, False)
tan = _real_unary("tan", math.tan, False)
asin = _real_unary("asin", math.asin, False)
acos = _real_unary("acos", math.acos, False)
tanh = _real_unary("tanh", math.tanh, False)
exp = _real_unary("exp", math.exp, True)
log = _real_unary("log", math.log, True)
sqrt = _real_unary("sqrt", math.sqrt, True)
rsqrt = _real_unary("rsqrt", _rsqrt, True)
_floor = _real_unary("floor", math.floor, False)
_ceil = _real_unary("ceil", math.ceil, False)
_round = _real_unary("round", _round_half_away, False, fold=round)  # np.round: half to even


def floor(x, dtype=None):
    r = _floor(x)
    return cast(r, dtype) if dtype is not None else r


def ceil(x, dtype=None):
    r = _ceil(x)
    return cast(r, dtype) if dtype is not None else r


def round(x, dtype=None):  # noqa: A001 - the language's name
    r = _round(x)
    return cast(r, dtype) if dtype is not None else r


@_elementwise1
def abs(x):  # noqa: A001
    if not is_typed(x):
        return builtins_abs(x)
    return Scalar(x.dtype, builtins_abs(x.v))


builtins_abs = __builtins__["abs"] if isinstance(__builtins__, dict) else __builtins__.abs


def atan2(y, x):
    if not is_typed(y) and not is_typed(x):
        return math.atan2(y, x)
    y, x = typed(y), typed(x)
    if isinstance(y, Tensor) or isinstance(x, Tensor):
        raise NotImplementedError("atan2 on vectors")
    t = dt.f64 if dt.f64 in (y.dtype, x.dtype) else dt.f32
    return Scalar(t, math.atan2(cast(y, t).v, cast(x, t).v))


def max(*args):  # noqa: A001
    result = args[0]
    for a in args[1:]:
        result = binop("max", result, a)
    return result


def min(*args):  # noqa: A001
    result = args[0]
    for a in args[1:]:
        result = binop("min", result, a)
    return result


def pow(x, y):  # noqa: A001
    return binop("**", x, y)


def select(cond, a, b):
    """Both sides evaluated; element-wise (broadcasting scalars) when any operand is a tensor."""
    tensors = [x for x in (cond, a, b) if isinstance(x, Tensor)]
    if tensors:
        shape = tensors[0].shape
        if any(x.shape != shape for x in tensors):
            raise TypeError("qd.select operands have different shapes")
        n = len(tensors[0].data)

        def elem(x, k):
            return x.elem(k) if isinstance(x, Tensor) else x

        return from_scalars(shape, [select(elem(cond, k), elem(a, k), elem(b, k))
                                    for k in range(n)])
    a, b = typed(a), typed(b)
    t = dt.promote(a.dtype, b.dtype)
    c = typed(cond)
    return cast(a if c.v != 0 else b, t)


def raw_div(a, b):
    a, b = typed(a), typed(b)
    t = dt.promote(a.dtype, b.dtype)
    if t.is_float:
        return binop("/", a, b)
    x, y = cast(a, t).v, cast(b, t).v
    q = builtins_abs(x) // builtins_abs(y)
    return Scalar(t, q if (x >= 0) == (y >= 0) else -q)


def raw_mod(a, b):
    a, b = typed(a), typed(b)
    q = raw_div(a, b)
    return binop("-", a, binop("*", q, b))


def popcnt(x):
    """The argument's dtype (real Quadrants 1.3.3; the spec says i32)."""
    x = typed(x)
    return Scalar(x.dtype, bin(x.v & ((1 << x.dtype.bits) - 1)).count("1"))


def clz(x):
    """The leading zero bits of the bit pattern in the operand's width, an i32 (the width for 0)."""
    x = typed(x)
    bits = x.dtype.bits
    return Scalar(dt.i32, bits - (x.v & ((1 << bits) - 1)).bit_length())


@_elementwise1
def ffs(x):
    """The 1-based position of the lowest set bit of the bit pattern (0 for 0), an i32 whatever
    the operand's integer type (ops.ffs, type_check.cpp); no Python fallback."""
    if not is_typed(x):
        raise NotImplementedError("qd.math.ffs has no Python fallback")
    if not x.dtype.is_int:
        raise TypeError(f"qd.math.ffs takes an integer, got {x.dtype}")
    bits = x.v & ((1 << x.dtype.bits) - 1)
    return Scalar(dt.i32, (bits & -bits).bit_length())


def clamp(x, lo, hi):
    return min(hi, max(lo, x))


def mix(x, y, a):
    return binop("+", binop("*", x, binop("-", 1.0, a)), binop("*", y, a))


def step(edge, x):
    return cast(binop(">=", x, edge), dt.DEFAULT_FP)


def fract(x):
    return binop("-", x, floor(x))


def sign(x):
    return binop("-", cast(binop(">=", x, 0.0), dt.DEFAULT_FP), cast(binop("<=", x, 0.0), dt.DEFAULT_FP))


def log2(x):
    return binop("/", log(x), math.log(2.0))


def length(v):
    return v.norm()


def distance(x, y):
    return binop("-", x, y).norm()


def normalize(v):
    return binop("/", v, v.norm())


def dot(x, y):
    return x.dot(y)


def cross(x, y):
    return x.cross(y)


def degrees(x):
    return binop("*", x, 180.0 / math.pi)


def radians(x):
    return binop("*", x, math.pi / 180.0)


def logical_not(x):
    return unop("not", x)
