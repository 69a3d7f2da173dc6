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
    def __init__(self, *dims):
        self.dims = [d if isinstance(d, (tuple, list)) else (0, d) for d in dims]

    def axes(self):
        out = []
        for begin, end in self.dims:
            b, e = _bound(begin), _bound(end)
            out.append((b, max(b, e)))
        return out

    def __iter__(self):  # compile-time (qd.static) iteration
        ranges = [builtins.range(b, e) for b, e in self.axes()]
        for idx in itertools.product(*ranges):
            yield idx if len(idx) > 1 else idx[0]


def ndrange(*dims):
    return NdRange(*dims)


class Grouped:
    def __init__(self, inner):
        self.inner = inner

    def axes(self):
        if hasattr(self.inner, "array_shape"):  # an ndarray argument
            return [(0, n) for n in self.inner.array_shape]
        return self.inner.axes()


def grouped(x):
    return Grouped(x)


def iterate(axes):
    """All index tuples of the axes, last axis fastest."""
    return itertools.product(*[builtins.range(b, e) for b, e in axes])
