"""Assignable places: a local variable (Cell), an ndarray element, a component (or swizzle) of a
vector/matrix place. get() reads the current value; set() stores with the implicit cast to the
place's type."""

from .matrix import as_tensor
from .ops import cast, typed
from .values import Scalar, Tensor


def coerce(value, current):
    """The implicit cast of an assignment to a place whose value is `current`."""
    if isinstance(current, Tensor):
        value = typed(value)
        if isinstance(value, Tensor):
            if value.shape != current.shape:
                raise TypeError(f"shape mismatch in assignment: {value.shape} vs {current.shape}")
            return cast(value, current.dtype)
        return Tensor(current.dtype, current.shape, [cast(value, current.dtype).v] * len(current.data))
    if isinstance(value, Tensor):
        raise TypeError("assigning a vector to a scalar variable")
    return cast(value, current.dtype)


class CellLV:
    def __init__(self, cell, ctx):
        self.cell = cell
        self.ctx = ctx

    def get(self):
        return self.cell.value

    def set(self, value):
        self.cell.value = coerce(value, self.cell.value)


class ArrayLV:
    def __init__(self, array, index, ctx):
        self.array = array
        self.index = index
        self.ctx = ctx

    def get(self):
        if self.ctx.dry and not self.array.in_bounds(self.index):
            return _zero_like(self.array)
        return self.array.load(self.index)

    def set(self, value):
        if self.ctx.dry:
            return
        self.array.store(self.index, value)


def _zero_like(array):
    if array.elem_type is None:
        return Scalar(array.dtype, 0)
    return as_tensor(Scalar(array.dtype, 0), array.elem_type)


class ComponentLV:
    """Components `ks` (flat indices) of the vector/matrix at `parent`; one k gives a scalar."""

    def __init__(self, parent, ks, shape):
        self.parent = parent
        self.ks = ks
        self.shape = shape  # None for a single component

    def get(self):
        t = self.parent.get()
        if self.shape is None:
            return t.elem(self.ks[0])
        return Tensor(t.dtype, self.shape, [t.data[k] for k in self.ks])

    def set(self, value):
        t = self.parent.get().copy()
        if self.shape is None:
            t.data[self.ks[0]] = cast(value, t.dtype).v
        else:
            value = typed(value)
            vals = value.data if isinstance(value, Tensor) else [value.v] * len(self.ks)
            src = value.dtype
            for k, v in zip(self.ks, vals):
                t.data[k] = cast(Scalar(src, v), t.dtype).v
        self.parent.set(t)
