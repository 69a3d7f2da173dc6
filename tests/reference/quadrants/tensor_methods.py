"""Vector/matrix methods and swizzles, written as the language's own matrix_ops.py does them
(same operation order, so f32 rounding matches): dot = sum(x*y), sum is a left fold, @ accumulates
from zero, norm = sqrt(norm_sqr + eps), normalized = (1 / (norm + eps)) * v."""

from . import dtypes as dt
from .ops import binop, cast, from_scalars, typed, unop
from .values import Scalar, Tensor

_SWIZZLE_SETS = ("xyzw", "rgba", "stpq")


def swizzle_indices(name):
    for chars in _SWIZZLE_SETS:
        if 1 <= len(name) <= 4 and all(c in chars for c in name):
            return [chars.index(c) for c in name]
    return None


def _fold(fun, items):
    result = items[0]
    for x in items[1:]:
        result = fun(result, x)
    return result


def t_sum(m):
    return _fold(lambda a, b: binop("+", a, b), m.elems())


def t_max(m):
    return _fold(lambda a, b: binop("max", a, b), m.elems())


def t_min(m):
    return _fold(lambda a, b: binop("min", a, b), m.elems())


def t_any(m):
    return _fold(lambda a, b: binop("|", a, b), [unop("not", unop("not", e)) for e in m.elems()])


def t_all(m):
    return _fold(lambda a, b: binop("&", a, b), [unop("not", unop("not", e)) for e in m.elems()])


def norm_sqr(m):
    return t_sum(binop("*", m, m))


def norm(m, eps=0.0):
    from .mathlib import sqrt

    return sqrt(binop("+", norm_sqr(m), eps))


def norm_inv(m, eps=0.0):
    from .mathlib import rsqrt

    return rsqrt(binop("+", norm_sqr(m), eps))


def normalized(v, eps=0.0):
    invlen = binop("/", 1, binop("+", norm(v), eps))
    return binop("*", invlen, v)


def dot(x, y):
    return t_sum(binop("*", x, y))


def cross(x, y):
    def e(v, i):
        return v.elem(i)

    def d(i, j):  # x[i]*y[j] - x[j]*y[i]
        return binop("-", binop("*", e(x, i), e(y, j)), binop("*", e(x, j), e(y, i)))

    if x.shape == (2,):
        return d(0, 1)
    if x.shape == (3,):
        return from_scalars((3,), [d(1, 2), d(2, 0), d(0, 1)])
    raise TypeError("cross needs 2-D or 3-D vectors")


def at(m, i, j=None):
    return m.elem(i if j is None else i * m.shape[1] + j)


def transpose(m):
    if len(m.shape) == 1:
        return m.copy()
    n, k = m.shape
    return from_scalars((k, n), [at(m, i, j) for j in range(k) for i in range(n)])


def outer_product(x, y):
    return from_scalars((x.shape[0], y.shape[0]),
                        [binop("*", x.elem(i), y.elem(j)) for i in range(x.shape[0])
                         for j in range(y.shape[0])])


def matmul(x, y):
    x, y = typed(x), typed(y)
    if len(x.shape) == 1 and len(y.shape) == 2:
        return matmul(transpose(y), x)
    if len(x.shape) == 1 and len(y.shape) == 1:
        return dot(x, y)
    if len(y.shape) == 1:
        out = []
        for i in range(x.shape[0]):
            acc = binop("*", binop("*", at(x, 0, 0), y.elem(0)), 0)
            for j in range(x.shape[1]):
                acc = binop("+", acc, binop("*", at(x, i, j), y.elem(j)))
            out.append(acc)
        return from_scalars((x.shape[0],), out)
    out = []
    for i in range(x.shape[0]):
        for j in range(y.shape[1]):
            acc = binop("*", binop("*", at(x, 0, 0), at(y, 0, 0)), 0)
            for k in range(x.shape[1]):
                acc = binop("+", acc, binop("*", at(x, i, k), at(y, k, j)))
            out.append(acc)
    return from_scalars((x.shape[0], y.shape[1]), out)


def trace(m):
    return _fold(lambda a, b: binop("+", a, b), [at(m, i, i) for i in range(m.shape[0])])


def determinant(m):
    def a(i, j):
        return at(m, i, j)

    def mul(x, y):
        return binop("*", x, y)

    def sub(x, y):
        return binop("-", x, y)

    n = m.shape[0]
    if n == 1:
        return a(0, 0)
    if n == 2:
        return sub(mul(a(0, 0), a(1, 1)), mul(a(0, 1), a(1, 0)))
    if n == 3:
        t0 = mul(a(0, 0), sub(mul(a(1, 1), a(2, 2)), mul(a(2, 1), a(1, 2))))
        t1 = mul(a(1, 0), sub(mul(a(0, 1), a(2, 2)), mul(a(2, 1), a(0, 2))))
        t2 = mul(a(2, 0), sub(mul(a(0, 1), a(1, 2)), mul(a(1, 1), a(0, 2))))
        return binop("+", sub(t0, t1), t2)
    if n == 4:
        det = mul(a(0, 0), 0)  # keep type
        for i in range(4):
            det = binop("+", det, mul((-1) ** i, mul(a(i, 0), _minor3(m, i, 0))))
        return det
    raise NotImplementedError("determinant above 4x4")


