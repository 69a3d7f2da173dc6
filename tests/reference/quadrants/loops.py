"""Loop ranges: range() with runtime bounds, qd.ndrange (n or (begin, end) per axis, last axis
fastest), qd.grouped(...) (an i32 vector index). With compile-time bounds they are also plain
Python iterables, for qd.static loops."""

import builtins
import itertools

from . import dtypes as dt
from .ops import cast, is_typed
from .values import Tensor


def _bound(x):
    """A loop bound as a Python int (runtime bounds are cast to i32)."""
    if is_typed(x):
        if isinstance(x, Tensor):
            raise TypeError("a loop bound must be a scalar")
        return cast(x, dt.i32).v
    return int(x)


class TypedRange:
    """range(a, b) where a bound is a runtime value."""

    def __init__(self, begin, end):
        self.begin = begin
        self.end = end

    def axes(self):
        return [(_bound(self.begin), _bound(self.end))]


def kernel_range(*args):
    """The builtin range() in kernel scope."""
    if not any(is_typed(a) for a in args):
        return builtins.range(*args)
    if len(args) not in (1, 2):
        raise TypeError("Range should have 1 or 2 arguments")
    begin, end = (0, args[0]) if len(args) == 1 else args
    return TypedRange(begin, end)


def range_axes(r):
    if r.step != 1:
        raise TypeError("Range should have 1 or 2 arguments")
    return [(r.start, r.stop)]


class NdRange:
    """qd.ndrange(*dims, axes=None): `axes` is the iteration order, outermost first, as a
    permutation of the canonical axes; the loop variables stay canonical (_ndrange._Ndrange)."""

    def __init__(self, *dims, axes=None):
        self.dims = [d if isinstance(d, (tuple, list)) else (0, d) for d in dims]
        self.order = None
        if axes is not None:
            axes = tuple(axes)
            n = len(self.dims)
            if len(axes) != n:
                raise SyntaxError(f"qd.ndrange(axes={axes!r}) has {len(axes)} entries but "
                                  f"ndrange was called with {n} dimension argument(s)")
            if any(isinstance(a, bool) or not isinstance(a, int) for a in axes):
                raise TypeError(f"qd.ndrange(axes={axes!r}) entries must be Python ints")
            if sorted(axes) != list(range(n)):
                raise SyntaxError(f"qd.ndrange(axes={axes!r}) is not a permutation of range({n})")
            self.order = None if axes == tuple(range(n)) else axes

    def axes(self):
        out = []
        for begin, end in self.dims:
            b, e = _bound(begin), _bound(end)
            out.append((b, max(b, e)))
        return out

    def __iter__(self):  # compile-time (qd.static) iteration
        for idx in iterate(self.axes(), self.order):
            yield idx if len(idx) > 1 else idx[0]


def ndrange(*dims, axes=None):
    return NdRange(*dims, axes=axes)


class Grouped:
    def __init__(self, inner):
        self.inner = inner

    def axes(self):
        if hasattr(self.inner, "array_shape"):  # an ndarray argument
            return [(0, n) for n in self.inner.array_shape]
        return self.inner.axes()


def grouped(x):
    return Grouped(x)


def iterate(axes, order=None):
    """All index tuples of the axes, last axis fastest; with `order` (ndrange(axes=...)) the
    axes nest in that order, outermost first, and each tuple stays in canonical axis order."""
    if order is None:
        return itertools.product(*[builtins.range(b, e) for b, e in axes])

    def gen():
        for phys in itertools.product(*[builtins.range(*axes[a]) for a in order]):
            idx = [0] * len(axes)
            for p, a in enumerate(order):
                idx[a] = phys[p]
            yield tuple(idx)

    return gen()


def order_of(it):
    """The ndrange(axes=...) order of a loop's iterable (None: the default)."""
    if isinstance(it, Grouped):
        it = it.inner
    return getattr(it, "order", None)