def _minor3(m, i, j):
    """The bracket of matrix_ops' 4x4 determinant / inverse, E(x, y) = m[x % 4, y % 4]."""
    def e(x, y):
        return at(m, x % 4, y % 4)

    def mul(x, y):
        return binop("*", x, y)

    def sub(x, y):
        return binop("-", x, y)

    return binop("+", sub(mul(e(i + 1, j + 1), sub(mul(e(i + 2, j + 2), e(i + 3, j + 3)),
                                                   mul(e(i + 3, j + 2), e(i + 2, j + 3)))),
                          mul(e(i + 2, j + 1), sub(mul(e(i + 1, j + 2), e(i + 3, j + 3)),
                                                   mul(e(i + 3, j + 2), e(i + 1, j + 3))))),
                 mul(e(i + 3, j + 1), sub(mul(e(i + 1, j + 2), e(i + 2, j + 3)),
                                          mul(e(i + 2, j + 2), e(i + 1, j + 3)))))


def inverse(m):
    """matrix_ops.inverse: 1.0 / determinant times the adjugate (closed forms up to 3x3)."""
    n = m.shape[0]
    if len(m.shape) != 2 or m.shape[1] != n:
        raise TypeError("inverse needs a square matrix")

    def e(i, j):  # matrix_ops.E: indices wrap around
        return at(m, i % n, j % n)

    if n == 1:
        return from_scalars((1, 1), [binop("/", 1.0, at(m, 0, 0))])
    inv_det = binop("/", 1.0, determinant(m))
    if n == 2:
        adj = from_scalars((2, 2), [at(m, 1, 1), unop("-", at(m, 0, 1)),
                                    unop("-", at(m, 1, 0)), at(m, 0, 0)])
        return binop("*", inv_det, adj)
    if n == 3:
        # Matrix([[E(i+1,j+1)*E(i+2,j+2) - E(i+2,j+1)*E(i+1,j+2) for i] for j]): row j, column i.
        entries = [binop("-", binop("*", e(i + 1, j + 1), e(i + 2, j + 2)),
                         binop("*", e(i + 2, j + 1), e(i + 1, j + 2)))
                   for j in range(3) for i in range(3)]
        return binop("*", inv_det, from_scalars((3, 3), entries))
    if n == 4:
        entries = [binop("*", (-1) ** (i + j), _minor3(m, i, j)) for j in range(4) for i in range(4)]
        return binop("*", inv_det, from_scalars((4, 4), entries))
    raise NotImplementedError("inverse above 4x4")


def fill(m, val):
    """matrix_ops.fill: every component assigned (with the assignment's implicit cast); on a
    value that is not a place it fills a temporary (no effect), as in Quadrants."""
    if isinstance(val, (Tensor, tuple, list)):
        raise TypeError("fill() takes a scalar")
    val = cast(val, m.dtype)
    m.data = [val.v] * len(m.data)


_METHODS = {
    "sum": t_sum, "max": t_max, "min": t_min, "any": t_any, "all": t_all, "norm": norm,
    "norm_sqr": norm_sqr, "norm_inv": norm_inv, "normalized": normalized, "dot": dot,
    "cross": cross, "outer_product": outer_product, "transpose": transpose, "trace": trace,
    "determinant": determinant, "inverse": inverse, "fill": fill,
    "cast": lambda m, dtype: cast(m, dtype),
}


def tensor_attribute(t, name):
    if name in _METHODS:
        fun = _METHODS[name]
        return lambda *args, **kw: fun(t, *args, **kw)
    if name == "n":
        return t.shape[0]
    if name == "m":
        if len(t.shape) < 2:
            raise AttributeError(f"Getting m of tensor type < 2D: {t.shape}")
        return t.shape[1]
    if name == "get_shape":
        return lambda: tuple(t.shape)
    if name == "T":
        return lambda: transpose(t)
    idx = swizzle_indices(name)
    if idx is not None and len(t.shape) == 1:
        if max(idx) >= t.shape[0]:
            raise AttributeError(f"swizzle .{name} on a vector of length {t.shape[0]}")
        if len(idx) == 1:
            return t.elem(idx[0])
        return Tensor(t.dtype, (len(idx),), [t.data[i] for i in idx])
    raise AttributeError(f"vector/matrix has no attribute '{name}'")


def as_scalar_list(x):
    """Entries of a Vector/Matrix literal row: Scalars, Python numbers or vectors (flattened)."""
    if isinstance(x, Tensor):
        return x.elems()
    return [x]


def infer_dtype(entries):
    dtype = None
    for e in entries:
        d = typed(e).dtype
        dtype = d if dtype is None else dt.promote(dtype, d)
    return dtype


def make(entries, shape, dtype=None):
    if dtype is None:
        dtype = infer_dtype(entries)
    return Tensor(dtype, shape, [cast(e, dtype).v for e in entries])
